/**
 * The findings section: each of the paper's claims as a check over this run's evaluations
 * (steps/findings/claims.ts), with the models behind them trained over every seed of the
 * setup (`seeds`, or `claimSeeds` for the claims that need more). The thresholds say in numbers what the paper's words claim ("most" = more than
 * half; "helps" = a gain above zero; "collapses" = less than half of the no-switch recall);
 * they were fixed before any mini number was looked at and are the same on real data.
 * Two claims are made per registered dataset (hard negatives help, dense beats BM25), in its
 * descriptor's `claimMetric` and `inputForm`, quoting the paper's numbers from
 * paper-numbers.json (findings-paper.ts).
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import { QUERY_FORMS, type QueryFormName } from "../../steps/encoding/format/query-forms.ts";
import { checkFindingsStep } from "../../steps/findings/steps.ts";
import type { ClaimSpec, Operand } from "../../steps/findings/claims.ts";
import { bm25Metrics } from "./lexical.ts";
import { evaluation, setupOf, type DenseContext } from "./dense/models.ts";
import { theta0VsBm25 } from "./dense/base.ts";
import { SEED_HUNGRY_CLAIMS, type SeedHungryClaim } from "./dense/setup.ts";
import { ihn, seedTag, shortcut, variantLabel, type DprVariant } from "./dense/variants.ts";
import { DATASET_DESCRIPTORS, perDataset } from "../../steps/data/datasets/registry.ts";
import { claimPaperTexts } from "./findings-paper.ts";

type Metrics = OutputRef<"json:metrics">;

/** The models behind one claim: its seeds, each with `replicates` fine-tunings from the seed's θ0. */
interface Design {
  readonly seeds: readonly number[];
  readonly replicates: number;
}

/** A design's (seed, replicate) pairs, seed-major: the positions claims.ts pairs operands by. */
const positions = (d: Design): { seed: number; replicate: number }[] => d.seeds.flatMap((seed) => Array.from({ length: d.replicates }, (_, i) => ({ seed, replicate: i + 1 })));

/** The inputs of the findings step, collected while the claims are written. */
class Inputs {
  readonly refs: Record<string, Metrics> = {};
  readonly labels: Record<string, string> = {};

  add(name: string, label: string, ref: Metrics): string {
    this.refs[name] = ref;
    this.labels[name] = label;
    return name;
  }
}

const DATASET_LABEL = perDataset((d) => d.label);
const ident = (s: string): string => s.replace(/[^A-Za-z0-9]+/g, "_");
const qtype = (value: string) => ({ by: "questionType" as const, value });

