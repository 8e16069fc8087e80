/**
 * End-to-end QA as a graph: a retriever's runs over a dataset's train, dev and evaluation
 * splits become reader examples (steps/qa/steps.ts); each reader (the DPR extractive reader,
 * FiD) is fine-tuned on its own retriever's train and dev passages and answers the evaluation
 * split from that retriever's passages; EM / F1 by the dataset's own rule. A retriever is a
 * record (BM25 over a form, a DPR or a DCSR variant: retrievers.ts) carrying its own seed; the
 * reader's seed is the reader's (Table 5 gives the readers of seed s the retrievers of seed s).
 *
 * Starting points: on mini, a tiny reader BERT and a tiny T5 (with a SentencePiece Unigram
 * vocabulary trained on mini-nq) pre-trained on mini-nq's standalone questions over BM25's
 * passages with the gold one added, as θ0 is pre-trained there; on real data the locked
 * bert-base-uncased and t5-base (with its spiece.model), fine-tuned as GPU steps. Memoised by
 * structure like the dense graph (../memo.ts).
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { DataSource } from "../../engine/targets.ts";
import { generateMini } from "../../../steps/data/steps.ts";
import { preprocessNqStep } from "../../../steps/data/nq-steps.ts";
import { fileSplitsFor } from "../../../steps/data/layout.ts";
import { buildBm25Index, searchBm25 } from "../../../steps/sparse/steps.ts";
import { bm25Of } from "../shared-parameters.ts";
import { retrieverId, retrieverRun, retrieverSeed, type QaRetriever } from "./retrievers.ts";
import { buildReaderData, evaluateQaStep, extractReferencesDef } from "../../../steps/qa/steps.ts";
import { predictDprReader, prepareDprReaderInputs, pretrainDprReader, pretrainDprReaderFromTheta0, trainDprReaderDef } from "../../../steps/qa/dpr_reader/steps.ts";
import { exportTextCorpus, importSpieceModel, predictFid, prepareFidEvalInputs, prepareFidInputs, pretrainFid, pretrainFidFromT5, trainFidDef, trainSentencePiece } from "../../../steps/qa/fid/steps.ts";
import { prepareT5SpanCorpus, pretrainT5Span } from "../../../steps/qa/fid/span-steps.ts";
import { addSyntheticHistory } from "../../../steps/qa/history-step.ts";
import { assembleHfModelDef, HF_MODELS } from "../../../steps/qa/import-steps.ts";
import { lockedFiles, realRaw, tablesIn } from "../datasets.ts";
import { memo } from "../memo.ts";
import { baseOf, tagOf, type DenseContext } from "../dense/base.ts";
import { evalSplit } from "../dense/models.ts";
import { QA_REFERENCES, type QaDataset, type QaSetup, type ReaderPretraining, type SpanPretraining, type T5Shape } from "./setup.ts";
import { REAL_RESOURCES } from "../resources.ts";
import { qaSetupOf } from "./parameters.ts";

type ReaderData = OutputRef<"qa:reader-data">;
type Predictions = OutputRef<"qa:predictions">;

export type ReaderName = "dpr-reader" | "fid";
export const READERS: readonly ReaderName[] = ["dpr-reader", "fid"];

export const READER_LABEL: Readonly<Record<ReaderName, string>> = { "dpr-reader": "DPR reader", fid: "FiD" };

/** Where a reader example comes from: a training split (gold added) or a split it is scored on. */
type Role = "train" | "read";

const tag = (ctx: DenseContext, set: QaDataset | "nq"): string => `${tagOf(ctx)}-${set}`;

/**
 * How step names call the passages of a retriever: "<dataset tag>.<retriever id>", with ".s<seed>"
 * for a trained one (BM25's run has no seed, so its readers of every seed share its data steps).
 */
function passagesName(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever): string {
  const rs = retrieverSeed(ctx, dataset, retriever);
  return `${tag(ctx, dataset)}.${retrieverId(ctx, dataset, retriever)}${rs === null ? "" : `.s${rs}`}`;
}

/** Reader examples of one split of a dataset from a retriever's run. */
export function readerData(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever, split: string, role: Role): ReaderData {
  return memo(["reader-data", ctx, dataset, retriever, split, role], () => {
    const q = qaSetupOf(ctx);
    const t = tablesIn(ctx, dataset);
    return use(buildReaderData, {
      name: `build-reader-data.${passagesName(ctx, dataset, retriever)}.${split}`,
      params: { split, topN: q.topN, addGold: role === "train" && q.addGold },
      inputs: { run: retrieverRun(ctx, dataset, retriever, split), turns: t.turns, passages: t.passages },
    }).out.data;
  });
}

