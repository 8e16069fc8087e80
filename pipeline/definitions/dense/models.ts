/**
 * The dense experiments as a graph: one function turns a variant record (variants.ts) into
 * its steps (examples, training from θ0, and for IHN the mining by the previous iteration),
 * and the shared per-dataset steps (tokenized collection and queries, indexes, searches,
 * evaluations) are built once. Everything is memoised by structure (the canonical JSON of
 * the context, the dataset and the variant record), so two targets that need the same model
 * get the same steps and cache keys.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { tokenizePassages, tokenizeQueries } from "../../../steps/encoding/steps.ts";
import { trainDprDef } from "../../../steps/training/steps.ts";
import { assembleExamples } from "../../../steps/training/assemble-step.ts";
import { mineNegativesStep } from "../../../steps/mining/steps.ts";
import { buildBm25Index, searchBm25 } from "../../../steps/sparse/steps.ts";
import { evaluateRunStep } from "../../../steps/eval/steps.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { tablesIn, type DatasetTables } from "../datasets.ts";
import { bm25Of, preprocessOf } from "../shared-parameters.ts";
import { EVAL_SETUP } from "../lexical.ts";
import { memo } from "../memo.ts";
import { baseOf, devEvaluationOf, hasOwnTheta0, releasedDevIds, setupOf, tagOf, theta0For, type DenseContext } from "./base.ts";
import { DENSE_METRICS, HAS_TITLES, INPUT_FORM, selectionOf } from "./setup.ts";
import { RETRIEVAL_PATHS } from "./retrieval.ts";
import { buildDevCollectionStep } from "../../../steps/data/dev-collection.ts";
import { iterationOf, seedTag, trainerSeedOf, variantLabel, type DprVariant, type MinedSource } from "./variants.ts";
import { profiled } from "../resources.ts";

export type { DenseContext } from "./base.ts";
export { setupOf } from "./base.ts";

type Model = OutputRef<"dpr:model">;
type Run = OutputRef<"parquet:run">;
type Metrics = OutputRef<"json:metrics">;

/**
 * A model of the study: θ0 (what the models of seed 1 start from, and the θ0 of every table),
 * the θ0 of another study seed (`{ theta0: seed }`, made by `theta0Id` only, so that one model
 * has one spelling), or a trained variant.
 */
export type ModelId = "theta0" | { readonly theta0: number } | DprVariant;

/** The θ0 the models of `seed` start from, as a model id (real data has one θ0 for every seed). */
export const theta0Id = (ctx: DenseContext, seed: number): ModelId => (hasOwnTheta0(ctx, seed) ? { theta0: seed } : "theta0");

const isTheta0 = (id: ModelId): id is "theta0" | { readonly theta0: number } => id === "theta0" || "theta0" in id;
const datasetTag = (ctx: DenseContext, dataset: DatasetName): string => `${tagOf(ctx)}-${dataset}`;
const modelLabel = (id: ModelId): string => (id === "theta0" ? "theta0" : "theta0" in id ? `theta0.s${id.theta0}` : `${variantLabel(id)}.${seedTag(id)}`);

/** The dataset's evaluation split (QReCC and OR-QuAC test, TopiOCQA dev). */
export const evalSplit = (dataset: DatasetName): string => EVAL_SETUP[dataset].split;

function tables(ctx: DenseContext, dataset: DatasetName): DatasetTables {
  return memo(["dense-tables", ctx.data, dataset, preprocessOf(ctx.overrides, dataset)], () => tablesIn(ctx, dataset));
}

/** The dataset's collection, tokenized with the base vocabulary (titles as a text pair where the dataset has them). */
export function tokenizedPassages(ctx: DenseContext, dataset: DatasetName) {
  return memo(["passages", ctx, dataset], () => {
    const s = setupOf(ctx);
    return use(tokenizePassages, {
      name: `tokenize-passages.${datasetTag(ctx, dataset)}`,
      params: { title: HAS_TITLES[dataset], maxLength: s.maxPassageLength },
      inputs: { passages: tables(ctx, dataset).passages, vocab: baseOf(ctx).vocab },
      ...profiled(ctx.data, "tokenize-passages"),
    }).out.tokens;
  });
}

function tokenizedQueries(ctx: DenseContext, dataset: DatasetName, form: QueryFormName, split: string, goldOnly = false) {
  return memo(["queries", ctx, dataset, form, split, goldOnly], () =>
    use(tokenizeQueries, {
      name: `tokenize-queries.${datasetTag(ctx, dataset)}.${form}.${split}${goldOnly ? ".gold" : ""}`,
      params: { form, split, goldOnly, maxLength: setupOf(ctx).maxQueryLength },
      inputs: { turns: tables(ctx, dataset).turns, vocab: baseOf(ctx).vocab },
    }).out.tokens,
  );
}

