/**
 * Table 5's ceilings (issue 32): how answerable each dataset's dev split is from the passages
 * the readers read. Per dataset, retriever and seed (the runs Table 5's readers read), the step
 * `measure-answerability` (steps/qa/answerability.ts): the answer in the gold passage, the gold
 * passage and the answer in the DPR reader's top k (evalTopDocs) and in FiD's (nContext), and the
 * oracle extractive EM / F1 there (spans up to the DPR reader's max answer length) under the
 * dataset's own rule. Dev splits only: QReCC's is carved from its training file (the test split
 * Table 5 reports stays unread), TopiOCQA's dev is the split Table 5 reports. On mini, also
 * mini-nq dev (the readers' pre-training set) over its BM25 run.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { TableSpec } from "../../../steps/report/table.ts";
import { measureAnswerabilityDef } from "../../../steps/qa/answerability-step.ts";
import { memo } from "../memo.ts";
import { tablesIn } from "../datasets.ts";
import { DATA_LABEL } from "../lexical.ts";
import { renderTableStep, type CellSource } from "../render.ts";
import { tagOf, type DenseContext } from "../dense/base.ts";
import type { DenseTargetContext } from "../dense/tables.ts";
import type { ReportSection } from "../report.ts";
import type { Profile } from "../dense/setup.ts";
import { miniNq, references, type RetrieverOf } from "./readers.ts";
import { qaSetupOf } from "./parameters.ts";
import { paperRetrievers, retrieverId, retrieverLabel, retrieverRun, retrieverSeed, type QaRetriever } from "./retrievers.ts";
import { QA_DATASETS, QA_REFERENCES, qaReferenceFiles, type QaDataset } from "./setup.ts";
import { perDataset } from "../../../steps/data/datasets/registry.ts";

type Metrics = OutputRef<"json:metrics">;

/** The split measured; the raw file holding its gold answers is the dataset descriptor's (TopiOCQA: with Additional_answers). */
export const ANSWERABILITY_SPLIT = "dev";

/** The depths the readers read: the DPR reader's ranked passages and FiD's contexts. */
export function readerDepths(ctx: DenseContext): { readonly dprReader: number; readonly fid: number } {
  const q = qaSetupOf(ctx);
  return { dprReader: q.reader.evalTopDocs, fid: q.fid.nContext };
}

const ksOf = (ctx: DenseContext): number[] => [...new Set(Object.values(readerDepths(ctx)))].sort((a, b) => a - b);

/** The answerability of a dataset's dev split under a retriever's run. */
export function answerabilityOf(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever): Metrics {
  const rs = retrieverSeed(ctx, dataset, retriever);
  return memo(["answerability", ctx, dataset, retriever], () => {
    const t = tablesIn(ctx, dataset);
    const split = ANSWERABILITY_SPLIT;
    return use(measureAnswerabilityDef("references"), {
      name: `measure-answerability.${tagOf(ctx)}-${dataset}.${retrieverId(ctx, dataset, retriever)}${rs === null ? "" : `.s${rs}`}.${split}`,
      params: { split, scoring: QA_REFERENCES[dataset].scoring, ks: ksOf(ctx), maxAnswerTokens: qaSetupOf(ctx).reader.maxAnswerLength[dataset] },
      inputs: { run: retrieverRun(ctx, dataset, retriever, split), turns: t.turns, passages: t.passages, references: references(ctx.data, dataset, { split, files: qaReferenceFiles(dataset, split) }) },
    }).out.metrics;
  });
}

/** A ceilings cell's evaluations: one per QA seed for a trained retriever, one for one without a seed (BM25). */
function answerabilities(ctx: DenseContext, dataset: QaDataset, retriever: RetrieverOf): Metrics | Metrics[] {
  const runs = qaSetupOf(ctx).seeds.map(retriever);
  return retrieverSeed(ctx, dataset, runs[0]!) === null ? answerabilityOf(ctx, dataset, runs[0]!) : runs.map((r) => answerabilityOf(ctx, dataset, r));
}

/** The ceilings' retrievers, Table 5's: BM25(X_t), DPR (IBN), DPR (IHN), each with its id and label. */
function ceilingRows(ctx: DenseContext, dataset: QaDataset) {
  const first = paperRetrievers(ctx, dataset, qaSetupOf(ctx).seeds[0]!);
  return (["bm25", "ibn", "ihn"] as const).map((k) => ({ id: retrieverId(ctx, dataset, first[k]), label: retrieverLabel(ctx, dataset, first[k]), retriever: (s: number) => paperRetrievers(ctx, dataset, s)[k] }));
}

