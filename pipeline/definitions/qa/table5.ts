/**
 * Table 5 (end-to-end QA): the DPR reader and FiD, each trained and read on the passages of
 * DPR (IBN) and of DPR (IHN), on QReCC test and TopiOCQA dev, EM and F1; BM25(X_t) passages
 * as an extra row pair. The paper's numbers beside ours (rows mapped to its own). As a named
 * target (`table5`) and a report section builder; kept out of the default report (its run
 * already uses its time budget).
 */
import type { OutputRef, AnyStep } from "../../engine/step.ts";
import type { Target } from "../../engine/targets.ts";
import type { TableSpec } from "../../../steps/report/table.ts";
import { DATA_LABEL } from "../lexical.ts";
import { renderTableStep, type CellSource } from "../render.ts";
import type { DenseTargetContext } from "../dense/tables.ts";
import type { ReportSection } from "../report.ts";
import type { Profile } from "../dense/setup.ts";
import { InputError } from "../../engine/errors.ts";
import { pretrainedFid, pretrainedReader, qaEvaluations, READER_LABEL, type ReaderName, type RetrieverOf } from "./readers.ts";
import { paperRetrievers, retrieverId, retrieverLabel, type QaRetriever } from "./retrievers.ts";
import { QA_DATASETS, type QaDataset } from "./setup.ts";
import type { DenseContext } from "../dense/base.ts";
import { paperTable } from "../../../steps/report/paper-numbers.ts";
import { qaFindingsStep } from "./findings.ts";
import { resultTarget, stepOutputs } from "../results.ts";
import { nqAnswerability, table5Ceilings } from "./answerability.ts";
import { qaContext, qaParameters, qaSetupOf } from "./parameters.ts";

/** A row of Table 5: a retriever and the reader fine-tuned on and reading its passages. */
export interface QaRow {
  readonly retriever: QaRetriever;
  readonly reader: ReaderName;
}

/**
 * The rows of the readers of `seed` on a dataset, the DPR and DCSR retrievers trained with that
 * seed. A row is the same (retriever id and reader) for every seed; rows with the same id on two
 * datasets are one table row, each dataset's cells in its own columns.
 */
export type QaRows = (ctx: DenseContext, dataset: QaDataset, seed: number) => readonly QaRow[];

/**
 * Our rows in the paper's order (retriever / reader); BM25 is not in the paper. Another row is one
 * more record: `{ retriever: { kind: "dcsr", variant: dcsr(dataset, seed) }, reader: "fid" }`.
 */
export const table5Rows: QaRows = (ctx, dataset, seed) => {
  const r = paperRetrievers(ctx, dataset, seed);
  return [
    { retriever: r.ibn, reader: "dpr-reader" },
    { retriever: r.ihn, reader: "dpr-reader" },
    { retriever: r.ibn, reader: "fid" },
    { retriever: r.ihn, reader: "fid" },
    { retriever: r.bm25, reader: "dpr-reader" },
    { retriever: r.bm25, reader: "fid" },
  ];
};

/** A row on one dataset: its id ("<retriever id>/<reader>"), label, reader and its retriever over the QA seeds. */
interface DatasetRow {
  readonly id: string;
  readonly label: string;
  readonly reader: ReaderName;
  readonly retriever: RetrieverOf;
}

function datasetRows(ctx: DenseContext, dataset: QaDataset, rows: QaRows): DatasetRow[] {
  const idOf = (r: QaRow) => `${retrieverId(ctx, dataset, r.retriever)}/${r.reader}`;
  return rows(ctx, dataset, qaSetupOf(ctx).seeds[0]!).map((first, i) => {
    const id = idOf(first);
    const retriever = (seed: number): QaRetriever => {
      const r = rows(ctx, dataset, seed)[i];
      if (r === undefined || idOf(r) !== id) throw new Error(`Table 5 row ${i + 1} on ${dataset} is ${id} for the first seed but ${r === undefined ? "missing" : idOf(r)} for seed ${seed}`);
      return r.retriever;
    };
    return { id, label: `${retrieverLabel(ctx, dataset, first.retriever)} / ${READER_LABEL[first.reader]}`, reader: first.reader, retriever };
  });
}

/** The table's rows over its datasets, each id once, in order of first appearance. */
function tableRows(ctx: DenseContext, rows: QaRows): DatasetRow[] {
  const byId = new Map<string, DatasetRow>();
  for (const d of QA_DATASETS) for (const r of datasetRows(ctx, d, rows)) if (!byId.has(r.id)) byId.set(r.id, r);
  return [...byId.values()];
}

