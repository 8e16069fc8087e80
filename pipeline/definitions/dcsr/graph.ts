/**
 * DCSR models as a graph: `dcsrModelOf` turns a variant record (variants.ts) into its steps
 * (answer-sentence labels, examples with BM25 negatives or with sentences mined by the
 * previous DCSR x IHN iteration, training from θ0 or, on mini-nq, from a random BERT like
 * θ0), and `dcsrEvaluation` into its sentence index, HasAns search and evaluation with the
 * same metrics and breakdowns as DPR's. Memoised by structure, like ../dense/models.ts.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { evaluateRunStep } from "../../../steps/eval/steps.ts";
import { assembleDcsrExamples, assembleDcsrExamplesMined } from "../../../steps/dcsr/examples-step.ts";
import { encodeDcsrQueries, encodeDcsrSentences } from "../../../steps/dcsr/encode.ts";
import { searchDcsr } from "../../../steps/dcsr/search.ts";
import { mineDcsrNegatives } from "../../../steps/dcsr/mining.ts";
import { pretrainDcsrDef, trainDcsrDef } from "../../../steps/dcsr/train-steps.ts";
import { memo } from "../memo.ts";
import { baseOf, devEvaluationOf, theta0For } from "../dense/base.ts";
import { dcsrSetupOf, denseOf, type DcsrContext } from "./parameters.ts";
import { evalSplit, setupOf } from "../dense/models.ts";
import { DENSE_METRICS, selectionOf } from "../dense/setup.ts";
import { answerSentencesOf, bm25NegativesOf, datasetTag, devCollectionOf, markerTokensOf, queryTokensOf, tablesOf } from "./inputs.ts";
import { iterationOf, variantLabel, type DcsrDataset, type DcsrVariant } from "./variants.ts";
import { profiled } from "../resources.ts";

type Model = OutputRef<"dcsr:model">;
type Metrics = OutputRef<"json:metrics">;

const modelLabel = (v: DcsrVariant): string => `${variantLabel(v)}.s${v.seed}`;
const evalSplitOf = (dataset: DcsrDataset): string => (dataset === "nq" ? "dev" : evalSplit(dataset));
const depthOf = (ctx: DcsrContext, dataset: DcsrDataset): number => (dataset === "nq" ? 100 : setupOf(ctx).schedule[dataset].k);

/** Sentences mined by a DCSR model for the training turns (DCSR x IHN's negatives). */
function minedSentences(ctx: DcsrContext, from: DcsrVariant): OutputRef<"parquet:sentence-negatives"> {
  return memo(["dcsr-mined", ctx, from], () =>
    use(mineDcsrNegatives, {
      name: `mine-dcsr-negatives.${datasetTag(ctx, from.dataset)}.${modelLabel(from)}`,
      params: { split: "train", k: depthOf(ctx, from.dataset) },
      inputs: { sentences: dcsrSearch(ctx, from, from.input, "train").sentences, turns: tablesOf(ctx, from.dataset).turns },
    }).out.negatives,
  );
}

/** The trainer's input directory of a variant. */
function examples(ctx: DcsrContext, v: DcsrVariant): OutputRef<"dcsr:examples"> {
  const mined = v.negatives.kind === "model" ? v.negatives.from : null;
  return memo(["dcsr-examples", ctx, v.dataset, v.input, mined], () => {
    const common = {
      trainQueries: queryTokensOf(ctx, v.dataset, v.input, "train", true),
      devQueries: queryTokensOf(ctx, v.dataset, v.input, "dev", true),
      passages: markerTokensOf(ctx, v.dataset),
      turns: tablesOf(ctx, v.dataset).turns,
      labels: answerSentencesOf(ctx, v.dataset),
    };
    const name = `assemble-dcsr-examples.${datasetTag(ctx, v.dataset)}.${mined === null ? "bm25" : `mined-by-${modelLabel(mined)}`}`;
    const dev = devCollectionOf(ctx, v.dataset);
    const params = { k: depthOf(ctx, v.dataset), devPassages: "sample" in dev ? dev.sample : 0 };
    const given = { ...common, ...("ids" in dev ? { devCollection: dev.ids } : {}) };
    return mined === null
      ? use(assembleDcsrExamples, { name, params, inputs: { ...given, negatives: bm25NegativesOf(ctx, v.dataset) } }).out.examples
      : use(assembleDcsrExamplesMined, { name, params, inputs: { ...given, negatives: minedSentences(ctx, mined) } }).out.examples;
  });
}

