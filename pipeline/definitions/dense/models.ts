/**
 * The dense experiments as a graph: tokenization, θ0, DPR models trained with in-batch
 * negatives, with mined hard negatives (BM25, CQR = θ0 on the gold rewrite, the previous
 * iteration's model) and the iterative loop (IHN), their indexes, runs and evaluations.
 *
 * Every model is a value built once per (dataset, variant) and shared by the tables and
 * figures that show it; two targets that need the same model get the same cache key.
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { DataSource } from "../../engine/targets.ts";
import { generateMini } from "../../../steps/data/steps.ts";
import { preprocessNqStep } from "../../../steps/data/nq-steps.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { tokenizePassages, tokenizeQueries, trainVocab } from "../../../steps/encoding/steps.ts";
import { buildFlatIpIndex, encodePassages, encodeQueries, searchDenseDef, shardInputNames } from "../../../steps/dense/steps.ts";
import { assembleExamples, assembleExamplesReleasedDev, assembleExamplesWithNegatives, assembleExamplesWithNegativesReleasedDev, pretrainDprDef, trainDprDef } from "../../../steps/training/steps.ts";
import { listPassageIds } from "../../../steps/data/dev-collection.ts";
import { mineNegativesStep } from "../../../steps/mining/steps.ts";
import { buildBm25Index, searchBm25 } from "../../../steps/sparse/steps.ts";
import { BM25_PRESETS } from "../../../steps/sparse/similarity.ts";
import { evaluateRunStep } from "../../../steps/eval/steps.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { assembleHfDprCheckpoint, DPR_NQ_LOCK_ENTRIES, importDprCheckpoint } from "../../../steps/training/import-steps.ts";
import { BERT_VOCAB_LOCK_ENTRY, importBertVocab } from "../../../steps/encoding/import-vocab.ts";
import { datasetTables, lockedFiles } from "../datasets.ts";
import { EVAL_SETUP } from "../lexical.ts";
import { DENSE_METRICS, DENSE_SETUPS, HAS_TITLES, INPUT_FORM, MINI_BERT, type DenseSetup, type DevCollection, type Profile } from "./setup.ts";

export interface DenseContext {
  readonly data: DataSource;
  readonly profile: Profile;
}

type Model = OutputRef<"dpr:model">;
type Run = OutputRef<"parquet:run">;
type Metrics = OutputRef<"json:metrics">;
type Vocab = OutputRef<"wordpiece:vocab">;

const tagOf = (ctx: DenseContext): string => (ctx.profile === "paper" ? ctx.data : `${ctx.data}-${ctx.profile}`);

/** Where a source of hard negatives comes from (Tables 1 and 6). */
export type NegativeSource = "bm25" | "bm25-rewrite" | "cqr" | "model";

/** What every dense model starts from: the tokenizer's vocabulary and θ0. */
interface Base {
  readonly vocab: Vocab;
  readonly theta0: Model;
}

/** The vocabulary and θ0 of the mini benchmark: a tiny BERT pre-trained on mini-nq's standalone questions. */
function miniBase(ctx: DenseContext, setup: DenseSetup): Base {
  const tag = tagOf(ctx);
  const raw = use(generateMini.nq, { name: "generate-mini-nq", params: {}, inputs: {} });
  const nq = use(preprocessNqStep, { name: "preprocess-mini-nq", params: {}, inputs: { raw: raw.out.raw } }).out;
  // The vocabulary is trained on the pre-training corpus only, as BERT's is not trained on QReCC.
  const vocab = use(trainVocab, { name: "train-wordpiece-vocab.mini-nq", params: { vocabSize: setup.vocabSize, splits: ["train"] }, inputs: { passages: nq.passages, turns: nq.turns } }).out.vocab;
  const passages = use(tokenizePassages, { name: "tokenize-passages.mini-nq", params: { title: true }, inputs: { passages: nq.passages, vocab } }).out.tokens;
  const queries = (split: string) =>
    use(tokenizeQueries, { name: `tokenize-queries.mini-nq.q_t.${split}`, params: { form: "q_t", split, goldOnly: true }, inputs: { turns: nq.turns, vocab } }).out.tokens;
  const examples = use(assembleExamples, {
    name: `assemble-dpr-examples.${tag}.theta0`,
    params: { devPassages: sampleSize(setup.devPassages.nq) },
    inputs: { trainQueries: queries("train"), devQueries: queries("dev"), passages, turns: nq.turns },
  }).out.examples;
  const { epochs, batch, lr } = setup.theta0;
  const theta0 = use(pretrainDprDef(false), {
    name: `pretrain-dpr.${tag}.theta0`,
    params: { epochs, batch_size: batch, lr, n_hard_negatives: 0, eval_before_training: setup.evalBeforeTraining, init: { kind: "random", bert_config: MINI_BERT } },
    inputs: { examples, passages, vocab },
  }).out.model;
  return { vocab, theta0 };
}