export function table5Spec(ctx: DenseTargetContext, rows: QaRows = table5Rows): TableSpec {
  const pct = { kind: "percent", digits: 1 } as const;
  const paper = new Set(paperTable("final-table5").rows.map((r) => r.id));
  const tail = `${DATA_LABEL[ctx.data]}${ctx.profile === "paper" ? "" : `, ${ctx.profile} profile (1 epoch: wiring check, numbers meaningless)`}`;
  return {
    id: ctx.profile === "paper" ? "table5" : `table5-${ctx.profile}`,
    title: `Table 5: end-to-end QA on QReCC test and TopiOCQA dev, ${tail}`,
    caption:
      "Each reader is fine-tuned on the passages of its own retriever (train split, gold passage added where the retriever missed it; dev split for the best epoch by EM, ties by F1, the pre-trained start a candidate on mini) and answers the evaluation split from that retriever's top passages. EM and F1 by each dataset's own rule (QReCC: SCAI-QReCC-21, empty truths skipped; TopiOCQA: leave-one-out over its additional answers). On mini the readers are tiny models pre-trained on mini-nq; BM25(X_t) rows are not in the paper.",
    columns: QA_DATASETS.flatMap((d) => {
      const band = d === "qrecc" ? "QReCC test" : "TopiOCQA dev";
      return [
        { id: `${d}-em`, band, header: "EM", metric: "em", format: pct, paperColumn: `${d}-em` },
        { id: `${d}-f1`, band, header: "F1", metric: "f1", format: pct, paperColumn: `${d}-f1` },
      ];
    }),
    rows: tableRows(ctx, rows).map((r) => ({ id: r.id, label: r.label, ...(paper.has(r.id) ? { paperRow: r.id } : {}) })),
    counted: "the evaluated split's questions that the dataset's rule scores: QReCC every turn with a non-empty truth answer, TopiOCQA every dev turn; whether or not a gold passage was retrieved",
  };
}

/** The cells: the QA evaluations of each (dataset, row), one per seed (mean ± sd when several). The one place a renderer change touches. */
export function table5(ctx: DenseTargetContext, rows: QaRows = table5Rows): OutputRef<"table"> {
  const spec = table5Spec(ctx, rows);
  const sources: CellSource[] = QA_DATASETS.flatMap((d) =>
    datasetRows(ctx, d, rows).map((r) => ({ input: `${d}_${r.id}`.replace(/[^A-Za-z0-9]/g, "_"), metrics: qaEvaluations(ctx, d, r.retriever, r.reader).map((e) => e.metrics), map: { row: r.id, columns: [`${d}-em`, `${d}-f1`] } })),
  );
  return renderTableStep(`render-${spec.id}`, spec, "final-table5", sources);
}

const DESCRIPTION = "Table 5: end-to-end QA (DPR reader and FiD on BM25 / DPR IBN / DPR IHN passages), QReCC test and TopiOCQA dev, EM/F1";

/** The `table5` target (paper profile): the table and its text (findings.md: does IHN beat IBN per dataset and reader). */
export const table5Target: Target = resultTarget({ name: "table5", description: `${DESCRIPTION}; with its findings (IHN vs IBN passages per dataset and reader) and its ceilings (answerability of the readers' passages)`, parameters: qaParameters("paper") }, (t) => {
  const ctx = qaContext(t, "paper");
  return [table5(ctx), ...stepOutputs(qaFindingsStep(ctx)), ...ceilingOutputs(ctx)];
});

/** Table 5's ceilings table, and on mini the answerability of mini-nq dev (the readers' pre-training set). */
function ceilingOutputs(ctx: DenseTargetContext): OutputRef[] {
  return [table5Ceilings(ctx), ...(ctx.data === "mini" ? stepOutputs(nqAnswerability(ctx)) : [])];
}

/** The ceilings alone (`table5-ceilings`): retrieval runs and answer spans only, no reader trains. */
export const table5CeilingsTarget: Target = resultTarget(
  { name: "table5-ceilings", description: "Table 5's ceilings: answerability of QReCC and TopiOCQA dev from the readers' passages (answer in gold / top-k passages, oracle extractive EM and F1), no reader training", parameters: qaParameters("paper") },
  (t) => ceilingOutputs(qaContext(t, "paper")),
);

/** Table 5 at one epoch everywhere, on the smoke retrievers (report-smoke's): CI's end-to-end check of the QA stage. */
export const table5SmokeTarget: Target = resultTarget(
  { name: "table5-smoke", description: "Table 5 at one epoch everywhere on report-smoke's retrievers: every QA step end to end (wiring check, numbers meaningless)", parameters: qaParameters("smoke") },
  (t) => [table5(qaContext(t, "smoke"))],
);

/** Table 5 as a report section of a profile. */
export function qaSection(profile: Profile): ReportSection {
  return { kind: "table", id: profile === "paper" ? "table5" : `table5-${profile}`, build: (ctx) => table5({ ...ctx, profile }) };
}

/**
 * The mini readers' starting points alone (`qa-pretraining`): the DPR reader and FiD pre-trained
 * on mini-nq, each model's result.json holding its dev EM per epoch, the one measure their
 * settings (MINI_PRETRAINING) are chosen by. Real data has no pre-training (the locked
 * bert-base-uncased and t5-base are the starts).
 */
export const qaPretrainingTarget: Target = {
  name: "qa-pretraining",
  description: "the mini readers' pre-training on mini-nq (DPR reader, FiD; dev EM per epoch in each model's result.json), Table 5's starting points",
  parameters: qaParameters("paper"),
  steps: (ctx): readonly AnyStep[] => {
    if (ctx.data !== "mini") throw new InputError("qa-pretraining is mini data's: on real data the readers start from the locked bert-base-uncased and t5-base", { fix: "run it without --data real" });
    const c = qaContext(ctx, "paper");
    return [pretrainedReader(c).step, pretrainedFid(c).step];
  },
};
