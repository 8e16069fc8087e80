/**
 * QReCC turn preprocessing: turn files (original or SCAI shape) + optional qrels + optional
 * question-type labels, checked against the collection's passages.parquet -> turns/qrels
 * Parquet and the question-type report.
 *
 * Order of operations (each step documented where it lives):
 * 1. parse each split's turns (formats/qrecc.ts); history from the earlier turns' original
 *    questions and answers; a Context that disagrees with them (length, answers) is a
 *    counted warning (`context-length-differs`, `context-answer-differs`);
 * 2. qrels files replace a turn's gold ids (Truth_passages) when they list the qid;
 * 3. a labels file fills missing source domains of its split;
 * 4. 2,000 train conversations (clamped, dev-split.ts) become split "dev";
 * 5. question types by the gold-overlap rule on NQ and TREC turns (question-types.ts,
 *    param typeRule), compared with the labels file in the split it describes (param
 *    labelsSplit, default "test": qids repeat across splits, so a labels file must never
 *    touch other splits); the labels are the breakdown there (labelsMode "override",
 *    default) or only compared ("compare");
 * 6. train turns without gold are dropped (param trainGoldOnly, default true);
 * 7. gold ids are checked against the passages table;
 * 8. qrels.parquet is written from the final turns' gold ids (relevance 1).
 * Only the splits given in turnsFiles are read (a test-only table needs no training file).
 */
import { mkdirSync } from "node:fs";
import { basename } from "node:path";
import { checkQreccContext, parseQreccQrels, parseQuestionTypeLabels, parseQreccTurns, type QuestionTypeLabels } from "../formats/qrecc.ts";
import { loadRecords, readJsonFile } from "../formats/records.ts";
import type { QuestionType, TurnRow } from "../schemas.ts";
import { scanPassagesForGold } from "./collection.ts";
import type { LocatedTurn, PreprocessInputs, PreprocessParams, PreprocessResult } from "./common.ts";
import { checkGoldInCollection, checkSplits, goldIdsOf, qrelsFromTurns, turnTablePaths, Warnings, writeTurnTables } from "./common.ts";
import { chooseDevConversations } from "./dev-split.ts";
import type { LabelAgreement } from "./question-types.ts";
import { applyLabels, compareWithLabels, goldOverlapTypes } from "./question-types.ts";
import { questionTypeReport } from "./question-type-report.ts";

export const QRECC_TYPE_DOMAINS: ReadonlySet<string> = new Set(["nq", "trec"]);

/** 2. A qrels file's gold ids replace the turns' Truth_passages where it lists their qid (warned when they differ, or when it lists an unknown qid). */
function applyQrels(parsed: readonly LocatedTurn[], qrelsFile: string, split: string, warnings: Warnings): void {
  const { gold } = parseQreccQrels(readJsonFile(qrelsFile).value, qrelsFile, split);
  const known = new Set(parsed.map((t) => t.row.qid));
  for (const qid of gold.keys()) if (!known.has(qid)) warnings.add("qrels-unknown-qid", `qrels qid not among the ${split} turns`, qid);
  for (const t of parsed) {
    const ids = gold.get(t.row.qid);
    if (ids === undefined) continue;
    if (t.row.gold_passage_ids.length > 0 && t.row.gold_passage_ids.join("\n") !== ids.join("\n")) {
      warnings.add("qrels-differ-from-truth-passages", "qrels replace Truth_passages that differ", t.row.qid);
    }
    t.row.gold_passage_ids = ids;
  }
}

/** 1-2. Every given split's turns, their Context checked against the earlier turns, their gold from the split's qrels file if any. */
function readTurns(inputs: PreprocessInputs, warnings: Warnings): LocatedTurn[] {
  const turns: LocatedTurn[] = [];
  for (const [split, file] of checkSplits(inputs.turnsFiles, ["train", "test"], "qrecc")) {
    const parsed = parseQreccTurns(loadRecords(file), split);
    for (const d of checkQreccContext(parsed)) {
      const message = d.kind === "context-length-differs" ? "Context length differs from the earlier turns in the file (history uses the turns)" : "a Context answer differs from the earlier turn's Answer (history uses the turns)";
      warnings.add(d.kind, message, `${split} ${d.qid}: ${d.detail}`);
    }
    const qrelsFile = inputs.qrelsFiles?.[split];
    if (qrelsFile !== undefined) applyQrels(parsed, qrelsFile, split, warnings);
    turns.push(...parsed);
  }
  return turns;
}