export function findingsStep(ctx: DenseContext): OutputRef<"json:findings"> {
  const setup = setupOf(ctx);
  const inputs = new Inputs();
  const plain: Design = { seeds: setup.seeds, replicates: 1 };
  /** The models of a claim: `seeds` (and for the claims that need more also their `claimSeeds`, ascending), with their `claimReplicates`. */
  const designOf = (id: string): Design => {
    if (!(SEED_HUNGRY_CLAIMS as readonly string[]).includes(id)) return plain;
    const c = id as SeedHungryClaim;
    return { seeds: [...new Set([...setup.seeds, ...setup.claimSeeds[c]])].sort((a, b) => a - b), replicates: setup.claimReplicates[c] };
  };
  /** One operand over the seeds (and replicates, seed-major) of a variant family (`make(seed, replicate)`). */
  const dense = (make: (seed: number, replicate: number) => DprVariant, metric: string, group?: string, design: Design = plain): Operand => {
    const names = positions(design).map(({ seed, replicate }) => {
      const v = make(seed, replicate);
      const label = replicate === 1 ? `seed ${seed}` : `seed ${seed}, fine-tuning ${replicate}`;
      return inputs.add(ident(`${v.dataset}_${variantLabel(v)}_${seedTag(v)}`), `${DATASET_LABEL[v.dataset]} ${variantLabel(v)}, ${label}`, evaluation(ctx, v.dataset, v));
    });
    return { inputs: names, metric, ...(group === undefined ? {} : { group: qtype(group) }) };
  };
  /** The spec's `units` for a design with replicates: each position's θ0 seed (steps/findings/claims.ts). */
  const unitsOf = (design: Design): { units?: number[] } => (design.replicates > 1 ? { units: positions(design).map((p) => p.seed) } : {});
  const bm25 = (dataset: DatasetName, form: QueryFormName, metric: string, group?: string): Operand => ({
    inputs: [inputs.add(ident(`${dataset}_bm25_${form}`), `${DATASET_LABEL[dataset]} BM25(${QUERY_FORMS[form].paper})`, bm25Metrics(dataset, form, ctx))],
    metric,
    ...(group === undefined ? {} : { group: qtype(group) }),
  });
  const last = (d: DatasetName) => setup.schedule[d].iterations;
  const [switchTurns, everyIteration] = [designOf("shortcut-collapses-on-switch"), designOf("ihn-iterations-improve")];

  const claims: ClaimSpec[] = [
    {
      id: "shortcut-keeps-recall", title: "DPR without q_t keeps most of DPR's recall (QReCC)",
      paper: "DPR^shortcut reaches 78% of DPR's R@10 (46.5 vs 59.1; final Table 2: 45.6 vs 59.7)",
      measure: "R@10 of DPR^shortcut (IBN, X_t \\ q_t) over R@10 of DPR (IBN), QReCC test, paired by seed",
      rule: { kind: "ratio", num: dense((s) => shortcut("qrecc", s), "recall@10"), den: dense((s) => ihn("qrecc", 1, s), "recall@10") },
      threshold: 0.5, direction: "at-least", unit: "ratio",
    },
    {
      id: "shortcut-collapses-on-switch", title: "DPR without q_t collapses on switch turns (QReCC)",
      paper: "DPR^shortcut R@10: 26.0 on switch vs 73.5 on no-switch turns (0.35); first turns have no input",
      measure: "R@10 of DPR^shortcut on switch turns over its R@10 on no-switch turns, QReCC test",
      rule: { kind: "ratio", num: dense((s, r) => shortcut("qrecc", s, r), "recall@10", "switch", switchTurns), den: dense((s, r) => shortcut("qrecc", s, r), "recall@10", "no-switch", switchTurns) },
      threshold: 0.5, direction: "at-most", unit: "ratio", ...unitsOf(switchTurns),
    },
    {
      id: "bm25-history-keeps-recall", title: "BM25 without q_t keeps most of BM25's recall (QReCC)",
      paper: "BM25(X_t \\ q_t) R@10 58.4 vs BM25(X_t) 65.1 (0.90)",
      measure: "R@10 of BM25(X_t \\ q_t) over R@10 of BM25(X_t), QReCC test (deterministic)",
      rule: { kind: "ratio", num: bm25("qrecc", "history_without_q", "recall@10"), den: bm25("qrecc", "history", "recall@10") },
      threshold: 0.5, direction: "at-least", unit: "ratio",
    },
    ...DATASET_DESCRIPTORS.map((desc): ClaimSpec => {
      const [d, metric] = [desc.name, desc.claimMetric];
      const id = `hard-negatives-help-${d}`;
      const design = designOf(id);
      return {
        id, title: `Iterative hard negatives beat in-batch negatives (${DATASET_LABEL[d]})`, paper: claimPaperTexts(desc).hardNegatives,
        measure: `${metric} of DPR (IHN, iteration ${last(d)}) minus DPR (IBN), paired by seed`,
        rule: { kind: "gain", better: dense((s, r) => ihn(d, last(d), s, r), metric, undefined, design), worse: dense((s, r) => ihn(d, 1, s, r), metric, undefined, design) },
        threshold: 0, direction: "at-least", unit: metric === "mrr" ? "fraction" : "points", ...unitsOf(design),
      };
    }),
    {
      id: "hard-negatives-help-switch-most", title: "IHN's gain is larger on topic switches than on continued topics (TopiOCQA)",
      paper: "IHN (i = 3) improves switch questions by 19.8 and no-switch by 16.3 (R@10, Section 6.2)",
      measure: "R@5 gain of IHN (last iteration) over IBN on topic-switch turns minus the gain on topic-continues turns, TopiOCQA dev",
      rule: {
        kind: "gain-difference",
        a: { better: dense((s) => ihn("topiocqa", last("topiocqa"), s), "recall@5", "topic-switch"), worse: dense((s) => ihn("topiocqa", 1, s), "recall@5", "topic-switch") },
        b: { better: dense((s) => ihn("topiocqa", last("topiocqa"), s), "recall@5", "topic-continues"), worse: dense((s) => ihn("topiocqa", 1, s), "recall@5", "topic-continues") },
      },
      threshold: 0, direction: "at-least", unit: "points",
    },
    {
      id: "ihn-iterations-improve", title: "Each IHN iteration improves recall (TopiOCQA)",
      paper: "TopiOCQA R@5 rises at every iteration up to i = 3 (Figures 3 and 4)",
      measure: `R@5 of iteration ${last("topiocqa")} minus iteration 1 (and each iteration's gain over the one before, paired by seed, must hold on its own), TopiOCQA dev`,
      rule: { kind: "rise", steps: Array.from({ length: last("topiocqa") }, (_, i) => dense((s, r) => ihn("topiocqa", i + 1, s, r), "recall@5", undefined, everyIteration)) },
      threshold: 0, direction: "at-least", unit: "points", ...unitsOf(everyIteration),
    },
    ...DATASET_DESCRIPTORS.map((desc): ClaimSpec => {
      const [d, metric, form] = [desc.name, desc.claimMetric, desc.inputForm];
      return {
        id: `dense-beats-bm25-${d}`, title: `Trained dense retrieval beats BM25 (${DATASET_LABEL[d]})`, paper: claimPaperTexts(desc).denseVsBm25,
        measure: `${metric} of DPR (IHN, last iteration) minus BM25 on ${QUERY_FORMS[form].paper}`,
        rule: { kind: "gain", better: dense((s) => ihn(d, last(d), s), metric), worse: bm25(d, form, metric) },
        threshold: 0, direction: "at-least", unit: metric === "mrr" ? "fraction" : "points",
      };
    }),
  ];
  if (ctx.data === "mini") {
    const nq = theta0VsBm25(ctx);
    claims.push({
      id: "theta0-competent", title: "θ0 is a competent retriever before conversational training (mini-nq)",
      paper: "DPR-NQ top-20 78.4 vs BM25 59.1 on Natural Questions (DPR, Table 2)",
      measure: "R@20 of θ0 minus BM25 on mini-nq's dev questions over its whole collection",
      rule: { kind: "gain", better: { inputs: [inputs.add("nq_theta0", "mini-nq θ0", nq.theta0)], metric: "recall@20" }, worse: { inputs: [inputs.add("nq_bm25", "mini-nq BM25", nq.bm25)], metric: "recall@20" } },
      threshold: 0, direction: "at-least", unit: "points",
    });
  }
  const unknown = SEED_HUNGRY_CLAIMS.filter((id) => !claims.some((c) => c.id === id));
  if (unknown.length > 0) throw new Error(`claimSeeds names no claim: ${unknown.join(", ")} (dense/setup.ts SEED_HUNGRY_CLAIMS)`);
  return use(checkFindingsStep, { name: `check-findings${ctx.profile === "paper" ? "" : `-${ctx.profile}`}`, params: { data: ctx.data, claims, labels: inputs.labels }, inputs: { metrics: inputs.refs } }).out.findings;
}
