/**
 * TopiOCQA (McGill-NLP/topiocqa, CC BY-NC-SA 4.0) native formats.
 *
 * Raw turns (`topiocqa_train.json` / `topiocqa_dev.json`: one JSON array; the HF hub copy
 * is the same records as JSONL):
 *   {"Conversation_no": 1, "Turn_no": 2, "Question": "...", "Answer": "...",
 *    "Topic": "Article title", "Topic_section": "Section", "Context": ["q1", "a1", ...],
 *    "Rationale": "...", "is_nq": false, "Additional_answers"?: [...],
 *    "Gold_passage"?: {"id": "...", "title": "...", "text": "..."}}
 *
 * DPR "all_history" retriever files (`data/retriever/all_history/{train,dev}.json`, one
 * JSON array):
 *   {"conv_id": 1, "turn_id": 2, "question": "q1 [SEP] a1 [SEP] ... [SEP] q_t",
 *    "answers": ["..."], "positive_ctxs": [{"title": "Doc [SEP] Section", "text": "...",
 *    "passage_id"?: "..."}], "negative_ctxs": [...], "hard_negative_ctxs": [...]}
 *   The official evaluation matches the gold passage by (title, text), so a positive
 *   without an id is kept as a reference that the collection pass resolves.
 *
 * Corpus `full_wiki_segments.tsv` (~25.7M 200-word segments), read with Python csv
 * (tab delimiter, `"` quoting), header row `id	text	title`:
 *   1	segment text	Article title [SEP] Section title
 *   Titles keep the "Doc [SEP] Section" form (the DPR encoders read it that way); the
 *   document part (before " [SEP] ") is the article used for topic switches.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { PassageRow, TurnRow } from "../schemas.ts";
import { compareTurns } from "../schemas.ts";
import type { LoadedRecord, RecordAt } from "./records.ts";
import { asObject, optString, optStringArray, pairContext, reqArray, reqId, reqInt, reqString } from "./records.ts";

/** A gold passage known by (title, text) only; resolved to an id against the collection. */
export interface GoldRef {
  readonly title: string;
  readonly text: string;
}

export interface ParsedTopiocqaTurn {
  readonly row: TurnRow;
  readonly at: RecordAt;
  /** Gold passages still to be resolved to collection ids. */
  readonly goldRefs: GoldRef[];
}

export const TITLE_SEP = " [SEP] ";

/** The article part of a "Doc [SEP] Section" title. */
export function topiocqaDocumentOf(title: string): string {
  const i = title.indexOf(TITLE_SEP);
  return i < 0 ? title : title.slice(0, i);
}

export function topiocqaQid(conversation: string, turn: number): string {
  return `${conversation}_${turn}`;
}

function idOf(ctx: Record<string, unknown>): string | null {
  for (const k of ["passage_id", "psg_id", "id"]) {
    const v = ctx[k];
    if (typeof v === "string" && v !== "") return v;
    if (typeof v === "number") return String(v);
  }
  return null;
}

/** Raw TopiOCQA records (either file type detected per record: `conv_id` means DPR all_history). */
export function parseTopiocqaTurns(records: readonly LoadedRecord[], split: string): ParsedTopiocqaTurn[] {
  const out: ParsedTopiocqaTurn[] = [];
  const seen = new Map<string, number>();
  for (const rec of records) {
    const at: RecordAt = { file: rec.file, line: rec.line };
    const o = asObject(rec.value, at, "TopiOCQA turn");
    const t = "conv_id" in o ? parseAllHistory(o, at, split) : parseRaw(o, at, split);
    const prev = seen.get(t.row.qid);
    if (prev !== undefined) throw new InputError(`duplicate turn ${t.row.qid} (first at line ${prev})`, { file: at.file, line: at.line, fix: "remove the repeated record" });
    seen.set(t.row.qid, at.line);
    out.push(t);
  }
  return out.sort((a, b) => compareTurns(a.row, b.row));
}

function parseRaw(o: Record<string, unknown>, at: RecordAt, split: string): ParsedTopiocqaTurn {
  const conversation = reqId(o, "Conversation_no", at);
  const turn = reqInt(o, "Turn_no", at);
  const context = optStringArray(o, "Context", at) ?? [];
  const gold: string[] = [];
  const goldRefs: GoldRef[] = [];
  const gp = o["Gold_passage"];
  if (gp !== undefined && gp !== null) {
    const g = asObject(gp, at, "Gold_passage");
    const id = idOf(g);
    if (id !== null) gold.push(id);
    else goldRefs.push({ title: reqString(g, "title", at), text: reqString(g, "text", at) });
  }
  return {
    at,
    goldRefs,
    row: {
      dataset: "topiocqa",
      split,
      conversation_id: conversation,
      turn,
      qid: topiocqaQid(conversation, turn),
      question: reqString(o, "Question", at),
      rewrite: null,
      answer: optString(o, "Answer", at),
      history: pairContext(context, at, "Context"),
      gold_passage_ids: gold,
      source_domain: null,
      question_type: null,
      topic: reqString(o, "Topic", at),
      topic_section: optString(o, "Topic_section", at),
    },
  };
}

function parseAllHistory(o: Record<string, unknown>, at: RecordAt, split: string): ParsedTopiocqaTurn {
  const conversation = reqId(o, "conv_id", at);
  const turn = reqInt(o, "turn_id", at);
  const parts = reqString(o, "question", at).split(TITLE_SEP);
  const question = parts.pop()!;
  const answers = optStringArray(o, "answers", at) ?? [];
  const gold = new Set<string>();
  const goldRefs: GoldRef[] = [];
  let topic: string | null = null;
  let section: string | null = null;
  for (const [i, c] of reqArray(o, "positive_ctxs", at).entries()) {
    const ctx = asObject(c, at, `positive_ctxs[${i}]`);
    const title = reqString(ctx, "title", at);
    if (i === 0) {
      topic = topiocqaDocumentOf(title);
      section = title.includes(TITLE_SEP) ? title.slice(title.indexOf(TITLE_SEP) + TITLE_SEP.length) : null;
    }
    const id = idOf(ctx);
    if (id !== null) gold.add(id);
    else goldRefs.push({ title, text: reqString(ctx, "text", at) });
  }
  return {
    at,
    goldRefs,
    row: {
      dataset: "topiocqa",
      split,
      conversation_id: conversation,
      turn,
      qid: topiocqaQid(conversation, turn),
      question,
      rewrite: null,
      answer: answers[0] ?? null,
      history: pairContext(parts, at, "question"),
      gold_passage_ids: [...gold].sort(),
      source_domain: null,
      question_type: null,
      topic,
      topic_section: section,
    },
  };
}

/** True for the TSV header row `id	text	title`. */
export function isTopiocqaHeader(fields: readonly string[]): boolean {
  return fields[0] === "id";
}

/** One `full_wiki_segments.tsv` record (id, text, title). */
export function parseTopiocqaSegment(fields: readonly string[], at: RecordAt): PassageRow {
  if (fields.length !== 3) {
    throw new InputError(`expected 3 tab-separated columns (id, text, title), got ${fields.length}`, { file: at.file, line: at.line, fix: "quote fields that contain tabs, as Python's csv module does" });
  }
  const id = fields[0]!;
  if (id === "") throw new InputError("empty passage id", { file: at.file, line: at.line, field: "id", fix: "every segment needs an id" });
  return { id, text: fields[1]!, title: fields[2]! };
}
