/**
 * What every dense model starts from: the tokenizer's vocabulary and θ0.
 * - mini: a WordPiece vocabulary and a tiny BERT bi-encoder pre-trained on mini-nq's
 *   standalone questions, standing in for DPR-NQ (its competence on mini-nq against BM25 is
 *   measured by `theta0VsBm25`, as DPR's on NQ is);
 * - real: BERT-base uncased's vocab.txt and the locked DPR-NQ encoders, laid out as one HF
 *   DPR checkpoint and exported by the trainer with zero epochs.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { DataSource, Overrides, TargetContext } from "../../engine/targets.ts";
import { generateMini } from "../../../steps/data/steps.ts";
import { preprocessNqStep } from "../../../steps/data/nq-steps.ts";
import { buildDevCollectionStep, listPassageIds } from "../../../steps/data/dev-collection.ts";
import { tokenizePassages, tokenizeQueries, trainVocab } from "../../../steps/encoding/steps.ts";
import { pretrainDprDef } from "../../../steps/training/steps.ts";
import { assembleExamples } from "../../../steps/training/assemble-step.ts";
import { assembleHfDprCheckpoint, DPR_NQ_LOCK_ENTRIES, importDprCheckpoint } from "../../../steps/training/import-steps.ts";
import { BERT_VOCAB_LOCK_ENTRY, importBertVocab } from "../../../steps/encoding/import-vocab.ts";
import { buildBm25Index, searchBm25 } from "../../../steps/sparse/steps.ts";
import { bm25Of } from "../shared-parameters.ts";
import { evaluateRunStep } from "../../../steps/eval/steps.ts";
import { lockedFiles } from "../datasets.ts";
import { memo } from "../memo.ts";
import { DENSE_METRICS, selectionOf, type DenseSetup, type DevCollection, type Profile } from "./setup.ts";
import { denseSetup } from "./parameters.ts";
import { RETRIEVAL_PATHS } from "./retrieval.ts";

export interface DenseContext {
  readonly data: DataSource;
  readonly profile: Profile;
  /**
   * `--set` overrides of the setup (parameters.ts). Part of every memo key through the context,
   * so an overridden graph never shares step objects with the plain one; absent when there are none.
   */
  readonly overrides?: Overrides;
}

/** The dense context of a target's context for a profile (empty overrides dropped, so both spell the plain setup alike). */
export function denseContext(t: TargetContext, profile: Profile): DenseContext {
  const o = t.overrides;
  return o !== undefined && Object.keys(o).length > 0 ? { data: t.data, profile, overrides: o } : { data: t.data, profile };
}

/** The setup of a context: the code's values for its data source and profile, with its overrides applied. */
export const setupOf = (ctx: DenseContext): DenseSetup => denseSetup(ctx.data, ctx.profile, ctx.overrides);

/**
 * The trainers' dev-evaluation cadence (their config fields eval_before_training and eval_every,
 * steps/training/config-schema.ts) as the setup gives it: the one place every training of a setup
 * (θ0, DPR, DCSR) reads it from.
 */
export function devEvaluationOf(setup: DenseSetup): { readonly eval_before_training: boolean; readonly eval_every: number } {
  return { eval_before_training: setup.evalBeforeTraining, eval_every: setup.devEvalEvery };
}

type Model = OutputRef<"dpr:model">;
type Metrics = OutputRef<"json:metrics">;
type Vocab = OutputRef<"wordpiece:vocab">;

/** Step-name tag of a context: "mini", "real", "mini-smoke". */
export const tagOf = (ctx: DenseContext): string => (ctx.profile === "paper" ? ctx.data : `${ctx.data}-${ctx.profile}`);

export interface Base {
  readonly vocab: Vocab;
  readonly theta0: Model;
}


/** The ids of a released dev collection: the lock entry's blocks file (e.g. OR-QuAC's dev_blocks.txt). */
const RELEASED_DEV_FILES: Readonly<Record<string, string>> = { "orquac-dev-blocks": "dev_blocks.txt" };

export function releasedDevIds(entry: string): OutputRef<"ids:passages"> {
  const file = RELEASED_DEV_FILES[entry];
  if (file === undefined) throw new Error(`no blocks file known for dev collection '${entry}'`);
  return use(listPassageIds, { name: `list-passage-ids.${entry}`, params: { file }, inputs: { files: lockedFiles(entry) } }).out.ids;
}

