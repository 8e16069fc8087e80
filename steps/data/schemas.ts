/**
 * Normalized tables every dataset is preprocessed into (Parquet, explicit Arrow schemas):
 *
 * - `turns`: one row per conversational turn (all datasets, all splits).
 * - `passages`: the retrieval collection (id, title, text).
 * - `qrels`: relevance judgements (split, qid, pid, relevance). `split` is there because
 *   QReCC and TopiOCQA restart conversation numbers per split, so "<conv>_<turn>" qids
 *   repeat across splits; filter by split before using a qid as a key.
 *
 * Conventions:
 * - `qid` keeps each dataset's own id: QReCC and TopiOCQA "<conv>_<turn>",
 *   OR-QuAC "C_<dialog>_q#<k>".
 * - `history` holds the previous turns' original questions and gold answers in
 *   chronological order (the current question is not in it).
 * - `gold_passage_ids` is empty for turns without gold (QReCC's `{"": 1}`).
 * - `question_type`: QReCC/OR-QuAC "first" | "switch" | "no-switch",
 *   TopiOCQA "first" | "topic-continues" | "topic-switch", or null when undefined
 *   (see steps/data/preprocess/question-types.ts for the rules).
 * - `topic` / `topic_section`: TopiOCQA's gold article and section; null elsewhere.
 */
import * as arrow from "apache-arrow";
import type { DatasetName } from "./datasets/names.ts";
import { once } from "../lib/once.ts";

const utf8 = (name: string, nullable = false) => new arrow.Field(name, new arrow.Utf8(), nullable);
const int32 = (name: string, nullable = false) => new arrow.Field(name, new arrow.Int32(), nullable);

/** Made on first use (steps/lib/once.ts), like the schemas: most commands read no Parquet. */
export const historyItemType = once(() => new arrow.Struct([utf8("question"), utf8("answer")]));

export const turnsSchema = once(() => new arrow.Schema([
  utf8("dataset"),
  utf8("split"),
  utf8("conversation_id"),
  int32("turn"),
  utf8("qid"),
  utf8("question"),
  utf8("rewrite", true),
  utf8("answer", true),
  new arrow.Field("history", new arrow.List(new arrow.Field("item", historyItemType(), false)), false),
  new arrow.Field("gold_passage_ids", new arrow.List(new arrow.Field("item", new arrow.Utf8(), false)), false),
  utf8("source_domain", true),
  utf8("question_type", true),
  utf8("topic", true),
  utf8("topic_section", true),
]));

export const passagesSchema = once(() => new arrow.Schema([utf8("id"), utf8("title", true), utf8("text")]));

export const qrelsSchema = once(() => new arrow.Schema([utf8("split"), utf8("qid"), utf8("pid"), int32("relevance")]));

/** A registered conversational dataset (steps/data/datasets/names.ts, registry.ts). */
export type { DatasetName };
export type QreccQuestionType = "first" | "switch" | "no-switch";
export type TopiocqaQuestionType = "first" | "topic-continues" | "topic-switch";
export type QuestionType = QreccQuestionType | TopiocqaQuestionType;

export interface HistoryItem {
  question: string;
  answer: string;
}

export interface TurnRow {
  dataset: DatasetName;
  split: string;
  conversation_id: string;
  turn: number;
  qid: string;
  question: string;
  rewrite: string | null;
  answer: string | null;
  history: HistoryItem[];
  gold_passage_ids: string[];
  source_domain: string | null;
  question_type: QuestionType | null;
  topic: string | null;
  topic_section: string | null;
}

export interface PassageRow {
  id: string;
  title: string | null;
  text: string;
}

export interface QrelRow {
  split: string;
  qid: string;
  pid: string;
  relevance: number;
}

/** Stable order for turns: split, conversation (numeric-aware), turn. */
export function compareTurns(a: TurnRow, b: TurnRow): number {
  if (a.split !== b.split) return a.split < b.split ? -1 : 1;
  const c = compareIds(a.conversation_id, b.conversation_id);
  return c !== 0 ? c : a.turn - b.turn;
}

/** Numeric when both ids are integers, else code-unit order. */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const na = /^\d+$/.test(a) ? Number(a) : NaN;
  const nb = /^\d+$/.test(b) ? Number(b) : NaN;
  if (!Number.isNaN(na) && !Number.isNaN(nb) && na !== nb) return na - nb;
  return a < b ? -1 : 1;
}

/** Stable order for qrels: split, qid, pid (code-unit order). */
export function compareQrels(a: QrelRow, b: QrelRow): number {
  if (a.split !== b.split) return a.split < b.split ? -1 : 1;
  if (a.qid !== b.qid) return a.qid < b.qid ? -1 : 1;
  return a.pid === b.pid ? 0 : a.pid < b.pid ? -1 : 1;
}
