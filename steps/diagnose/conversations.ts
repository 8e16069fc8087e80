/**
 * The conversations file of `diagnose`: JSONL, one turn a line (README, "Diagnosing a dataset"):
 *
 *   {"conversation_id": "c1", "turn": 2, "question": "Who founded it?", "answer": "Jobs and Wozniak.",
 *    "gold_passage_ids": ["apple_p3"], "rewrite": "Who founded Apple?", "question_type": "no-switch"}
 *
 *   conversation_id  string or integer, required
 *   turn             integer >= 1, required; a conversation's turns are 1..n (any line order)
 *   question         string, required (q_t)
 *   answer           string or null (a_t; feeds the history of later turns), default null
 *   gold_passage_ids array of passage ids, default []; a turn without gold is not scored
 *   rewrite          string or null, optional (q*_t)
 *   question_type    optional: first | switch | no-switch, or TopiOCQA's 1st | ts | tc,
 *                    topic-switch | topic-continues; computed from gold where missing (below)
 *   qid              optional, default "<conversation_id>_<turn>"
 *
 * The history of turn t is the conversation's turns 1..t-1 (question and answer), so X_t means what
 * it means in the pipeline (steps/encoding/format/query-forms.ts). Computed types: turn 1 is first;
 * turn t > 1 whose turn t-1 and itself both have gold is no-switch when the two gold sets share a
 * passage id, else switch; other turns get no type (the passage-overlap rule of
 * steps/data/preprocess/question-types.ts with passages as their own documents).
 * Pure apart from the input lines; every error names the file, the line and the field.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import type { LineBatch } from "../files/hashed-lines.ts";
import { parseJsonLine } from "../lib/jsonl.ts";

export type DiagnosisType = "first" | "switch" | "no-switch";

/** Accepted spellings of the question types. */
const TYPE_NAMES: Readonly<Record<string, DiagnosisType>> = {
  first: "first",
  "1st": "first",
  switch: "switch",
  ts: "switch",
  "topic-switch": "switch",
  "no-switch": "no-switch",
  tc: "no-switch",
  "topic-continues": "no-switch",
};

export function diagnosisType(name: string | null | undefined): DiagnosisType | null {
  if (name === null || name === undefined) return null;
  return TYPE_NAMES[name] ?? null;
}

/** One turn in the pipeline's turns-table shape (steps/data/schemas.ts), plus where its type came from. */
export interface ConversationTurn {
  readonly dataset: string;
  readonly split: string;
  readonly conversation_id: string;
  readonly turn: number;
  readonly qid: string;
  readonly question: string;
  readonly rewrite: string | null;
  readonly answer: string | null;
  readonly history: { question: string; answer: string }[];
  readonly gold_passage_ids: string[];
  readonly source_domain: string | null;
  question_type: string | null;
  readonly topic: string | null;
  readonly topic_section: string | null;
  typeSource: "given" | "computed" | "none";
}

interface RawTurn {
  readonly line: number;
  readonly conversation: string;
  readonly turn: number;
  readonly qid: string;
  readonly question: string;
  readonly answer: string | null;
  readonly rewrite: string | null;
  readonly gold: string[];
  readonly type: DiagnosisType | null;
}

const KNOWN = new Set(["conversation_id", "turn", "question", "answer", "gold_passage_ids", "rewrite", "question_type", "qid"]);

function parseTurn(text: string, file: string, line: number): RawTurn {
  const v = parseJsonLine(text, file, line, "each line must be one JSON object (JSONL)");
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new InputError("a conversations line must be one JSON object", { file, line, fix: "write one turn object per line" });
  const r = v as Record<string, unknown>;
  const unknown = Object.keys(r).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new InputError(`unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")}`, { file, line, field: unknown[0]!, fix: `use only ${[...KNOWN].join(", ")} (README, "Diagnosing a dataset")` });
  const where = (field: string) => ({ file, line, field });
  const conv = r.conversation_id;
  if (!((typeof conv === "string" && conv !== "") || (typeof conv === "number" && Number.isInteger(conv)))) throw new InputError("conversation_id must be a non-empty string or an integer", { ...where("conversation_id"), fix: 'e.g. "conversation_id": "c12"' });
  const turn = r.turn;
  if (typeof turn !== "number" || !Number.isInteger(turn) || turn < 1) throw new InputError(`turn must be an integer >= 1, got ${JSON.stringify(turn)}`, { ...where("turn"), fix: "number the turns of a conversation 1, 2, 3, ..." });
  if (typeof r.question !== "string") throw new InputError("question must be a string", { ...where("question"), fix: 'e.g. "question": "Who founded it?"' });
  const optString = (field: string): string | null => {
    const x = r[field];
    if (x === undefined || x === null) return null;
    if (typeof x !== "string") throw new InputError(`${field} must be a string or null`, { ...where(field), fix: `write ${field} as text` });
    return x;
  };
  const gold = r.gold_passage_ids ?? [];
  if (!Array.isArray(gold) || gold.some((g) => typeof g !== "string" || g === "")) throw new InputError("gold_passage_ids must be an array of passage id strings", { ...where("gold_passage_ids"), fix: 'e.g. "gold_passage_ids": ["doc3_p1"]; [] for a turn without gold' });
  const typeName = optString("question_type");
  const type = diagnosisType(typeName);
  if (typeName !== null && type === null) throw new InputError(`unknown question_type '${typeName}'`, { ...where("question_type"), fix: `use one of ${Object.keys(TYPE_NAMES).join(", ")}, or leave it out to compute it from gold` });
  const conversation = String(conv);
  const qid = optString("qid") ?? `${conversation}_${turn}`;
  if (qid === "" || /\s/.test(qid)) throw new InputError(`qid '${qid}' is empty or contains whitespace`, { ...where("qid"), fix: "use qids without spaces" });
  return { line, conversation, turn, qid, question: r.question, answer: optString("answer"), rewrite: optString("rewrite"), gold: [...new Set(gold as string[])], type };
}