/** BM25 over mini-nq's standalone questions of one split (q_t, DPR's Lucene settings). */
function nqBm25Run(ctx: DenseContext, split: string): OutputRef<"parquet:run"> {
  const bm25 = bm25Of(ctx.overrides, "nq");
  return memo(["nq-bm25", split, bm25], () => {
    const raw = use(generateMini.nq, { name: "generate-mini-nq", params: {}, inputs: {} });
    const nq = use(preprocessNqStep, { name: "preprocess-mini-nq", params: {}, inputs: { raw: raw.out.raw } }).out;
    const index = use(buildBm25Index, { name: "build-bm25-index.mini-nq", params: {}, inputs: { passages: nq.passages } });
    return use(searchBm25, { name: `search-bm25.mini-nq.q_t.${split}`, params: { form: "q_t", split, k: 100, ...bm25 }, inputs: { index: index.out.index, turns: nq.turns } }).out.run;
  });
}

/** mini-nq: the NQ-style standalone questions θ0 is pre-trained on, and their collection (one set of steps per context). */
const miniNqOf = (ctx: DenseContext) => memo(["mini-nq", ctx], () => miniNq(setupOf(ctx)));

function miniNq(setup: DenseSetup) {
  const raw = use(generateMini.nq, { name: "generate-mini-nq", params: {}, inputs: {} });
  const nq = use(preprocessNqStep, { name: "preprocess-mini-nq", params: {}, inputs: { raw: raw.out.raw } }).out;
  // The vocabulary is trained on the pre-training corpus only, as BERT's is not trained on QReCC.
  const vocab = use(trainVocab, { name: "train-wordpiece-vocab.mini-nq", params: { vocabSize: setup.vocabSize, splits: ["train"] }, inputs: { passages: nq.passages, turns: nq.turns } }).out.vocab;
  const passages = use(tokenizePassages, { name: "tokenize-passages.mini-nq", params: { title: true, maxLength: setup.maxPassageLength }, inputs: { passages: nq.passages, vocab } }).out.tokens;
  const queries = (split: string) =>
    use(tokenizeQueries, { name: `tokenize-queries.mini-nq.q_t.${split}`, params: { form: "q_t", split, goldOnly: true, maxLength: setup.maxQueryLength }, inputs: { turns: nq.turns, vocab } }).out.tokens;
  return { tables: nq, vocab, passages, queries };
}

/**
 * θ0's trainer seed for the models of study seed 1 (the trainers' default, 42); the models of seed s
 * start from their own θ0, pretrained with seed 42 + s - 1. One θ0 shared by every seed would leave
 * θ0's own variance out of the seeds' spread: the default run under Prescott's kernels (another valid
 * sum order, so another θ0) moved two verdicts near their thresholds by one step (issue 29).
 */
export const THETA0_SEED = 42;

/** θ0 pre-trained for the models of one study seed: a tiny BERT on mini-nq's standalone questions. */
function miniTheta0(ctx: DenseContext, seed: number): Model {
  const setup = setupOf(ctx);
  const tag = tagOf(ctx);
  const nq = miniNqOf(ctx);
  const t = setup.theta0;
  if (setup.model === null) throw new Error("the mini setup names no θ0 architecture");
  return use(pretrainDprDef(false), {
    name: `pretrain-dpr.${tag}.theta0${seed === 1 ? "" : `.s${seed}`}`,
    params: {
      epochs: t.epochs, patience: t.patience, min_delta: t.minDelta, select: selectionOf(t), batch_size: t.batch, lr: t.lr, n_hard_negatives: 0,
      seed: THETA0_SEED + seed - 1, ...devEvaluationOf(setup), init: { kind: "random", bert_config: setup.model },
    },
    inputs: { examples: theta0Examples(ctx, setup, nq), passages: nq.passages, vocab: nq.vocab },
  }).out.model;
}