/** The model's weights: a θ0, or a variant trained from its seed's θ0. */
export function modelOf(ctx: DenseContext, id: ModelId): Model {
  if (id === "theta0") return baseOf(ctx).theta0;
  return "theta0" in id ? theta0For(ctx, id.theta0) : train(ctx, id);
}

/** Index shards of a model's passage embeddings over the dataset's collection. */
function index(ctx: DenseContext, dataset: DatasetName, id: ModelId) {
  return memo(["index", ctx, dataset, id], () => {
    const s = setupOf(ctx);
    const name = `${datasetTag(ctx, dataset)}.${modelLabel(id)}`;
    return RETRIEVAL_PATHS[s.retrieval].index({ name, model: modelOf(ctx, id), passages: tokenizedPassages(ctx, dataset), shards: s.shards });
  });
}

/** Top-k dense run of a model over one query form and split. */
export function denseRun(ctx: DenseContext, dataset: DatasetName, id: ModelId, form: QueryFormName, split: string): Run {
  return memo(["search", ctx, dataset, id, form, split], () => {
    const s = setupOf(ctx);
    return RETRIEVAL_PATHS[s.retrieval].search({
      name: `${datasetTag(ctx, dataset)}.${modelLabel(id)}.${form}.${split}`,
      model: modelOf(ctx, id),
      queries: tokenizedQueries(ctx, dataset, form, split),
      index: index(ctx, dataset, id),
      shards: s.shards,
      k: s.schedule[dataset].k,
      tag: `cspipe-${modelLabel(id)}`,
    });
  });
}

/** BM25 over one query form and split (the mined-negatives source of Tables 1 and 6). */
/** BM25 over one form of a dataset's split (its index and search steps, shared by every graph that asks). */
export function bm25Run(ctx: DenseContext, dataset: DatasetName, form: QueryFormName, split: string): Run {
  return memo(["bm25", ctx, dataset, form, split], () => {
    const t = tables(ctx, dataset);
    const idx = use(buildBm25Index, { name: `build-bm25-index.${datasetTag(ctx, dataset)}`, params: {}, inputs: { passages: t.passages } });
    return use(searchBm25, {
      name: `search-bm25.${datasetTag(ctx, dataset)}.${form}.${split}`,
      params: { form, split, k: setupOf(ctx).schedule[dataset].k, ...bm25Of(ctx.overrides, dataset) },
      inputs: { index: idx.out.index, turns: t.turns },
    }).out.run;
  });
}

/** A model's evaluation on the dataset's evaluation split (with the paper's breakdowns), on `form` (default: the variant's own input). */
export function evaluation(ctx: DenseContext, dataset: DatasetName, id: ModelId, form: QueryFormName = isTheta0(id) ? "history" : id.input): Metrics {
  return memo(["eval", ctx, dataset, id, form], () =>
    use(evaluateRunStep, {
      name: `evaluate.dense.${datasetTag(ctx, dataset)}.${modelLabel(id)}.${form}`,
      params: { split: evalSplit(dataset), metrics: DENSE_METRICS },
      inputs: { run: denseRun(ctx, dataset, id, form, evalSplit(dataset)), turns: tables(ctx, dataset).turns },
    }).out.metrics,
  );
}

/** The θ0 whose search of the gold rewrites gives a CQR variant its negatives: the one its seed trains from (null for other variants). */
const cqrTheta0Of = (ctx: DenseContext, v: DprVariant): ModelId | null =>
  v.negatives.kind === "mined" && v.negatives.source === "cqr" ? theta0Id(ctx, v.seed) : null;

/** Mined negatives for training: from BM25, CQR (its seed's θ0 on the gold rewrite), or a model of the IHN chain. */
function negatives(ctx: DenseContext, v: DprVariant, keepGold: boolean) {
  const n = v.negatives;
  if (n.kind === "in-batch") throw new Error("in-batch variants have no mined negatives");
  const cqrTheta0 = cqrTheta0Of(ctx, v);
  return memo(["negatives", ctx, v.dataset, n, v.input, keepGold, cqrTheta0], () => {
    const runs: Readonly<Record<MinedSource, () => Run>> = {
      bm25: () => bm25Run(ctx, v.dataset, v.input, "train"),
      "bm25-rewrite": () => bm25Run(ctx, v.dataset, "rewrite", "train"),
      cqr: () => denseRun(ctx, v.dataset, cqrTheta0 ?? "theta0", "rewrite", "train"),
    };
    const run = n.kind === "mined" ? runs[n.source]() : denseRun(ctx, v.dataset, n.from, v.input, "train");
    const from = n.kind === "mined" ? (cqrTheta0 === null || cqrTheta0 === "theta0" ? n.source : `${n.source}.${modelLabel(cqrTheta0)}`) : modelLabel(n.from);
    return use(mineNegativesStep, {
      name: `mine-negatives.${datasetTag(ctx, v.dataset)}.${from}${keepGold ? ".with-gold" : ""}`,
      params: { split: "train", k: setupOf(ctx).schedule[v.dataset].k, excludeGold: !keepGold },
      inputs: { run, turns: tables(ctx, v.dataset).turns },
    }).out.negatives;
  });
}