/** Mini: the answerability of mini-nq dev (the readers' pre-training set) over its BM25 run; answers from its turns table. */
export function nqAnswerability(ctx: DenseContext): Metrics {
  return memo(["answerability-nq", ctx], () => {
    const nq = miniNq(ctx);
    return use(measureAnswerabilityDef("turns"), {
      name: `measure-answerability.${tagOf(ctx)}-nq.bm25.${ANSWERABILITY_SPLIT}`,
      params: { split: ANSWERABILITY_SPLIT, scoring: "max", ks: ksOf(ctx), maxAnswerTokens: qaSetupOf(ctx).reader.maxAnswerLength.nq },
      inputs: { run: nq.run(ANSWERABILITY_SPLIT), turns: nq.tables.turns, passages: nq.tables.passages },
    }).out.metrics;
  });
}

const DATASET_LABEL = perDataset((d) => `${d.label} dev`);

export function ceilingsSpec(ctx: DenseTargetContext): TableSpec {
  const pct = { kind: "percent", digits: 1 } as const;
  const d = readerDepths(ctx);
  const band = (dataset: QaDataset, reader: string, k: number) => {
    const b = `${DATASET_LABEL[dataset]}, ${reader}'s top ${k}`;
    return [
      { id: `${dataset}-gold@${k}`, band: b, header: "gold", metric: `gold@${k}`, format: pct },
      { id: `${dataset}-answer@${k}`, band: b, header: "answer", metric: `answer@${k}`, format: pct },
      { id: `${dataset}-oracle-em@${k}`, band: b, header: "oracle EM", metric: `oracle-em@${k}`, format: pct },
      { id: `${dataset}-oracle-f1@${k}`, band: b, header: "oracle F1", metric: `oracle-f1@${k}`, format: pct },
    ];
  };
  return {
    id: ctx.profile === "paper" ? "table5-ceilings" : `table5-ceilings-${ctx.profile}`,
    title: `Table 5's ceilings: answerability of QReCC and TopiOCQA dev from the readers' passages, ${DATA_LABEL[ctx.data]}`,
    caption:
      "What the passages allow, beside Table 5's EM/F1: 'in gold' the share of turns whose answer occurs as a span of a gold passage (normalised as the scorer normalises; a turn without a gold passage counts as not), 'gold' a gold passage in the top k, 'answer' the answer as a span of a top-k passage, and the oracle extractive reader's EM and F1 (the best span of the top k, each metric maximised on its own, by the dataset's own rule: TopiOCQA's leave-one-out over the Answer and the Additional answers: a span that only one of a turn's n gold answers matches scores EM (n - 1) / n, 2/3 on mini's three). k is what each reader reads: the DPR reader's ranked passages, FiD's contexts (FiD generates, so its oracle is the extractive one, a reference, not a bound). Dev splits (QReCC's held-out dev, TopiOCQA's dev that Table 5 reports); DPR rows mean ± sd over the readers' seeds.",
    columns: QA_DATASETS.flatMap((dataset) => [
      { id: `${dataset}-in-gold`, band: DATASET_LABEL[dataset], header: "in gold", metric: "answer-in-gold", format: pct },
      ...band(dataset, "DPR reader", d.dprReader),
      ...band(dataset, "FiD", d.fid),
    ]),
    rows: ceilingRows(ctx, QA_DATASETS[0]!).map((r) => ({ id: r.id, label: r.label })),
    counted: "the dev turns the dataset's rule scores (QReCC: non-empty truth answers; TopiOCQA: every turn)",
  };
}

/** The ceilings table (one render step, cells from `measure-answerability`). */
export function table5Ceilings(ctx: DenseTargetContext): OutputRef<"table"> {
  const spec = ceilingsSpec(ctx);
  const sources: CellSource[] = QA_DATASETS.flatMap((dataset) =>
    ceilingRows(ctx, dataset).map((r) => ({ input: `${dataset}_${r.id}`.replace(/[^A-Za-z0-9]/g, "_"), metrics: answerabilities(ctx, dataset, r.retriever), map: { row: r.id, columns: spec.columns.filter((c) => c.id.startsWith(`${dataset}-`)).map((c) => c.id) } })),
  );
  return renderTableStep(`render-${spec.id}`, spec, null, sources);
}

/** The ceilings table as a report section (beside Table 5's). */
export function qaCeilingsSection(profile: Profile): ReportSection {
  return { kind: "table", id: profile === "paper" ? "table5-ceilings" : `table5-ceilings-${profile}`, build: (ctx) => table5Ceilings({ ...ctx, profile }) };
}