/**
 * The real runs' vocabulary and θ0: BERT-base uncased's vocab.txt and the DPR-NQ question
 * and context encoders from datasets.lock, laid out as one HF DPR checkpoint and exported
 * by the trainer with zero epochs (same safetensors + ONNX layout as a trained model).
 */
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

/** The sample size of a sampled dev collection (a released one has its own step). */
function sampleSize(dev: DevCollection): number {
  if (!("sample" in dev)) throw new Error(`a released dev collection (${dev.released}) where a sample is expected`);
  return dev.sample;
}

/** The ids of a released dev collection: the lock entry's blocks file (e.g. OR-QuAC's dev_blocks.txt). */
const RELEASED_DEV_FILES: Readonly<Record<string, string>> = { "orquac-dev-blocks": "dev_blocks.txt" };

function releasedDevIds(entry: string): OutputRef<"ids:passages"> {
  const file = RELEASED_DEV_FILES[entry];
  if (file === undefined) throw new Error(`no blocks file known for dev collection '${entry}'`);
  return use(listPassageIds, { name: `list-passage-ids.${entry}`, params: { file }, inputs: { files: lockedFiles(entry) } }).out.ids;
}

const BASES: Readonly<Record<DataSource, (ctx: DenseContext, setup: DenseSetup) => Base>> = { mini: miniBase, real: realBase };

/** All dense models, runs and evaluations of one dataset. */
export class DenseWorld {
  readonly setup: DenseSetup;
  readonly tag: string;
  private readonly memo = new Map<string, unknown>();
  private readonly base: Base;
  readonly tables;

  constructor(readonly dataset: DatasetName, readonly ctx: DenseContext) {
    this.setup = DENSE_SETUPS[ctx.data][ctx.profile];
    this.tag = `${tagOf(ctx)}-${dataset}`;
    this.base = BASES[ctx.data](ctx, this.setup);
    this.tables = datasetTables(dataset, ctx.data);
  }

  private once<T>(key: string, make: () => T): T {
    if (!this.memo.has(key)) this.memo.set(key, make());
    return this.memo.get(key) as T;
  }

  get theta0(): Model {
    return this.base.theta0;
  }

  get evalSplit(): string {
    return EVAL_SETUP[this.dataset].split;
  }

  get inputForm(): QueryFormName {
    return INPUT_FORM[this.dataset];
  }

  passages() {
    return this.once("passages", () =>
      use(tokenizePassages, { name: `tokenize-passages.${this.tag}`, params: { title: HAS_TITLES[this.dataset] }, inputs: { passages: this.tables.passages, vocab: this.base.vocab } }).out.tokens,
    );
  }

  queries(form: QueryFormName, split: string, goldOnly = false) {
    return this.once(`q:${form}:${split}:${goldOnly}`, () =>
      use(tokenizeQueries, {
        name: `tokenize-queries.${this.tag}.${form}.${split}${goldOnly ? ".gold" : ""}`,
        params: { form, split, goldOnly },
        inputs: { turns: this.tables.turns, vocab: this.base.vocab },
      }).out.tokens,
    );
  }

