/**
 * Query forms of the study, as a registry keyed by name. A form turns a turn row into an ordered
 * list of text segments; BM25 joins them into plain text (`queryText`), the dense encoders put
 * `[SEP]` between them (`encodeQuery` in query-tokens.ts), so both use the SAME definitions.
 *
 * | name              | paper        | segments                                   | layout  |
 * |-------------------|--------------|--------------------------------------------|---------|
 * | q_t               | q_t          | q_t                                        | single  |
 * | a_prev            | a_{t-1}      | a_{t-1} ("" at turn 1)                     | single  |
 * | history_without_q | X_t \ {q_t}  | q_1, a_1, ..., q_{t-1}, a_{t-1}            | history |
 * | history           | X_t          | q_1, a_1, ..., q_{t-1}, a_{t-1}, q_t       | history |
 * | rewrite           | q*_t         | gold rewrite (InputError when missing)     | single  |
 * | questions         | Q_t          | q_1, ..., q_t                              | history |
 * | questions_prev    | Q_{t-1}      | q_1, ..., q_{t-1}                          | history |
 * | q_first           | q_1          | q_1 (= q_t at turn 1)                      | single  |
 *
 * History is chronological, original questions plus gold answers. A null answer is kept as an
 * empty segment (the authors join "" too, which gives "[SEP] [SEP]"); the text form skips it.
 * At turn 1 history_without_q and questions_prev have no segment: empty text, `[CLS] [SEP]`.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { TurnRow } from "./rows.ts";

export type QueryLayout = "single" | "history";

export interface QueryForm {
  readonly name: QueryFormName;
  readonly paper: string;
  /** single: one segment, right-truncated. history: first segment pinned, rest left-truncated. */
  readonly layout: QueryLayout;
  readonly segments: (turn: TurnRow) => string[];
}

export const QUERY_FORM_NAMES = ["q_t", "a_prev", "history_without_q", "history", "rewrite", "questions", "questions_prev", "q_first"] as const;
export type QueryFormName = (typeof QUERY_FORM_NAMES)[number];

const pastQA = (t: TurnRow): string[] => t.history.flatMap((h) => [h.question, h.answer ?? ""]);
const pastQ = (t: TurnRow): string[] => t.history.map((h) => h.question);

export const QUERY_FORMS: { readonly [K in QueryFormName]: QueryForm } = {
  q_t: { name: "q_t", paper: "q_t", layout: "single", segments: (t) => [t.question] },
  a_prev: { name: "a_prev", paper: "a_{t-1}", layout: "single", segments: (t) => [t.history[t.history.length - 1]?.answer ?? ""] },
  history_without_q: { name: "history_without_q", paper: "X_t \\ {q_t}", layout: "history", segments: pastQA },
  history: { name: "history", paper: "X_t", layout: "history", segments: (t) => [...pastQA(t), t.question] },
  rewrite: {
    name: "rewrite",
    paper: "q*_t",
    layout: "single",
    segments: (t) => {
      if (t.rewrite === null) {
        throw new InputError(`turn ${t.qid} has no gold rewrite`, { field: "rewrite", fix: "the rewrite form needs a dataset with rewrites (QReCC, OR-QuAC); pick another query form" });
      }
      return [t.rewrite];
    },
  },
  questions: { name: "questions", paper: "Q_t", layout: "history", segments: (t) => [...pastQ(t), t.question] },
  questions_prev: { name: "questions_prev", paper: "Q_{t-1}", layout: "history", segments: pastQ },
  q_first: { name: "q_first", paper: "q_1", layout: "single", segments: (t) => [t.history[0]?.question ?? t.question] },
};

export function isQueryFormName(name: string): name is QueryFormName {
  return (QUERY_FORM_NAMES as readonly string[]).includes(name);
}

export function queryForm(name: string): QueryForm {
  if (!isQueryFormName(name)) {
    throw new InputError(`unknown query form '${name}'`, { field: "queryForm", fix: `use one of ${QUERY_FORM_NAMES.join(", ")}` });
  }
  return QUERY_FORMS[name];
}

export const queryFormNames = (): readonly QueryFormName[] => QUERY_FORM_NAMES;

/** BM25 text of a form: non-empty segments joined by single spaces (no [SEP], no truncation). */
export function queryText(turn: TurnRow, form: QueryFormName): string {
  return QUERY_FORMS[form]
    .segments(turn)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .join(" ");
}