/** mini-nq, the readers' pre-training set: its tables and BM25 runs (the same steps θ0's comparison uses). */
export function miniNq(ctx: DenseContext) {
  const bm25 = bm25Of(ctx.overrides, "nq");
  return memo(["qa-mini-nq", bm25], () => {
    const raw = use(generateMini.nq, { name: "generate-mini-nq", params: {}, inputs: {} });
    const tables = use(preprocessNqStep, { name: "preprocess-mini-nq", params: {}, inputs: { raw: raw.out.raw } }).out;
    const index = use(buildBm25Index, { name: "build-bm25-index.mini-nq", params: {}, inputs: { passages: tables.passages } });
    const run = (split: string) =>
      use(searchBm25, { name: `search-bm25.mini-nq.q_t.${split}`, params: { form: "q_t", split, k: 100, ...bm25 }, inputs: { index: index.out.index, turns: tables.turns } }).out.run;
    return { tables, run };
  });
}

/**
 * mini-nq's turns as the readers pre-train on them: with the setup's synthetic history (the
 * conversational input format), else as they are. Its BM25 runs stay those of q_t alone.
 */
function nqReaderTurns(ctx: DenseContext): OutputRef<"parquet:turns"> {
  const nq = miniNq(ctx);
  const q = qaSetupOf(ctx);
  if (q.pretrainHistory === null) return nq.tables.turns;
  const params = { maxTurns: q.pretrainHistory.maxTurns, seed: startSeed(q) };
  return memo(["nq-history", ctx], () => use(addSyntheticHistory, { name: `add-synthetic-history.${tag(ctx, "nq")}`, params, inputs: { turns: nq.tables.turns, passages: nq.tables.passages } }).out.turns);
}

function nqReaderData(ctx: DenseContext, split: string, role: Role): ReaderData {
  return memo(["nq-reader-data", ctx, split, role], () => {
    const nq = miniNq(ctx);
    const q = qaSetupOf(ctx);
    return use(buildReaderData, {
      name: `build-reader-data.${tag(ctx, "nq")}.bm25.${split}`,
      params: { split, topN: q.topN, addGold: role === "train" && q.addGold },
      inputs: { run: nq.run(split), turns: nqReaderTurns(ctx), passages: nq.tables.passages },
    }).out.data;
  });
}

const trainDevData = (ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever) => ({
  train: readerData(ctx, dataset, retriever, "train", "train"),
  dev: readerData(ctx, dataset, retriever, "dev", "read"),
});

/** The one seed the shared starting points (the pre-trained readers, the span-corrupted T5) train with. */
const startSeed = (q: QaSetup): number => q.seeds[0]!;

/** Real data: a locked Hugging Face model (weights + config.json entries) as one directory. */
function lockedBert(): OutputRef<"hf:bert"> {
  const e = HF_MODELS["hf:bert"];
  return use(assembleHfModelDef("hf:bert"), { name: `assemble-hf-bert-model.${e.weights}`, params: {}, inputs: { weights: lockedFiles(e.weights), config: lockedFiles(e.config) } }).out.model;
}

function lockedT5(): OutputRef<"hf:t5"> {
  const e = HF_MODELS["hf:t5"];
  return use(assembleHfModelDef("hf:t5"), { name: `assemble-hf-t5-model.${e.weights}`, params: {}, inputs: { weights: lockedFiles(e.weights), config: lockedFiles(e.config) } }).out.model;
}

/** The lock entry of t5-base's SentencePiece model and its file name. */
const T5_SPIECE = { entry: "t5-base-spiece", file: "google-t5--t5-base--spiece.model" } as const;

// ---- DPR extractive reader -------------------------------------------------------------------

function readerInputs(ctx: DenseContext, set: QaDataset | "nq", data: { train: ReaderData; dev: ReaderData }, name: string) {
  const r = qaSetupOf(ctx).reader;
  return use(prepareDprReaderInputs, {
    name: `prepare-dpr-reader-inputs.${name}`,
    params: { maxLength: r.maxLength[set], maxQuestionLength: r.maxQuestionLength, trainPassages: r.trainPassages, devPassages: r.evalTopDocs },
    inputs: { ...data, vocab: baseOf(ctx).vocab },
  }).out.inputs;
}