/** θ0's training examples: mini-nq's train questions, and dev questions over a BM25-hard dev collection (or a sample). */
function theta0Examples(ctx: DenseContext, setup: DenseSetup, nq: ReturnType<typeof miniNq>): OutputRef<"dpr:examples"> {
  const tag = tagOf(ctx);
  const common = { trainQueries: nq.queries("train"), devQueries: nq.queries("dev"), passages: nq.passages, turns: nq.tables.turns };
  const name = `assemble-dpr-examples.${tag}.theta0`;
  const dev: DevCollection = setup.devPassages.nq;
  if ("bm25" in dev) {
    const devCollection = use(buildDevCollectionStep, {
      name: `build-dev-collection.${tag}-nq`,
      params: { split: "dev", perQuery: dev.bm25, size: dev.size },
      inputs: { run: nqBm25Run(ctx, "dev"), turns: nq.tables.turns, passages: nq.tables.passages },
    }).out.ids;
    return use(assembleExamples, { name, params: { devPassages: 0 }, inputs: { ...common, devCollection } }).out.examples;
  }
  if ("sample" in dev) return use(assembleExamples, { name, params: { devPassages: dev.sample }, inputs: common }).out.examples;
  throw new Error(`mini-nq has no released dev collection (${dev.released})`);
}

/** The vocabulary and θ0 (of study seed 1) of the mini benchmark. */
function miniBase(ctx: DenseContext): Base {
  return { vocab: miniNqOf(ctx).vocab, theta0: miniTheta0(ctx, 1) };
}

function realBase(): Base {
  const vocab = use(importBertVocab, { name: "import-bert-vocab", params: {}, inputs: { files: lockedFiles(BERT_VOCAB_LOCK_ENTRY) } }).out.vocab;
  const e = DPR_NQ_LOCK_ENTRIES;
  const checkpoint = use(assembleHfDprCheckpoint, {
    name: "assemble-hf-dpr-checkpoint.dpr-nq",
    params: {},
    inputs: { questionWeights: lockedFiles(e.questionWeights), questionConfig: lockedFiles(e.questionConfig), contextWeights: lockedFiles(e.contextWeights), contextConfig: lockedFiles(e.contextConfig) },
  }).out.checkpoint;
  const theta0 = use(importDprCheckpoint, { name: "import-dpr-checkpoint.dpr-nq", params: {}, inputs: { checkpoint, vocab } }).out.model;
  return { vocab, theta0 };
}

const BASES: Readonly<Record<DataSource, (ctx: DenseContext) => Base>> = { mini: miniBase, real: realBase };

export function baseOf(ctx: DenseContext): Base {
  return memo(["base", ctx], () => BASES[ctx.data](ctx));
}

/** Whether the models of `seed` train from a θ0 other than the base one (mini, seeds after the first). */
export const hasOwnTheta0 = (ctx: DenseContext, seed: number): boolean => ctx.data === "mini" && seed !== 1;

/**
 * The θ0 the models of study seed `seed` train from: on mini, θ0 pre-trained with that seed's
 * θ0 seed (`THETA0_SEED`); on real data, the one released DPR-NQ for every seed.
 */
export function theta0For(ctx: DenseContext, seed: number): Model {
  if (!hasOwnTheta0(ctx, seed)) return baseOf(ctx).theta0;
  return memo(["theta0", ctx, seed], () => miniTheta0(ctx, seed));
}

/**
 * θ0 and BM25 on mini-nq's dev questions over its whole collection, the mini counterpart of
 * DPR-NQ against BM25 on NQ (DPR's Table 2): θ0 must be a competent retriever before any
 * conversational training, as DPR-NQ is.
 */
export function theta0VsBm25(ctx: DenseContext): { theta0: Metrics; bm25: Metrics } {
  if (ctx.data !== "mini") throw new Error("θ0 vs BM25 is measured on mini-nq only (the real θ0 is the released DPR-NQ)");
  return memo(["theta0-vs-bm25", ctx], () => {
    const setup = setupOf(ctx);
    const tag = tagOf(ctx);
    const nq = miniNqOf(ctx);
    const theta0 = baseOf(ctx).theta0;
    const path = RETRIEVAL_PATHS[setup.retrieval];
    const index = path.index({ name: `${tag}-nq.theta0`, model: theta0, passages: nq.passages, shards: setup.shards });
    const dense = path.search({ name: `${tag}-nq.theta0.q_t.dev`, model: theta0, queries: nq.queries("dev"), index, shards: setup.shards, k: 100, tag: "cspipe-theta0" });
    const bm25 = nqBm25Run(ctx, "dev");
    const evaluate = (name: string, run: OutputRef<"parquet:run">) =>
      use(evaluateRunStep, { name, params: { split: "dev", metrics: DENSE_METRICS }, inputs: { run, turns: nq.tables.turns } }).out.metrics;
    return { theta0: evaluate(`evaluate.dense.${tag}-nq.theta0.q_t`, dense), bm25: evaluate("evaluate.bm25.mini-nq.q_t", bm25) };
  });
}
