/**
 * Table 5's text: does the retrieval gain of iterative hard negatives carry to end-to-end QA?
 * Per dataset and reader, the EM and F1 of the reader fine-tuned on and reading DPR (IHN, last
 * iteration) passages minus those of the same reader on DPR (IBN) passages, checked by the
 * findings step (steps/findings/claims.ts) from the evaluations Table 5's cells are made of:
 * the value, the spread over seeds (mean ± sd, paired by seed, as soon as the QA setup has more
 * than one) and a verdict. "Beats" is strict: a tie does not hold. The paper's
 * numbers in each claim's text come from paper-numbers.json (final Table 5). Each claim also
 * names its ceiling (issue 32): the oracle extractive reader's EM / F1 on the reader's own top k
 * of each retriever's passages (measure-answerability, dev split), so the finding says whether
 * the difference could be measured at the share of that ceiling the readers reach.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import { checkFindingsStep } from "../../../steps/findings/steps.ts";
import type { ClaimSpec, Operand } from "../../../steps/findings/claims.ts";
import { paperValue } from "../../../steps/report/paper-numbers.ts";
import { evalSplit } from "../dense/models.ts";
import type { DenseContext } from "../dense/base.ts";
import { qaEvaluations, READER_LABEL, READERS, type ReaderName, type RetrieverOf } from "./readers.ts";
import { qaSetupOf } from "./parameters.ts";
import { paperRetrievers, retrieverId, retrieverLabel, type QaRetriever } from "./retrievers.ts";
import { QA_DATASETS, type QaDataset } from "./setup.ts";
import { ANSWERABILITY_SPLIT, answerabilityOf, readerDepths } from "./answerability.ts";
import { perDataset } from "../../../steps/data/datasets/registry.ts";

const DATASET_LABEL = perDataset((d) => d.label);
const METRICS = [
  { id: "em", label: "EM" },
  { id: "f1", label: "F1" },
] as const;

/** The paper's pair of numbers for a claim's text: "4.7 vs 3.5 (+1.2)" (its rows are ours: "<retriever id>/<reader>"). */
function paperText(ctx: DenseContext, dataset: QaDataset, reader: ReaderName, metric: string): string {
  const r = paperRetrievers(ctx, dataset, qaSetupOf(ctx).seeds[0]!);
  const v = (retriever: typeof r.ihn | typeof r.ibn) => paperValue("final-table5", `${retrieverId(ctx, dataset, retriever)}/${reader}`, `${dataset}-${metric}`);
  const [ihn, ibn] = [v(r.ihn), v(r.ibn)];
  if (ihn === null || ibn === null) return "not reported";
  const d = ihn - ibn;
  return `${ihn.toFixed(1)} vs ${ibn.toFixed(1)} (${d >= 0 ? "+" : ""}${d.toFixed(1)})`;
}

type Metrics = OutputRef<"json:metrics">;

/** The evaluations behind one Table 5 cell, one per seed. */
export type QaEvaluations = (dataset: QaDataset, retriever: RetrieverOf, reader: ReaderName) => readonly { readonly seed: number; readonly metrics: Metrics }[];