function readerParams(q: QaSetup, set: QaDataset | "nq", seed: number) {
  const r = q.reader;
  return { lr: r.lr, batch_size: r.batch, passages_per_question: r.passagesPerQuestion, max_answer_length: r.maxAnswerLength[set], eval_top_docs: r.evalTopDocs, dev_questions: r.devQuestions, epochs: r.epochs, seed };
}

/**
 * Mini: the DPR reader pre-trained on mini-nq, from a random tiny BERT or from θ0's passage
 * encoder (the setup's `reader.pretrain.init`; θ0 is the very model the dense variants start from).
 * `pretraining` replaces the setup's (tests and experiments); the rest of the setup is the context's.
 */
export function pretrainedReader(ctx: DenseContext, pretraining?: ReaderPretraining): OutputRef<"qa:dpr-reader"> {
  const q = qaSetupOf(ctx);
  const pre = pretraining ?? q.reader.pretrain;
  if (pre === null) throw new Error(`no reader pre-training on ${ctx.data} data`);
  return memo(["pretrained-reader", ctx, pre], () => {
    const inputs = readerInputs(ctx, "nq", { train: nqReaderData(ctx, "train", "train"), dev: nqReaderData(ctx, "dev", "read") }, tag(ctx, "nq"));
    const name = `pretrain-dpr-reader.${tag(ctx, "nq")}`;
    const params = { ...readerParams(q, "nq", startSeed(q)), epochs: pre.epochs, lr: pre.lr, dev_questions: pre.devQuestions };
    if (pre.init.kind === "theta0") return use(pretrainDprReaderFromTheta0, { name, params, inputs: { inputs, theta0: baseOf(ctx).theta0 } }).out.model;
    return use(pretrainDprReader, { name, params: { ...params, init: { kind: "random", bert_config: pre.init.bert } }, inputs: { inputs } }).out.model;
  });
}

/**
 * The DPR reader fine-tuned with `seed` on a retriever's passages of a dataset (Table 5's: DPR's
 * of the same seed). On mini it starts from the reader pre-trained on mini-nq, which already answers, so that
 * start is scored on dev as epoch 0 and kept unless an epoch beats it; bert-base-uncased's span
 * head is untrained, so on real data it is not a candidate.
 */
export function dprReader(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever, seed: number): OutputRef<"qa:dpr-reader"> {
  return memo(["dpr-reader", ctx, dataset, retriever, seed], () => {
    const inputs = readerInputs(ctx, dataset, trainDevData(ctx, dataset, retriever), passagesName(ctx, dataset, retriever));
    const name = `train-dpr-reader.${tag(ctx, dataset)}.${retrieverId(ctx, dataset, retriever)}.s${seed}`;
    const params = readerParams(qaSetupOf(ctx), dataset, seed);
    if (ctx.data === "real") return use(trainDprReaderDef("bert", true), { name, params, inputs: { inputs, init: lockedBert() }, resources: REAL_RESOURCES["train-dpr-reader"] }).out.model;
    return use(trainDprReaderDef("reader", false), { name, params: { ...params, start_is_candidate: true }, inputs: { inputs, init: pretrainedReader(ctx) } }).out.model;
  });
}

// ---- FiD -------------------------------------------------------------------------------------

/**
 * FiD's tokenizer: on mini a SentencePiece Unigram vocabulary in T5's layout trained on
 * mini-nq's passages and training questions; on real data t5-base's locked spiece.model.
 */
export function sentencePiece(ctx: DenseContext): OutputRef<"spm:model"> {
  const pre = qaSetupOf(ctx).fid.pretrain;
  if (pre === null) {
    return memo(["t5-spiece"], () => use(importSpieceModel, { name: `import-spiece-model.${T5_SPIECE.entry}`, params: { file: T5_SPIECE.file }, inputs: { files: lockedFiles(T5_SPIECE.entry) } }).out.model);
  }
  return memo(["mini-spm", pre.vocabSize], () => {
    const nq = miniNq(ctx);
    const corpus = use(exportTextCorpus, { name: "export-text-corpus.mini-nq", params: { splits: ["train"] }, inputs: { passages: nq.tables.passages, turns: nq.tables.turns } }).out.corpus;
    return use(trainSentencePiece, { name: `train-sentencepiece.mini-nq.${pre.vocabSize}`, params: { vocab_size: pre.vocabSize }, inputs: { corpus } }).out.model;
  });
}

