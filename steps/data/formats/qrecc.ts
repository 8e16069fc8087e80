/**
 * QReCC (apple/ml-qrecc, CC BY-SA 3.0) native formats.
 *
 * Turn files are one JSON array per split (`qrecc_train.json`, `qrecc_test.json`), in
 * one of two shapes:
 *   original (ml-qrecc `dataset/qrecc_data.zip`):
 *     [{"Context": ["q1", "a1", ...], "Question": "...", "Rewrite": "...", "Answer": "...",
 *       "Answer_URL": "https://...", "Conversation_no": 1, "Turn_no": 2,
 *       "Conversation_source": "quac" | "nq" | "trec"}, ...]
 *     Context alternates the earlier turns' REWRITES (not their original questions) and
 *     answers; no passage ids. Every turn of a conversation is in the same file, in no
 *     particular order.
 *   SCAI-QReCC task files (the one the authors read; e.g. scai-qrecc21-*-turns.json plus
 *   the ground truth file), with the truth merged in:
 *     [{"Conversation_no": 1, "Turn_no": 2, "Question": "...", "Truth_rewrite": "...",
 *       "Truth_answer": "...", "Truth_passages": ["<url>_p<i>", ...],
 *       "Transformer_rewrite"?: "...", "Conversation_source"?: "..."}, ...]
 *     Context, when present, has the same content as in the original files.
 * History (both shapes): the earlier turns of the same conversation (sorted by Turn_no),
 * their original `Question` and their answer, as the authors' inputs X_t are built. Never
 * `Context`: it would put the gold rewrites of earlier turns into X_t. Context is kept as
 * a cross-check (`checkQreccContext`: its length and answers against the earlier turns).
 *
 * Collection (Zenodo passages.zip, ~54M passages in many JSONL files):
 *   {"id": "http://www.example.com/page_p3", "contents": "passage text"}
 *   Ids are "<page url>_p<i>"; there are no titles.
 *
 * Qrels (JSON object): {"<conv>_<turn>": {"<passage id>": 1, ...}, ...}; a turn without
 * gold is stored as {"": 1}.
 *
 * Question-type labels (the authors' `test_question_types.json`):
 *   {"trec": [qids], "quac": [...], "nq": [...], "first": [...], "switch": [...], "no-switch": [...]}
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { PassageRow, QreccQuestionType, TurnRow } from "../schemas.ts";
import { compareTurns } from "../schemas.ts";
import type { LoadedRecord, RecordAt } from "./records.ts";
import { parseJsonQrels } from "./qrels.ts";
import { asObject, optString, optStringArray, pairContext, reqId, reqInt, reqString } from "./records.ts";

export type QreccTurnFormat = "original" | "scai";

export interface ParsedTurn {
  readonly row: TurnRow;
  readonly at: RecordAt;
  /** The record's `Context` as (question, answer) pairs; null when the record has none. */
  readonly context?: readonly { question: string; answer: string }[] | null;
}

/** The shape of a QReCC turn record: SCAI when it has Truth_* fields, else original. */
export function detectQreccFormat(record: Record<string, unknown>): QreccTurnFormat {
  return "Truth_rewrite" in record || "Truth_answer" in record || "Truth_passages" in record ? "scai" : "original";
}

const DOMAINS = new Set(["quac", "nq", "trec"]);

/** QReCC's qid convention. */
export function qreccQid(conversation: string, turn: number): string {
  return `${conversation}_${turn}`;
}

/**
 * Parses one split's turn records (either shape, detected per record). Rows come back in
 * (conversation, turn) order with question_type null; gold ids from Truth_passages; history
 * from the earlier turns of the conversation (see the header), never from Context.
 */
export function parseQreccTurns(records: readonly LoadedRecord[], split: string): ParsedTurn[] {
  const parsed: { row: TurnRow; at: RecordAt; context: { question: string; answer: string }[] | null }[] = [];
  const seen = new Map<string, RecordAt>();
  for (const rec of records) {
    const at: RecordAt = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, "QReCC turn");
    const format = detectQreccFormat(o);
    const conversation = reqId(o, "Conversation_no", at);
    const turn = reqInt(o, "Turn_no", at);
    const qid = qreccQid(conversation, turn);
    const prev = seen.get(qid);
    if (prev !== undefined) {
      throw new InputError(`duplicate turn ${qid} (first at line ${prev.line})`, { file: at.file, line: at.line, field: "Turn_no", fix: "remove the repeated record" });
    }
    seen.set(qid, at);
    const source = optString(o, "Conversation_source", at);
    if (source !== null && !DOMAINS.has(source)) {
      throw new InputError(`unknown source '${source}'`, { file: at.file, line: at.line, field: "Conversation_source", fix: "expected quac, nq or trec" });
    }
    const context = optStringArray(o, "Context", at);
    const gold = format === "scai" ? (optStringArray(o, "Truth_passages", at) ?? []).filter((p) => p !== "") : [];
    parsed.push({
      at,
      context: context === null ? null : pairContext(context, at, "Context"),
      row: {
        dataset: "qrecc",
        split,
        conversation_id: conversation,
        turn,
        qid,
        question: reqString(o, "Question", at),
        rewrite: format === "scai" ? optString(o, "Truth_rewrite", at) : optString(o, "Rewrite", at),
        answer: format === "scai" ? optString(o, "Truth_answer", at) : optString(o, "Answer", at),
        history: [],
        gold_passage_ids: [...new Set(gold)].sort(),
        source_domain: source,
        question_type: null,
        topic: null,
        topic_section: null,
      },
    });
  }
  parsed.sort((a, b) => compareTurns(a.row, b.row));
  // history: the earlier turns of the conversation, original questions and answers
  let conv = "";
  let running: { question: string; answer: string }[] = [];
  for (const p of parsed) {
    if (p.row.conversation_id !== conv) {
      conv = p.row.conversation_id;
      running = [];
    }
    p.row.history = running.slice();
    running.push({ question: p.row.question, answer: p.row.answer ?? "" });
  }
  return parsed.map(({ row, at, context }) => ({ row, at, context }));
}