  /** Index shards of a model's passage embeddings. */
  index(label: string, model: Model) {
    return this.once(`index:${label}`, () => {
      const shards = this.setup.shards;
      const refs: Record<string, OutputRef<"faiss:flat-ip">> = {};
      shardInputNames(shards).forEach((input, shard) => {
        const emb = use(encodePassages, { name: `encode-passages.${this.tag}.${label}.${shard}`, params: { shard, shards }, inputs: { model, tokens: this.passages() } });
        refs[input] = use(buildFlatIpIndex, { name: `build-flat-ip-index.${this.tag}.${label}.${shard}`, params: {}, inputs: { embeddings: emb.out.embeddings } }).out.index;
      });
      return refs;
    });
  }

  /** Top-k dense run of a model over one query form and split. */
  search(label: string, model: Model, form: QueryFormName, split: string): Run {
    return this.once(`search:${label}:${form}:${split}`, () => {
      const queries = use(encodeQueries, { name: `encode-queries.${this.tag}.${label}.${form}.${split}`, params: {}, inputs: { model, tokens: this.queries(form, split) } });
      const def = searchDenseDef(this.setup.shards);
      return use(def, {
        name: `search-dense.${this.tag}.${label}.${form}.${split}`,
        params: { k: this.setup.schedule[this.dataset].k, tag: `cspipe-${label}` },
        inputs: { queries: queries.out.embeddings, ...this.index(label, model) } as never,
      }).out.run;
    });
  }

  bm25Run(form: QueryFormName, split: string): Run {
    return this.once(`bm25:${form}:${split}`, () => {
      const index = use(buildBm25Index, { name: `build-bm25-index.${this.tag}`, params: {}, inputs: { passages: this.tables.passages } });
      return use(searchBm25, {
        name: `search-bm25.${this.tag}.${form}.${split}`,
        params: { form, split, k: this.setup.schedule[this.dataset].k, ...BM25_PRESETS[this.dataset] },
        inputs: { index: index.out.index, turns: this.tables.turns },
      }).out.run;
    });
  }

  /** The evaluation of a run on the dataset's evaluation split (with breakdowns). */
  evaluate(label: string, run: Run): Metrics {
    return this.once(`eval:${label}`, () =>
      use(evaluateRunStep, {
        name: `evaluate.dense.${this.tag}.${label}`,
        params: { split: this.evalSplit, metrics: DENSE_METRICS },
        inputs: { run, turns: this.tables.turns },
      }).out.metrics,
    );
  }

  /** A model's evaluation on its own input form. */
  metrics(label: string, model: Model, form: QueryFormName = this.inputForm): Metrics {
    return this.evaluate(`${label}.${form}`, this.search(label, model, form, this.evalSplit));
  }

  /** Negatives for training from one source; `model` is required for the "model" source. */
  negatives(label: string, source: NegativeSource, options: { model?: { label: string; ref: Model }; excludeGold?: boolean } = {}) {
    const excludeGold = options.excludeGold ?? true;
    return this.once(`neg:${label}:${excludeGold}`, () => {
      const runs: Record<NegativeSource, () => Run> = {
        bm25: () => this.bm25Run(this.inputForm, "train"),
        "bm25-rewrite": () => this.bm25Run("rewrite", "train"),
        cqr: () => this.search("theta0", this.theta0, "rewrite", "train"),
        model: () => {
          if (!options.model) throw new Error(`negatives '${label}': the model source needs a model`);
          return this.search(options.model.label, options.model.ref, this.inputForm, "train");
        },
      };
      return use(mineNegativesStep, {
        name: `mine-negatives.${this.tag}.${label}${excludeGold ? "" : ".with-gold"}`,
        params: { split: "train", k: this.setup.schedule[this.dataset].k, excludeGold },
        inputs: { run: runs[source](), turns: this.tables.turns },
      }).out.negatives;
    });
  }