function fidShape(q: QaSetup) {
  return { nContext: q.fid.nContext, passageLength: q.fid.passageLength, questionLength: q.fid.questionLength };
}

function fidInputs(ctx: DenseContext, set: QaDataset | "nq", data: { train: ReaderData; dev: ReaderData }, name: string) {
  const q = qaSetupOf(ctx);
  return use(prepareFidInputs, {
    name: `prepare-fid-inputs.${name}`,
    params: { ...fidShape(q), answerLength: q.fid.answerLength[set] },
    inputs: { ...data, spm: sentencePiece(ctx) },
  }).out.inputs;
}

function fidParams(q: QaSetup, set: QaDataset | "nq", seed: number) {
  const f = q.fid;
  return { lr: f.lr, batch_size: f.batch, n_context: f.nContext, answer_max_length: f.answerLength[set], dev_questions: f.devQuestions, epochs: f.epochs, seed };
}

/**
 * Mini: FiD pre-trained on mini-nq, from a random tiny T5 or from one first pre-trained by span
 * corruption on mini-nq's passages (the setup's `fid.pretrain.span`).
 */
export function pretrainedFid(ctx: DenseContext): OutputRef<"qa:fid"> {
  return memo(["pretrained-fid", ctx], () => {
    const q = qaSetupOf(ctx);
    const pre = q.fid.pretrain;
    if (pre === null) throw new Error(`no FiD pre-training on ${ctx.data} data`);
    const inputs = fidInputs(ctx, "nq", { train: nqReaderData(ctx, "train", "train"), dev: nqReaderData(ctx, "dev", "read") }, tag(ctx, "nq"));
    const name = `pretrain-fid.${tag(ctx, "nq")}`;
    const params = { ...fidParams(q, "nq", startSeed(q)), epochs: pre.epochs, lr: pre.lr, dev_questions: pre.devQuestions };
    if (pre.span === null) return use(pretrainFid, { name, params: { ...params, init: { kind: "random", t5_config: pre.t5 } }, inputs: { inputs } }).out.model;
    return use(pretrainFidFromT5, { name, params, inputs: { inputs, init: spanPretrainedT5(ctx, pre.t5, pre.span) } }).out.model;
  });
}

/** Mini: a random tiny T5 pre-trained by span corruption on mini-nq's passages. */
export function spanPretrainedT5(ctx: DenseContext, t5: T5Shape, span: SpanPretraining): OutputRef<"qa:fid"> {
  return memo(["span-t5", ctx, t5, span], () => {
    const corpus = use(prepareT5SpanCorpus, {
      name: `prepare-t5-span-corpus.${tag(ctx, "nq")}`,
      params: { length: span.length, devEvery: span.devEvery, maxPassages: span.maxPassages },
      inputs: { passages: miniNq(ctx).tables.passages, spm: sentencePiece(ctx) },
    }).out.corpus;
    return use(pretrainT5Span, {
      name: `pretrain-t5-span.${tag(ctx, "nq")}`,
      params: { epochs: span.epochs, lr: span.lr, batch_size: span.batch, noise_density: span.noiseDensity, mean_span_length: span.meanSpanLength, sentinels: span.sentinels, seed: startSeed(qaSetupOf(ctx)), init: { kind: "random", t5_config: t5 } },
      inputs: { corpus },
    }).out.model;
  });
}

/** FiD fine-tuned with `seed` on a retriever's passages of a dataset; on mini its start (FiD pre-trained on mini-nq) is a candidate, as the DPR reader's. */
export function fidReader(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever, seed: number): OutputRef<"qa:fid"> {
  return memo(["fid", ctx, dataset, retriever, seed], () => {
    const inputs = fidInputs(ctx, dataset, trainDevData(ctx, dataset, retriever), passagesName(ctx, dataset, retriever));
    const name = `train-fid.${tag(ctx, dataset)}.${retrieverId(ctx, dataset, retriever)}.s${seed}`;
    const params = fidParams(qaSetupOf(ctx), dataset, seed);
    if (ctx.data === "real") return use(trainFidDef("hf-t5", true), { name, params, inputs: { inputs, init: lockedT5() }, resources: REAL_RESOURCES["train-fid"] }).out.model;
    return use(trainFidDef("fid", false), { name, params: { ...params, start_is_candidate: true }, inputs: { inputs, init: pretrainedFid(ctx) } }).out.model;
  });
}

