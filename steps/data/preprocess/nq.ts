/**
 * NQ-style standalone questions (DPR's biencoder-nq files; the mini benchmark's mini-nq)
 * -> turns/passages/qrels Parquet, so θ0 pre-training reads the same tables as every
 * conversational dataset. Each question is a one-turn "conversation": no history, the
 * question is its own rewrite, gold = the positive passage ids.
 *
 * Turn files: a JSON array (DPR's `biencoder-nq-*.json`) or JSONL (mini-nq), records
 * `{question, answers, positive_ctxs:[{passage_id, title, text}], positive_passage_id?}`.
 * Collection: DPR's `psgs_w100.tsv` (`id\ttext\ttitle`, the same layout as TopiOCQA's
 * segments file).
 */
import { mkdirSync } from "node:fs";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { loadRecords, type LoadedRecord } from "../formats/records.ts";
import type { DatasetName, TurnRow } from "../schemas.ts";
import { preprocessCollection } from "./collection.ts";
import type { PreprocessInputs, PreprocessWarning } from "./common.ts";
import { checkGoldInCollection, checkSplits, goldIdsOf, qrelsFromTurns, tablePaths, Warnings, writeTurnTables } from "./common.ts";

/** The `dataset` column value; NQ is not one of the conversational datasets (DatasetName). */
const NQ = "nq" as DatasetName;

function field<T>(rec: LoadedRecord, name: string, check: (v: unknown) => v is T, what: string): T {
  const obj = rec.value as Record<string, unknown>;
  const v = obj[name];
  if (!check(v)) throw new InputError(`field '${name}' must be ${what}`, { file: rec.file, line: rec.line, field: name, fix: "each record needs question (string), answers (string[]) and positive_ctxs or positive_passage_id" });
  return v;
}
const isString = (v: unknown): v is string => typeof v === "string";
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);

/** One standalone question as a turn row; `index` makes the qid (DPR's files carry no ids). */
export function nqTurn(rec: LoadedRecord, split: string, index: number): TurnRow {
  if (typeof rec.value !== "object" || rec.value === null || Array.isArray(rec.value)) {
    throw new InputError("record must be a JSON object", { file: rec.file, line: rec.line });
  }
  const question = field(rec, "question", isString, "a string").trim();
  const answers = field(rec, "answers", isArray, "an array of strings").filter(isString);
  const obj = rec.value as Record<string, unknown>;
  const gold = new Set<string>();
  if (typeof obj.positive_passage_id === "string") gold.add(obj.positive_passage_id);
  for (const ctx of Array.isArray(obj.positive_ctxs) ? obj.positive_ctxs : []) {
    const id = (ctx as Record<string, unknown> | null)?.passage_id;
    if (typeof id === "string" || typeof id === "number") gold.add(String(id));
  }
  const qid = `nq-${split}-${index}`;
  return {
    dataset: NQ,
    split,
    conversation_id: qid,
    turn: 1,
    qid,
    question,
    rewrite: question,
    answer: answers[0] ?? null,
    history: [],
    gold_passage_ids: [...gold].sort(),
    source_domain: "nq",
    question_type: "first",
    topic: null,
    topic_section: null,
  };
}

/** NQ has no separate collection step: its one preprocessing writes the three tables. */
export interface NqInputs extends Omit<PreprocessInputs, "passagesFile"> {
  /** Collection files (TSV, optionally .gz); read in sorted path order. */
  readonly collectionFiles: readonly string[];
}

export interface NqResult {
  readonly counts: Record<string, number>;
  readonly warnings: PreprocessWarning[];
  readonly files: { turns: string; passages: string; qrels: string };
}

export async function preprocessNq(inputs: NqInputs): Promise<NqResult> {
  const params = inputs.params ?? {};
  const warnings = new Warnings();
  const located: { row: TurnRow; at: { file: string; line: number } }[] = [];
  for (const [split, file] of checkSplits(inputs.turnsFiles, ["train", "dev"], "nq")) {
    loadRecords(file).forEach((rec, i) => {
      const row = nqTurn(rec, split, i);
      if (row.gold_passage_ids.length === 0) warnings.add("no-gold", "question has no positive passage id (skipped)", row.qid);
      else located.push({ row, at: { file: rec.file, line: rec.line } });
    });
  }
  const rows = located.map((t) => t.row);
  const paths = tablePaths(inputs.outDir);
  mkdirSync(inputs.outDir, { recursive: true });
  const collection = await preprocessCollection({
    files: inputs.collectionFiles,
    format: "topiocqa-tsv",
    outFile: paths.passages,
    goldIds: goldIdsOf(located),
    ...(params.rowGroupRows === undefined ? {} : { rowGroupRows: params.rowGroupRows }),
    ...(inputs.onProgress === undefined ? {} : { onProgress: inputs.onProgress }),
  });
  checkGoldInCollection(located, collection.foundGold, params.strict ?? false, warnings);
  const qrels = qrelsFromTurns(rows);
  await writeTurnTables(inputs.outDir, NQ, rows, qrels, params.rowGroupRows);
  const counts: Record<string, number> = { passages: collection.passages, qrels: qrels.length };
  for (const r of rows) counts[`turns_${r.split}`] = (counts[`turns_${r.split}`] ?? 0) + 1;
  return { counts, warnings: warnings.list(), files: paths };
}
