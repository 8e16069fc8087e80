/**
 * OR-QuAC turn preprocessing: `preprocessed/{train,dev,test}.txt` (the splits given) +
 * `qrels.txt`, checked against the blocks' passages.parquet -> turns/qrels Parquet.
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
import { scanPassagesForGold } from "./collection.ts";
import type { PreprocessInputs, PreprocessResult } from "./common.ts";
import { checkGoldInCollection, checkSplits, goldIdsOf, qrelsFromTurns, turnTablePaths, Warnings, writeTurnTables } from "./common.ts";
import { goldOverlapTypes } from "./question-types.ts";
import { questionTypeReport } from "./question-type-report.ts";

export async function preprocessOrquac(inputs: PreprocessInputs): Promise<PreprocessResult> {
  const params = inputs.params ?? {};
  const strict = params.strict ?? false;
  const warnings = new Warnings();
  const counts: Record<string, number> = {};
  const turns: ParsedOrquacTurn[] = [];
  for (const [split, file] of checkSplits(inputs.turnsFiles, ["train", "dev", "test"], "orquac")) {
    turns.push(...parseOrquacTurns(loadRecords(file), split));
  }
  // One qrels file covers every split: keep the qids of the splits read here.
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
  const types = goldOverlapTypes(rows, { domains: null, rule: "shared-passage" });
  rows.forEach((r, i) => (r.question_type = types[i] ?? null));

  mkdirSync(inputs.outDir, { recursive: true });
  const scan = await scanPassagesForGold(inputs.passagesFile, goldIdsOf(turns), [], inputs.signal);
  checkGoldInCollection(turns, scan.foundGold, strict, warnings);
  const qrels = qrelsFromTurns(rows);
  await writeTurnTables(inputs.outDir, "orquac", rows, qrels, params.rowGroupRows);
  for (const r of rows) counts[`turns_${r.split}`] = (counts[`turns_${r.split}`] ?? 0) + 1;
  counts["qrels"] = qrels.length;
  const questionTypes = questionTypeReport({ dataset: "orquac", breakdown: "computed", rule: "shared-passage", labels: null, rows, computed: types, agreement: null });
  return { counts, warnings: warnings.list(), questionTypes, files: turnTablePaths(inputs.outDir) };
}