/** The claims and their inputs: one gain claim per dataset, reader and metric, paired by seed. */
export function qaClaims(ctx: DenseContext, evaluations: QaEvaluations = (d, r, reader) => qaEvaluations(ctx, d, r, reader)): { claims: ClaimSpec[]; refs: Record<string, Metrics>; labels: Record<string, string> } {
  const refs: Record<string, Metrics> = {};
  const labels: Record<string, string> = {};
  /** One input per seed of the reader's evaluations, `<dataset>_<retriever id>_<what>[_s<seed>]`, wired to `metricsOf`. */
  const perSeed = (dataset: QaDataset, retriever: RetrieverOf, reader: ReaderName, what: string, metricsOf: (e: { seed: number; metrics: Metrics }, r: QaRetriever) => Metrics, label: (r: QaRetriever) => string): string[] => {
    const evals = evaluations(dataset, retriever, reader);
    return evals.map((e) => {
      const r = retriever(e.seed);
      const base = `${dataset}_${retrieverId(ctx, dataset, r)}_${what}`.replace(/[^A-Za-z0-9]/g, "_");
      const name = evals.length === 1 ? base : `${base}_s${e.seed}`;
      refs[name] = metricsOf(e, r);
      labels[name] = `${label(r)}, seed ${e.seed}`;
      return name;
    });
  };
  const operand = (dataset: QaDataset, retriever: RetrieverOf, reader: ReaderName, metric: string): Operand => ({
    inputs: perSeed(dataset, retriever, reader, reader, (e) => e.metrics, (r) => `${DATASET_LABEL[dataset]} ${READER_LABEL[reader]} on ${retrieverLabel(ctx, dataset, r)} passages`),
    metric,
  });
  const depth = readerDepths(ctx);
  const k = (reader: ReaderName): number => (reader === "fid" ? depth.fid : depth.dprReader);
  /** The oracle's metric on the reader's top k of the retriever's passages, per seed of the reader's evaluations. */
  const ceiling = (dataset: QaDataset, retriever: RetrieverOf, reader: ReaderName, metric: string): Operand => ({
    inputs: perSeed(dataset, retriever, reader, "answerability", (_e, r) => answerabilityOf(ctx, dataset, r), (r) => `${DATASET_LABEL[dataset]} ${ANSWERABILITY_SPLIT}: answerability of ${retrieverLabel(ctx, dataset, r)} passages`),
    metric: `oracle-${metric}@${k(reader)}`,
  });
  const claims = QA_DATASETS.flatMap((dataset) =>
    READERS.flatMap((reader) =>
      METRICS.map(
        (m): ClaimSpec => ({
          id: `qa-ihn-beats-ibn-${dataset}-${reader}-${m.id}`,
          title: `The ${READER_LABEL[reader]} does better on DPR (IHN) passages than on DPR (IBN) passages (${DATASET_LABEL[dataset]} ${m.label})`,
          paper: `${DATASET_LABEL[dataset]} ${m.label}, ${READER_LABEL[reader]}: DPR (IHN) vs DPR (IBN) ${paperText(ctx, dataset, reader, m.id)} (final Table 5)`,
          measure: `${m.label} of the ${READER_LABEL[reader]} fine-tuned on and reading DPR (IHN, last iteration) passages minus on DPR (IBN) passages, ${DATASET_LABEL[dataset]} ${evalSplit(dataset)}, paired by seed`,
          rule: { kind: "gain", better: operand(dataset, (s) => paperRetrievers(ctx, dataset, s).ihn, reader, m.id), worse: operand(dataset, (s) => paperRetrievers(ctx, dataset, s).ibn, reader, m.id) },
          threshold: 0,
          direction: "above",
          unit: "points",
          ceiling: {
            better: ceiling(dataset, (s) => paperRetrievers(ctx, dataset, s).ihn, reader, m.id),
            worse: ceiling(dataset, (s) => paperRetrievers(ctx, dataset, s).ibn, reader, m.id),
            label: `the oracle extractive reader's ${m.label} on the ${READER_LABEL[reader]}'s top ${k(reader)} passages, ${DATASET_LABEL[dataset]} ${ANSWERABILITY_SPLIT}`,
          },
        }),
      ),
    ),
  );
  return { claims, refs, labels };
}

/** The findings of Table 5 (findings.json, findings.md), a step of the `table5` target. */
export function qaFindingsStep(ctx: DenseContext): OutputRef<"json:findings"> {
  const { claims, refs, labels } = qaClaims(ctx);
  return use(checkFindingsStep, { name: `check-findings-qa${ctx.profile === "paper" ? "" : `-${ctx.profile}`}`, params: { data: ctx.data, claims, labels }, inputs: { metrics: refs } }).out.findings;
}
