/**
 * TopiOCQA turn preprocessing: raw turn files or DPR all_history files (the splits given),
 * checked against the segments' passages.parquet -> turns/qrels Parquet.
 *
 * Gold passages come with an id when the file has one (Gold_passage.id, positive_ctxs
 * passage_id); otherwise by (title, text), resolved to the segment id by reading the
 * passages table (as the official evaluation matches them). Unresolved references are
 * counted warnings ("gold-ref-unresolved"), or an error naming the turn when strict.
 * Question types: first / topic-continues / topic-switch from the gold article (Topic).
 */
import { mkdirSync } from "node:fs";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { loadRecords } from "../formats/records.ts";
import { parseTopiocqaTurns } from "../formats/topiocqa.ts";
import type { ParsedTopiocqaTurn } from "../formats/topiocqa.ts";
import { goldRefKey, scanPassagesForGold } from "./collection.ts";
import type { PreprocessInputs, PreprocessResult } from "./common.ts";
import { checkGoldInCollection, checkSplits, goldIdsOf, qrelsFromTurns, turnTablePaths, Warnings, writeTurnTables } from "./common.ts";
import { topicTypes } from "./question-types.ts";
import { questionTypeReport } from "./question-type-report.ts";

export async function preprocessTopiocqa(inputs: PreprocessInputs): Promise<PreprocessResult> {
  const params = inputs.params ?? {};
  const strict = params.strict ?? false;
  const warnings = new Warnings();
  const counts: Record<string, number> = {};
  const turns: ParsedTopiocqaTurn[] = [];
  for (const [split, file] of checkSplits(inputs.turnsFiles, ["train", "dev"], "topiocqa")) {
    turns.push(...parseTopiocqaTurns(loadRecords(file), split));
  }
  const rows = turns.map((t) => t.row);
  const types = topicTypes(rows);
  rows.forEach((r, i) => (r.question_type = types[i] ?? null));

  mkdirSync(inputs.outDir, { recursive: true });
  const collection = await scanPassagesForGold(inputs.passagesFile, goldIdsOf(turns), turns.flatMap((t) => t.goldRefs), inputs.signal);
  checkGoldInCollection(turns, collection.foundGold, strict, warnings);
  for (const t of turns) {
    const ids = new Set(t.row.gold_passage_ids);
    for (const ref of t.goldRefs) {
      const id = collection.resolvedRefs.get(goldRefKey(ref));
      if (id !== undefined) ids.add(id);
      else if (strict) {
        throw new InputError(`turn ${t.row.qid}: gold passage '${ref.title}' (matched by title and text) is not in the collection`, { file: t.at.file, line: t.at.line, field: "positive_ctxs", fix: "use the matching full_wiki_segments.tsv, or run without strict" });
      } else warnings.add("gold-ref-unresolved", "gold passage (title, text) not found in the collection", `${t.row.qid}: ${ref.title}`);
    }
    t.row.gold_passage_ids = [...ids].sort();
    if (ids.size === 0) warnings.add("turn-without-gold", "turn has no gold passage (the raw GitHub files carry none: use the DPR all_history files)", t.row.qid);
  }
  const qrels = qrelsFromTurns(rows);
  await writeTurnTables(inputs.outDir, "topiocqa", rows, qrels, params.rowGroupRows);
  for (const r of rows) counts[`turns_${r.split}`] = (counts[`turns_${r.split}`] ?? 0) + 1;
  counts["qrels"] = qrels.length;
  const questionTypes = questionTypeReport({ dataset: "topiocqa", breakdown: "computed", rule: "topic", labels: null, rows, computed: types, agreement: null });
  return { counts, warnings: warnings.list(), questionTypes, files: turnTablePaths(inputs.outDir) };
}