export interface ContextDisagreement {
  readonly qid: string;
  readonly kind: "context-length-differs" | "context-answer-differs";
  readonly detail: string;
}

/**
 * Cross-checks each record's `Context` against the history built from the file's earlier
 * turns: a different number of (question, answer) pairs (a turn missing from the file, or
 * a Context that is not this conversation's) or an answer that differs. Questions are not
 * compared: Context holds the rewrites. Pure; rows must come from `parseQreccTurns`.
 */
export function checkQreccContext(turns: readonly ParsedTurn[]): ContextDisagreement[] {
  const out: ContextDisagreement[] = [];
  for (const t of turns) {
    const context = t.context;
    if (context === null || context === undefined) continue;
    const history = t.row.history;
    if (context.length !== history.length) {
      out.push({ qid: t.row.qid, kind: "context-length-differs", detail: `Context has ${context.length} question/answer pairs, the file has ${history.length} earlier turn(s)` });
      continue;
    }
    const i = context.findIndex((c, k) => c.answer !== history[k]!.answer);
    if (i >= 0) out.push({ qid: t.row.qid, kind: "context-answer-differs", detail: `Context answer ${i + 1} differs from turn ${i + 1}'s Answer` });
  }
  return out;
}

/** QReCC qrels: `{"<conv>_<turn>": {"<pid>": 1}}`, `{"": 1}` = no gold. */
export const parseQreccQrels = parseJsonQrels;

/** One collection line `{"id", "contents"}` as a passage row. */
export function parseQreccPassage(value: unknown, at: RecordAt): PassageRow {
  const o = asObject(value, at, "QReCC passage");
  return { id: reqId(o, "id", at), title: null, text: reqString(o, "contents", at) };
}

/** The document a QReCC passage belongs to: the id without its `_p<i>` suffix. */
export function qreccDocumentOf(passageId: string): string {
  const m = /_p\d+$/.exec(passageId);
  return m ? passageId.slice(0, m.index) : passageId;
}

export interface QuestionTypeLabels {
  /** qid -> quac | nq | trec */
  readonly domain: Map<string, string>;
  /** qid -> first | switch | no-switch */
  readonly type: Map<string, QreccQuestionType>;
}

const LABEL_TYPES: readonly QreccQuestionType[] = ["first", "switch", "no-switch"];

/** Parses the authors' question-type labels file. A qid listed under two types (or two domains) is an error. */
export function parseQuestionTypeLabels(value: unknown, file: string): QuestionTypeLabels {
  const o = asObject(value, { file, line: 1 }, "labels file");
  const domain = new Map<string, string>();
  const type = new Map<string, QreccQuestionType>();
  for (const [key, list] of Object.entries(o)) {
    const isDomain = DOMAINS.has(key);
    const isType = (LABEL_TYPES as readonly string[]).includes(key);
    if (!isDomain && !isType) {
      throw new InputError(`unknown label '${key}'`, { file, field: key, fix: "keys are trec, quac, nq, first, switch, no-switch" });
    }
    if (!Array.isArray(list)) throw new InputError("expected an array of qids", { file, field: key, fix: 'write e.g. "first": ["1_1", ...]' });
    const target: Map<string, string> = isDomain ? domain : type;
    for (const q of list) {
      const qid = typeof q === "number" ? String(q) : q;
      if (typeof qid !== "string") throw new InputError(`expected a qid string, got ${JSON.stringify(q)}`, { file, field: key, fix: "qids look like <conv>_<turn>" });
      const prev = target.get(qid);
      if (prev !== undefined && prev !== key) {
        throw new InputError(`qid ${qid} is listed under both '${prev}' and '${key}'`, { file, field: key, fix: "a turn has one domain and one type" });
      }
      target.set(qid, key);
    }
  }
  return { domain, type: type as Map<string, QreccQuestionType> };
}