// ---- Answers and their evaluation ------------------------------------------------------------

/** The answers of the reader trained with `seed` to the dataset's evaluation split, read from its retriever's passages. */
export function predictions(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever, reader: ReaderName, seed: number): Predictions {
  return memo(["qa-predictions", ctx, dataset, retriever, reader, seed], () => {
    const split = evalSplit(dataset);
    const data = readerData(ctx, dataset, retriever, split, "read");
    const name = `${tag(ctx, dataset)}.${retrieverId(ctx, dataset, retriever)}.s${seed}`;
    if (reader === "dpr-reader") {
      return use(predictDprReader, { name: `predict-dpr-reader.${name}`, params: {}, inputs: { model: dprReader(ctx, dataset, retriever, seed), data, vocab: baseOf(ctx).vocab } }).out.predictions;
    }
    const inputs = memo(["fid-eval-inputs", ctx, dataset, retriever], () =>
      use(prepareFidEvalInputs, { name: `prepare-fid-eval-inputs.${passagesName(ctx, dataset, retriever)}`, params: fidShape(qaSetupOf(ctx)), inputs: { data, spm: sentencePiece(ctx) } }).out.inputs,
    );
    return use(predictFid, { name: `predict-fid.${name}`, params: {}, inputs: { model: fidReader(ctx, dataset, retriever, seed), inputs } }).out.predictions;
  });
}

type RawKind = `raw:${QaDataset}`;

/**
 * The gold answers of the evaluation split, from the dataset's own turn file (as `evaluate-qa` reads it);
 * `of` names another split and the raw file holding it (answerability reads dev).
 */
export function references(data: DataSource, dataset: QaDataset, of?: { readonly split: string; readonly files: readonly string[] }): OutputRef<"qa:references"> {
  return memo(["qa-references", data, dataset, of ?? null], () => {
    const split = of?.split ?? evalSplit(dataset);
    const raw = (
      data === "mini"
        ? use(generateMini[dataset] as (typeof generateMini)["qrecc"], { name: `generate-mini-${dataset}`, params: {}, inputs: {} }).out.raw
        : realRaw(dataset, { part: "turns", fileSplits: fileSplitsFor(dataset, [split]), withAnswers: true })
    ) as OutputRef<RawKind>;
    const files = [...(of?.files ?? QA_REFERENCES[dataset].files)];
    return use(extractReferencesDef<RawKind>(`raw:${dataset}`), { name: `extract-qa-references.${data}-${dataset}.${split}`, params: { files }, inputs: { raw } }).out.references;
  });
}

/** EM / F1 (with breakdowns) of the reader trained with `seed` on a retriever's passages, on the dataset's evaluation split. */
export function qaEvaluation(ctx: DenseContext, dataset: QaDataset, retriever: QaRetriever, reader: ReaderName, seed: number): OutputRef<"json:metrics"> {
  return memo(["qa-eval", ctx, dataset, retriever, reader, seed], () =>
    use(evaluateQaStep, {
      name: `evaluate-qa.${tag(ctx, dataset)}.${retrieverId(ctx, dataset, retriever)}.${reader}.s${seed}`,
      params: { split: evalSplit(dataset), scoring: QA_REFERENCES[dataset].scoring },
      inputs: { predictions: predictions(ctx, dataset, retriever, reader, seed), references: references(ctx.data, dataset), turns: tablesIn(ctx, dataset).turns },
    }).out.metrics,
  );
}

/** A retriever over the QA seeds: the record the readers of `seed` read (DPR and DCSR ones trained with that seed). */
export type RetrieverOf = (seed: number) => QaRetriever;

/** A Table 5 cell's evaluations: one per QA seed (QaSetup.seeds), in order, each reader reading its seed's retriever. */
export function qaEvaluations(ctx: DenseContext, dataset: QaDataset, retriever: RetrieverOf, reader: ReaderName): readonly { readonly seed: number; readonly metrics: OutputRef<"json:metrics"> }[] {
  return qaSetupOf(ctx).seeds.map((seed) => ({ seed, metrics: qaEvaluation(ctx, dataset, retriever(seed), reader, seed) }));
}