/** The dataset's dev collection of gold, BM25 hard negatives of the dev queries (on the dataset's input form) and a sample. */
function bm25DevCollection(ctx: DenseContext, dataset: DatasetName, dev: { bm25: number; size: number }): OutputRef<"ids:passages"> {
  return memo(["dev-collection", ctx, dataset, dev], () => {
    const t = tables(ctx, dataset);
    return use(buildDevCollectionStep, {
      name: `build-dev-collection.${datasetTag(ctx, dataset)}`,
      params: { split: "dev", perQuery: dev.bm25, size: dev.size },
      inputs: { run: bm25Run(ctx, dataset, INPUT_FORM[dataset], "dev"), turns: t.turns, passages: t.passages },
    }).out.ids;
  });
}

/** The trainer's input files: examples on the variant's input, dev queries and dev collection, mined negatives. */
function examples(ctx: DenseContext, v: DprVariant): OutputRef<"dpr:examples"> {
  const mined = v.negatives.kind === "in-batch" ? undefined : { negatives: v.negatives, keepGold: v.asReleased };
  return memo(["examples", ctx, v.dataset, v.input, mined ?? null, cqrTheta0Of(ctx, v)], () => {
    const s = setupOf(ctx);
    const common = {
      trainQueries: tokenizedQueries(ctx, v.dataset, v.input, "train", true),
      devQueries: tokenizedQueries(ctx, v.dataset, v.input, "dev", true),
      passages: tokenizedPassages(ctx, v.dataset),
      turns: tables(ctx, v.dataset).turns,
    };
    const negs = mined === undefined ? undefined : negatives(ctx, v, mined.keepGold);
    const label = mined === undefined ? variantLabel(v) : `${variantLabel(v)}.${seedTag(v)}`;
    const name = `assemble-dpr-examples.${datasetTag(ctx, v.dataset)}.${label}`;
    const dev = s.devPassages[v.dataset];
    const devCollection = "sample" in dev ? undefined : "released" in dev ? releasedDevIds(dev.released) : bm25DevCollection(ctx, v.dataset, dev);
    const params = { k: s.schedule[v.dataset].k, devPassages: "sample" in dev ? dev.sample : 0 };
    const given = { ...(negs === undefined ? {} : { negatives: negs }), ...(devCollection === undefined ? {} : { devCollection }) };
    return use(assembleExamples, { name, params, inputs: { ...common, ...given } }).out.examples;
  });
}

/** A variant trained from its seed's θ0 (every replicate of the seed from the same one; the paper's schedule for its dataset; the last IHN iteration trains longest). */
function train(ctx: DenseContext, v: DprVariant): Model {
  return memo(["train", ctx, v], () => {
    const s = setupOf(ctx);
    const sched = s.schedule[v.dataset];
    const i = iterationOf(v);
    const last = v.negatives.kind === "model" && i === sched.iterations;
    const hard = v.negatives.kind !== "in-batch";
    return use(trainDprDef(ctx.data === "real"), {
      name: `train-dpr.${datasetTag(ctx, v.dataset)}.${variantLabel(v)}.${seedTag(v)}`,
      ...profiled(ctx.data, "train-dpr"),
      params: {
        epochs: last || (v.asReleased && sched.iterations === 2) ? sched.lastEpochs : sched.epochs,
        patience: sched.patience,
        select: selectionOf(sched),
        min_delta: sched.minDelta,
        // The paper halves the batch when hard negatives double the passages per step.
        batch_size: hard ? Math.max(1, Math.floor(sched.batch / 2)) : sched.batch,
        lr: sched.lr,
        n_hard_negatives: hard ? sched.n : 0,
        seed: trainerSeedOf(v),
        ...devEvaluationOf(s),
        ...(v.asReleased ? { filter_gold_negatives: false, mask_false_negatives: false } : {}),
      },
      inputs: { examples: examples(ctx, v), passages: tokenizedPassages(ctx, v.dataset), init: theta0For(ctx, v.seed) },
    }).out.model;
  });
}