/** 4. The chosen train conversations become split "dev"; returns how many. */
function splitOffDev(turns: readonly LocatedTurn[], params: PreprocessParams): number {
  const trainConversations = turns.filter((t) => t.row.split === "train").map((t) => t.row.conversation_id);
  const dev = new Set(
    chooseDevConversations(trainConversations, {
      devConversations: params.devConversations ?? 2000,
      seed: params.devSeed ?? 42,
      ...(params.devMaxFraction === undefined ? {} : { maxFraction: params.devMaxFraction }),
    }),
  );
  for (const t of turns) if (t.row.split === "train" && dev.has(t.row.conversation_id)) t.row.split = "dev";
  return dev.size;
}

/** 5. Each row's computed question type (set on the row), compared with the labels in their split, which override it there unless labelsMode is "compare". */
function assignQuestionTypes(all: TurnRow[], labels: QuestionTypeLabels | undefined, params: PreprocessParams): { computed: Map<TurnRow, QuestionType | null>; agreement: LabelAgreement | null; override: boolean } {
  const computedList = goldOverlapTypes(all, { domains: QRECC_TYPE_DOMAINS, rule: params.typeRule ?? "shared-passage" });
  const computed = new Map<TurnRow, QuestionType | null>(all.map((r, i) => [r, computedList[i] ?? null]));
  all.forEach((r, i) => (r.question_type = computedList[i] ?? null));
  const override = labels !== undefined && (params.labelsMode ?? "override") === "override";
  if (labels === undefined) return { computed, agreement: null, override };
  const inScope = all.filter((r) => r.split === (params.labelsSplit ?? "test"));
  const agreement = compareWithLabels(inScope, inScope.map((r) => computed.get(r) ?? null), labels);
  if (override) applyLabels(inScope, labels, "override");
  return { computed, agreement, override };
}

export async function preprocessQrecc(inputs: PreprocessInputs): Promise<PreprocessResult> {
  const params = inputs.params ?? {};
  const warnings = new Warnings();
  const counts: Record<string, number> = {};
  let turns = readTurns(inputs, warnings);
  const rows = (): TurnRow[] => turns.map((t) => t.row);
  // 3. A labels file fills missing source domains of its split.
  const labels = inputs.labelsFile === undefined ? undefined : parseQuestionTypeLabels(readJsonFile(inputs.labelsFile).value, inputs.labelsFile);
  const labelsSplit = params.labelsSplit ?? "test";
  if (labels !== undefined) {
    const { domainConflicts } = applyLabels(rows().filter((r) => r.split === labelsSplit), labels, "compare");
    if (domainConflicts > 0) counts["label_domain_conflicts"] = domainConflicts;
  }
  counts["dev_conversations"] = splitOffDev(turns, params);
  const types = assignQuestionTypes(rows(), labels, params);
  if (params.trainGoldOnly ?? true) {
    const before = turns.length;
    turns = turns.filter((t) => t.row.split !== "train" || t.row.gold_passage_ids.length > 0);
    counts["train_turns_dropped_no_gold"] = before - turns.length;
  }
  mkdirSync(inputs.outDir, { recursive: true });
  const scan = await scanPassagesForGold(inputs.passagesFile, goldIdsOf(turns), [], inputs.signal);
  checkGoldInCollection(turns, scan.foundGold, params.strict ?? false, warnings);
  const final = rows();
  const qrels = qrelsFromTurns(final);
  await writeTurnTables(inputs.outDir, "qrecc", final, qrels, params.rowGroupRows);
  for (const r of final) counts[`turns_${r.split}`] = (counts[`turns_${r.split}`] ?? 0) + 1;
  counts["qrels"] = qrels.length;
  const questionTypes = questionTypeReport({
    dataset: "qrecc",
    breakdown: types.override ? "labels" : "computed",
    rule: params.typeRule ?? "shared-passage",
    labels: labels === undefined || inputs.labelsFile === undefined ? null : { file: basename(inputs.labelsFile), split: labelsSplit },
    rows: final,
    computed: final.map((r) => types.computed.get(r) ?? null),
    agreement: types.agreement,
  });
  return { counts, warnings: warnings.list(), questionTypes, files: turnTablePaths(inputs.outDir) };
}