  /** A DPR model trained from θ0 on `form`, with in-batch negatives only or with mined negatives. */
  train(label: string, form: QueryFormName, options: { negatives?: OutputRef<"parquet:negatives">; epochs?: number; asReleased?: boolean } = {}): Model {
    return this.once(`model:${label}`, () => {
      const s = this.setup.schedule[this.dataset];
      const common = {
        trainQueries: this.queries(form, "train", true),
        devQueries: this.queries(form, "dev", true),
        passages: this.passages(),
        turns: this.tables.turns,
      };
      const dev = this.setup.devPassages[this.dataset];
      const name = `assemble-dpr-examples.${this.tag}.${label}`;
      let examples: OutputRef<"dpr:examples">;
      if ("released" in dev) {
        const devCollection = releasedDevIds(dev.released);
        const params = { k: s.k, devPassages: 0 };
        examples = options.negatives
          ? use(assembleExamplesWithNegativesReleasedDev, { name, params, inputs: { ...common, negatives: options.negatives, devCollection } }).out.examples
          : use(assembleExamplesReleasedDev, { name, params, inputs: { ...common, devCollection } }).out.examples;
      } else {
        const params = { k: s.k, devPassages: dev.sample };
        examples = options.negatives
          ? use(assembleExamplesWithNegatives, { name, params, inputs: { ...common, negatives: options.negatives } }).out.examples
          : use(assembleExamples, { name, params, inputs: common }).out.examples;
      }
      const hard = options.negatives !== undefined;
      return use(trainDprDef(this.ctx.data === "real"), {
        name: `train-dpr.${this.tag}.${label}`,
        params: {
          epochs: options.epochs ?? s.epochs,
          // The paper halves the batch when hard negatives double the passages per step.
          batch_size: hard ? Math.max(1, Math.floor(s.batch / 2)) : s.batch,
          lr: s.lr,
          n_hard_negatives: hard ? s.n : 0,
          eval_before_training: this.setup.evalBeforeTraining,
          ...(options.asReleased ? { filter_gold_negatives: false, mask_false_negatives: false } : {}),
        },
        inputs: { examples, passages: this.passages(), init: this.theta0 },
      }).out.model;
    });
  }

  /** DPR^shortcut: trained and evaluated on X_t without q_t, in-batch negatives. */
  shortcut(): Model {
    return this.train("shortcut", "history_without_q");
  }

  /** IHN iteration i (1 = in-batch negatives = "DPR IBN"); i > 1 retrains from θ0 with negatives mined by iteration i-1. */
  ihn(i: number): Model {
    const s = this.setup.schedule[this.dataset];
    if (!Number.isInteger(i) || i < 1 || i > s.iterations) throw new RangeError(`${this.dataset}: IHN iteration ${i} outside 1..${s.iterations}`);
    const epochs = i === s.iterations && i > 1 ? s.lastEpochs : s.epochs;
    if (i === 1) return this.train(this.ihnLabel(1), this.inputForm, { epochs });
    const prev = { label: this.ihnLabel(i - 1), ref: this.ihn(i - 1) };
    return this.train(this.ihnLabel(i), this.inputForm, { negatives: this.negatives(`negs-${prev.label}`, "model", { model: prev }), epochs });
  }

  ihnLabel(i: number): string {
    return i === 1 ? "ibn" : `ihn-${i}`;
  }

  /** The final IHN model (iteration I). */
  ihnFinal(): Model {
    return this.ihn(this.setup.schedule[this.dataset].iterations);
  }

  /** A model trained with one source of hard negatives (Tables 1 and 6), one round from θ0. */
  withNegatives(source: Exclude<NegativeSource, "model">): Model {
    return this.train(`${source}-negs`, this.inputForm, { negatives: this.negatives(`negs-${source}`, source) });
  }

  /** IHN iteration 2 as the authors' code trains it: gold passages may be sampled as negatives, no masking. */
  ihnAsReleased(): Model {
    const prev = { label: this.ihnLabel(1), ref: this.ihn(1) };
    const s = this.setup.schedule[this.dataset];
    return this.train("ihn-2-as-released", this.inputForm, { negatives: this.negatives(`negs-${prev.label}`, "model", { model: prev, excludeGold: false }), asReleased: true, epochs: s.iterations === 2 ? s.lastEpochs : s.epochs });
  }
}

const worlds = new Map<string, DenseWorld>();

/** One DenseWorld per (dataset, data, profile), so targets share models. */
export function denseWorld(dataset: DatasetName, ctx: DenseContext): DenseWorld {
  const key = `${dataset}:${ctx.data}:${ctx.profile}`;
  let w = worlds.get(key);
  if (!w) worlds.set(key, (w = new DenseWorld(dataset, ctx)));
  return w;
}
