/**
 * OR-QuAC preprocessing: `preprocessed/{train,dev,test}.txt` + `qrels.txt` +
 * `all_blocks.txt` (or `dev_blocks.txt`) -> turns/passages/qrels Parquet.
 *
 * Gold ids come from the qrels file (qids are unique across splits, so one file serves
 * all). A turn the qrels do not list gets no gold and a counted warning ("no-qrels").
 * Question types use the gold-overlap rule on every turn (no domain filter, passage
 * overlap only); since all turns of a conversation share one gold block this yields
 * "first" and "no-switch".
 */
import { mkdirSync } from "node:fs";
import { parseJsonQrels } from "../formats/qrels.ts";
import { loadRecords, readJsonFile } from "../formats/records.ts";
import { parseOrquacTurns } from "../formats/orquac.ts";
import type { ParsedOrquacTurn } from "../formats/orquac.ts";
import { preprocessCollection } from "./collection.ts";
import type { PreprocessInputs, PreprocessResult } from "./common.ts";
import { checkGoldInCollection, checkSplits, goldIdsOf, qrelsFromTurns, tablePaths, Warnings, writeTurnTables } from "./common.ts";
import { goldOverlapTypes } from "./question-types.ts";

export async function preprocessOrquac(inputs: PreprocessInputs): Promise<PreprocessResult> {
  const params = inputs.params ?? {};
  const strict = params.strict ?? false;
  const warnings = new Warnings();
  const counts: Record<string, number> = {};
  const turns: ParsedOrquacTurn[] = [];
  for (const [split, file] of checkSplits(inputs.turnsFiles, ["train", "dev", "test"], "orquac")) {
    turns.push(...parseOrquacTurns(loadRecords(file), split));
  }
  const gold = new Map<string, string[]>();
  for (const file of Object.values(inputs.qrelsFiles ?? {}).sort()) {
    for (const [qid, ids] of parseJsonQrels(readJsonFile(file).value, file).gold) gold.set(qid, ids);
  }
  for (const t of turns) {
    const ids = gold.get(t.row.qid);
    if (ids === undefined) warnings.add("no-qrels", "turn has no qrels entry (no gold)", t.row.qid);
    else t.row.gold_passage_ids = ids;
  }
  const rows = turns.map((t) => t.row);
  const types = goldOverlapTypes(rows, { domains: null, documentOf: (id) => id });
  rows.forEach((r, i) => (r.question_type = types[i] ?? null));

  const paths = tablePaths(inputs.outDir);
  mkdirSync(inputs.outDir, { recursive: true });
  const collection = await preprocessCollection({
    files: inputs.collectionFiles,
    format: "orquac-jsonl",
    outFile: paths.passages,
    goldIds: goldIdsOf(turns),
    ...(params.rowGroupRows === undefined ? {} : { rowGroupRows: params.rowGroupRows }),
    ...(inputs.onProgress === undefined ? {} : { onProgress: inputs.onProgress }),
  });
  checkGoldInCollection(turns, collection.foundGold, strict, warnings);
  const qrels = qrelsFromTurns(rows);
  await writeTurnTables(inputs.outDir, "orquac", rows, qrels, params.rowGroupRows);
  for (const r of rows) counts[`turns_${r.split}`] = (counts[`turns_${r.split}`] ?? 0) + 1;
  counts["passages"] = collection.passages;
  counts["qrels"] = qrels.length;
  return { counts, warnings: warnings.list(), files: paths };
}