/** The trained model of a variant: from θ0 (conversational datasets), or from a random BERT as θ0 was (mini-nq). */
export function dcsrModelOf(ctx: DcsrContext, v: DcsrVariant): Model {
  return memo(["dcsr-train", ctx, v], () => {
    const s = setupOf(ctx);
    const d = dcsrSetupOf(ctx);
    const name = `${datasetTag(ctx, v.dataset)}.${modelLabel(v)}`;
    const own = { seed: v.seed, in_passage_negatives: v.inPassage, negative_sentences: v.negativeSentences, dev_top_m: d.topM, max_markers: d.maxMarkers, ...devEvaluationOf(s) };
    const inputs = { examples: examples(ctx, v), passages: markerTokensOf(ctx, v.dataset) };
    if (v.dataset === "nq") {
      const t = s.theta0;
      if (s.model === null) throw new Error("the setup names no θ0 architecture to train DCSR on NQ-style questions from");
      return use(pretrainDcsrDef(false), {
        name: `pretrain-dcsr.${name}`,
        // θ0's recipe; the batch halved as for every training with mined negatives.
        params: { ...own, epochs: t.epochs, patience: t.patience, min_delta: t.minDelta, select: selectionOf(t), batch_size: Math.max(1, Math.floor(t.batch / 2)), lr: t.lr, init: { kind: "random", bert_config: s.model } },
        inputs: { ...inputs, vocab: baseOf(denseOf(ctx)).vocab },
      }).out.model;
    }
    const sched = s.schedule[v.dataset];
    const last = v.negatives.kind === "model" && iterationOf(v) === sched.iterations;
    return use(trainDcsrDef(ctx.data === "real"), {
      name: `train-dcsr.${name}`,
      ...profiled(ctx.data, "train-dcsr"),
      // DPR's schedule for the dataset; the batch halved as DPR's with hard negatives (every DCSR example brings a negative passage).
      params: { ...own, epochs: last ? sched.lastEpochs : sched.epochs, patience: sched.patience, min_delta: sched.minDelta, select: selectionOf(sched), batch_size: Math.max(1, Math.floor(sched.batch / 2)), lr: sched.lr },
      inputs: { ...inputs, init: theta0For(denseOf(ctx), v.seed) },
    }).out.model;
  });
}

/** Sentence-index shards of a model over its dataset's collection, in shard order. */
function sentenceIndex(ctx: DcsrContext, v: DcsrVariant): readonly OutputRef<"faiss:sentence-flat-ip">[] {
  return memo(["dcsr-index", ctx, v], () => {
    const shards = setupOf(ctx).shards;
    return Array.from(
      { length: shards },
      (_, shard) =>
        use(encodeDcsrSentences, {
          name: `encode-dcsr-sentences.${datasetTag(ctx, v.dataset)}.${modelLabel(v)}.${shard}`,
          params: { shard, shards },
          inputs: { model: dcsrModelOf(ctx, v), tokens: markerTokensOf(ctx, v.dataset) },
        }).out.index,
    );
  });
}

/** A model's HasAns run (and top sentences) over one query form and split. */
export function dcsrSearch(ctx: DcsrContext, v: DcsrVariant, form: QueryFormName, split: string) {
  return memo(["dcsr-search", ctx, v, form, split], () => {
    const d = dcsrSetupOf(ctx);
    const name = `${datasetTag(ctx, v.dataset)}.${modelLabel(v)}.${form}.${split}`;
    // Training turns are searched for mining only, so only those with gold; evaluation searches every turn.
    const queries = use(encodeDcsrQueries, { name: `encode-dcsr-queries.${name}`, params: {}, inputs: { model: dcsrModelOf(ctx, v), tokens: queryTokensOf(ctx, v.dataset, form, split, split === "train") } });
    return use(searchDcsr, {
      name: `search-dcsr.${name}`,
      params: { k: depthOf(ctx, v.dataset), m: d.topM, keepSentences: split === "train" ? d.keepSentences : 0, tag: `cspipe-${modelLabel(v)}` },
      inputs: { queries: queries.out.embeddings, shards: sentenceIndex(ctx, v) },
    }).out;
  });
}

/** A DCSR model's evaluation on its dataset's evaluation split, with DPR's metrics and breakdowns. */
export function dcsrEvaluation(ctx: DcsrContext, v: DcsrVariant): Metrics {
  return memo(["dcsr-eval", ctx, v], () => {
    const split = evalSplitOf(v.dataset);
    return use(evaluateRunStep, {
      name: `evaluate.dcsr.${datasetTag(ctx, v.dataset)}.${modelLabel(v)}.${v.input}`,
      params: { split, metrics: DENSE_METRICS },
      inputs: { run: dcsrSearch(ctx, v, v.input, split).run, turns: tablesOf(ctx, v.dataset).turns },
    }).out.metrics;
  });
}