/**
 * Turns of a conversations file, in (conversation, turn) order with their history, split `split`.
 * Errors: duplicate (conversation, turn) or qid, a conversation whose turns are not 1..n.
 */
export async function parseConversations(batches: AsyncIterable<LineBatch>, file: string, split: string): Promise<ConversationTurn[]> {
  const raw: RawTurn[] = [];
  for await (const b of batches) {
    b.lines.forEach((text, i) => {
      if (text.trim() !== "") raw.push(parseTurn(text, file, b.firstLine + i));
    });
  }
  if (raw.length === 0) throw new InputError("no turns", { file, fix: "write one JSON object per turn" });
  const byConv = new Map<string, RawTurn[]>();
  const qids = new Map<string, number>();
  for (const t of raw) {
    const seen = qids.get(t.qid);
    if (seen !== undefined) throw new InputError(`qid '${t.qid}' appears twice (first at line ${seen})`, { file, line: t.line, field: "qid", fix: "give every turn its own (conversation_id, turn)" });
    qids.set(t.qid, t.line);
    let list = byConv.get(t.conversation);
    if (list === undefined) byConv.set(t.conversation, (list = []));
    list.push(t);
  }
  const out: ConversationTurn[] = [];
  const convIds = [...byConv.keys()].sort((a, b) => {
    const na = /^\d+$/.test(a) ? Number(a) : NaN;
    const nb = /^\d+$/.test(b) ? Number(b) : NaN;
    return !Number.isNaN(na) && !Number.isNaN(nb) && na !== nb ? na - nb : a < b ? -1 : a > b ? 1 : 0;
  });
  for (const conv of convIds) {
    const turns = byConv.get(conv)!.sort((a, b) => a.turn - b.turn);
    turns.forEach((t, i) => {
      if (t.turn !== i + 1) {
        const dup = turns[i - 1]?.turn === t.turn;
        throw new InputError(dup ? `conversation '${conv}' has turn ${t.turn} twice` : `conversation '${conv}' has no turn ${i + 1} (its turns are ${turns.map((x) => x.turn).join(", ")})`, {
          file,
          line: t.line,
          field: "turn",
          fix: "number each conversation's turns 1..n: the history of a turn is the turns before it",
        });
      }
    });
    const history: { question: string; answer: string }[] = [];
    for (const t of turns) {
      out.push({
        dataset: "user",
        split,
        conversation_id: conv,
        turn: t.turn,
        qid: t.qid,
        question: t.question,
        rewrite: t.rewrite,
        answer: t.answer,
        history: history.map((h) => ({ ...h })),
        gold_passage_ids: t.gold,
        source_domain: null,
        question_type: t.type,
        topic: null,
        topic_section: null,
        typeSource: t.type === null ? "none" : "given",
      });
      history.push({ question: t.question, answer: t.answer ?? "" });
    }
  }
  fillComputedTypes(out);
  return out;
}

/** The passage-overlap rule (top of file) for turns without a given type, in place. */
export function fillComputedTypes(turns: ConversationTurn[]): void {
  const byKey = new Map(turns.map((t) => [`${t.conversation_id}\u0000${t.turn}`, t]));
  for (const t of turns) {
    if (t.typeSource === "given") continue;
    let type: DiagnosisType | null = null;
    if (t.turn === 1) type = "first";
    else {
      const prev = byKey.get(`${t.conversation_id}\u0000${t.turn - 1}`);
      if (prev !== undefined && prev.gold_passage_ids.length > 0 && t.gold_passage_ids.length > 0) {
        const ids = new Set(prev.gold_passage_ids);
        type = t.gold_passage_ids.some((g) => ids.has(g)) ? "no-switch" : "switch";
      }
    }
    t.question_type = type;
    t.typeSource = type === null ? "none" : "computed";
  }
}
