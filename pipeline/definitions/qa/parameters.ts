/**
 * The overridable parameters of the QA targets (table5, table5-ceilings, table5-smoke,
 * qa-pretraining): the dense setup's (../dense/parameters.ts), whose retrievers Table 5 reads,
 * plus the QA setup's own fields (setup.ts) under `qa.`: `qa.topN`, `qa.reader.epochs`,
 * `qa.reader.maxLength.qrecc`, `qa.fid.pretrain.t5.d_model`, ... One description per field,
 * typed against the setup's records (a field added there does not compile until it is described
 * here or left out on purpose: the reader's `init`, a choice of model rather than a number), read
 * by `params`, by `--set` validation and by the application of overrides. So a reader's capacity
 * and schedule are chosen on dev data the way the dense setup's are: `./cspipe run qa-pretraining
 * --set qa.fid.pretrain.t5.d_model=128` writes its models under experiments/, their dev EM per
 * epoch in each result.json.
 *
 * The overrides travel in the context: the dense ones in `overrides` (what the dense builders
 * read), the QA ones in `qaOverrides` with the prefix dropped; both are part of every memo key.
 */
import type { DataSource, OverrideValue, Overrides, ParameterSpace, TargetContext } from "../../engine/targets.ts";
import { applyOverrides, getPath, parseSets, splitByPrefix, type Described, type Field, type ParamDef, type Violation } from "../overrides.ts";
import { denseContext, type DenseContext } from "../dense/base.ts";
import { denseChecks, denseParamDefs, denseSharedDefs } from "../dense/parameters.ts";
import { describeDefs } from "../shared-parameters.ts";
import { DENSE_SETUPS, type Profile } from "../dense/setup.ts";
import { QA_SETUPS, type FidSetup, type QaSetup, type ReaderPretraining, type ReaderSetup, type SpanPretraining, type T5Shape } from "./setup.ts";

/** The prefix of the QA setup's paths among a QA target's overrides. */
export const QA_PREFIX = "qa.";

/** A QA builder's context: the dense one, and the `qa.` overrides (prefix dropped; absent when there are none). */
export interface QaContext extends DenseContext {
  readonly qaOverrides?: Overrides;
}

export const QA_TOP_FIELDS: Described<Omit<QaSetup, "reader" | "fid" | "pretrainHistory">> = {
  topN: { kind: "int", min: 1, doc: "passages per turn in the reader data: the top N of the retriever's run" },
  addGold: { kind: "bool", doc: "add the gold passages to a training question whose retrieved passages miss them" },
  seeds: { kind: "ints", min: 0, doc: "the readers' seeds: the readers of seed s read the passages of DPR trained with s (each must be one of the dense setup's seeds)" },
};

export const HISTORY_FIELDS: Described<NonNullable<QaSetup["pretrainHistory"]>> = {
  maxTurns: { kind: "int", min: 0, doc: "mini pre-training: most synthetic history turns before a mini-nq question" },
};

/** Per reader-data set (each QA dataset and mini-nq): one field for each of these tables. */
const PER_SET: Readonly<Record<"reader.maxLength" | "reader.maxAnswerLength" | "fid.answerLength", Field>> = {
  "reader.maxLength": { kind: "int", min: 16, max: 512, doc: "DPR reader: tokens of question and passage together" },
  "reader.maxAnswerLength": { kind: "int", min: 1, doc: "DPR reader: longest answer span in tokens" },
  "fid.answerLength": { kind: "int", min: 1, doc: "FiD: longest generated answer in tokens" },
};

export const READER_FIELDS: Described<Omit<ReaderSetup, "maxLength" | "maxAnswerLength" | "pretrain">> = {
  maxQuestionLength: { kind: "int", min: 1, max: 512, doc: "DPR reader: tokens of the question (X_t cut from the left)" },
  trainPassages: { kind: "int", min: 1, doc: "DPR reader: candidates per training question its passages are sampled from" },
  passagesPerQuestion: { kind: "int", min: 1, doc: "DPR reader: passages per training question per step (one with the answer)" },
  evalTopDocs: { kind: "int", min: 1, doc: "DPR reader: passages ranked at inference and in the dev evaluation" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "DPR reader fine-tuning: AdamW learning rate" },
  batch: { kind: "int", min: 1, doc: "DPR reader fine-tuning: questions per step" },
  devQuestions: { kind: "int", min: 0, doc: "DPR reader fine-tuning: dev questions scored per epoch to keep the best (0 = all)" },
  epochs: { kind: "int", min: 1, doc: "DPR reader fine-tuning: epochs" },
};

export const READER_PRETRAIN_FIELDS: Described<Omit<ReaderPretraining, "init">> = {
  epochs: { kind: "int", min: 1, doc: "DPR reader pre-training on mini-nq: epochs" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "DPR reader pre-training on mini-nq: AdamW learning rate" },
  devQuestions: { kind: "int", min: 0, doc: "DPR reader pre-training: mini-nq dev questions scored per epoch (0 = all)" },
};

export const FID_FIELDS: Described<Omit<FidSetup, "answerLength" | "pretrain">> = {
  nContext: { kind: "int", min: 1, doc: "FiD: passages read per question (the top of the retriever's)" },
  passageLength: { kind: "int", min: 8, max: 512, doc: "FiD: tokens of each question + passage input" },
  questionLength: { kind: "int", min: 1, max: 512, doc: "FiD: tokens of the question" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "FiD fine-tuning: AdamW learning rate" },
  batch: { kind: "int", min: 1, doc: "FiD fine-tuning: questions per step" },
  devQuestions: { kind: "int", min: 0, doc: "FiD fine-tuning: dev questions scored per epoch to keep the best (0 = all)" },
  epochs: { kind: "int", min: 1, doc: "FiD fine-tuning: epochs" },
};

export const FID_PRETRAIN_FIELDS: Described<Omit<NonNullable<FidSetup["pretrain"]>, "t5" | "span">> = {
  epochs: { kind: "int", min: 1, doc: "FiD pre-training on mini-nq: epochs" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "FiD pre-training on mini-nq: AdamW learning rate" },
  devQuestions: { kind: "int", min: 0, doc: "FiD pre-training: mini-nq dev questions scored per epoch (0 = all)" },
  vocabSize: { kind: "int", min: 100, max: 100_000, doc: "FiD: size of the SentencePiece vocabulary trained on mini-nq" },
};

export const T5_FIELDS: Described<T5Shape> = {
  d_model: { kind: "int", min: 8, max: 4096, doc: "the mini T5's width" },
  d_kv: { kind: "int", min: 4, max: 512, doc: "the mini T5's width per attention head" },
  d_ff: { kind: "int", min: 8, max: 16_384, doc: "the mini T5's feed-forward width" },
  num_layers: { kind: "int", min: 1, max: 48, doc: "the mini T5's layers per stack (encoder and decoder)" },
  num_heads: { kind: "int", min: 1, max: 64, doc: "the mini T5's attention heads" },
  dropout_rate: { kind: "number", min: 0, max: 1, maxExclusive: true, doc: "the mini T5's dropout" },
};

export const SPAN_FIELDS: Described<SpanPretraining> = {
  epochs: { kind: "int", min: 1, doc: "T5 span-corruption pre-training: epochs" },
  lr: { kind: "number", min: 0, minExclusive: true, max: 1, doc: "T5 span-corruption pre-training: AdamW learning rate" },
  batch: { kind: "int", min: 1, doc: "T5 span-corruption pre-training: passages per step" },
  noiseDensity: { kind: "number", min: 0, minExclusive: true, max: 1, maxExclusive: true, doc: "T5 span corruption: share of tokens masked" },
  meanSpanLength: { kind: "number", min: 1, doc: "T5 span corruption: mean masked span length" },
  sentinels: { kind: "int", min: 1, doc: "T5 span corruption: sentinel tokens (most masked spans per passage)" },
  length: { kind: "int", min: 8, max: 512, doc: "T5 span corruption: passages cut to this many tokens" },
  devEvery: { kind: "int", min: 2, doc: "T5 span corruption: every devEvery-th passage held out for the dev loss" },
  maxPassages: { kind: "int", min: 0, doc: "T5 span corruption: the first N passages only (0 = all)" },
};

const MINI_ONLY = "applies to the mini benchmark only (on real data the readers start from the locked bert-base-uncased and t5-base)";

/** Field groups: the path prefix inside the QA setup and the fields under it. */
const GROUPS: readonly (readonly [string, Readonly<Record<string, Field>>])[] = [
  ["", QA_TOP_FIELDS],
  ["pretrainHistory.", HISTORY_FIELDS],
  ["reader.", READER_FIELDS],
  ["reader.pretrain.", READER_PRETRAIN_FIELDS],
  ["fid.", FID_FIELDS],
  ["fid.pretrain.", FID_PRETRAIN_FIELDS],
  ["fid.pretrain.t5.", T5_FIELDS],
  ["fid.pretrain.span.", SPAN_FIELDS],
];

/** The QA setup's own parameters (paths without the prefix) with their values in `setup`; what the setup lacks (real data's pre-trainings) from the mini setup, unavailable. */
export function qaOwnParamDefs(setup: QaSetup): ParamDef[] {
  const out: ParamDef[] = [];
  const add = (path: string, field: Field) => {
    const value = getPath(setup, path);
    if (value !== undefined && value !== null) out.push({ path, field, value: value as OverrideValue });
    else out.push({ path, field, value: getPath(QA_SETUPS.mini.paper, path) as OverrideValue, unavailable: MINI_ONLY });
  };
  for (const [prefix, fields] of GROUPS) for (const [k, f] of Object.entries(fields)) add(`${prefix}${k}`, f);
  for (const [table, f] of Object.entries(PER_SET)) for (const set of Object.keys(getPath(setup, table) as object).sort()) add(`${table}.${set}`, f);
  return out;
}

/** Every parameter of a QA target, in listing order: the dense setup's, then `qa.*`. */
export function qaParamDefs(data: DataSource, profile: Profile): ParamDef[] {
  const own = qaOwnParamDefs(QA_SETUPS[data][profile]).map((d) => ({ ...d, path: `${QA_PREFIX}${d.path}` }));
  return [...denseParamDefs(DENSE_SETUPS[data][profile], data), ...denseSharedDefs(data), ...own];
}

/** Rules across the QA fields, and between the readers' seeds and the retrievers'. */
export function qaChecks(value: (path: string) => OverrideValue | undefined): Violation[] {
  const out: Violation[] = [];
  const atMost = (small: string, big: string, message: string) => {
    const a = value(small), b = value(big);
    if (typeof a === "number" && typeof b === "number" && a > b) out.push({ message, paths: [small, big] });
  };
  atMost("qa.reader.passagesPerQuestion", "qa.reader.trainPassages", "the DPR reader samples a question's passages from its training candidates: no more than there are");
  atMost("qa.reader.trainPassages", "qa.topN", "the DPR reader's training candidates come from the top N passages of the reader data");
  atMost("qa.reader.evalTopDocs", "qa.topN", "the DPR reader ranks passages from the top N of the reader data");
  atMost("qa.fid.nContext", "qa.topN", "FiD reads passages from the top N of the reader data");
  const readers = value("qa.seeds"), retrievers = value("seeds");
  if (Array.isArray(readers) && Array.isArray(retrievers)) {
    const missing = readers.filter((s) => !retrievers.includes(s));
    if (missing.length > 0) out.push({ message: `the readers of seed s read the passages of DPR trained with s: seed${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not among the dense setup's seeds`, paths: ["qa.seeds", "seeds"] });
  }
  return out;
}

/** The parameter space of the QA targets of one profile. */
export function qaParameters(profile: Profile): ParameterSpace {
  const space = (data: DataSource) => `the dense and QA setups (${data}, ${profile} profile)`;
  return {
    name: `the dense and QA setups (${profile} profile)`,
    describe: (ctx) => describeDefs(qaParamDefs(ctx.data, profile)),
    parse: (sets, ctx) => parseSets(sets, qaParamDefs(ctx.data, profile), { space: space(ctx.data), check: (v) => [...denseChecks(v), ...qaChecks(v)] }),
  };
}

/** A QA target's context: its overrides split into the dense setup's and the QA setup's (empty ones dropped, so both spell the plain setup alike). */
export function qaContext(t: TargetContext, profile: Profile): QaContext {
  const { own, rest } = splitByPrefix(t.overrides, QA_PREFIX);
  const base = denseContext({ data: t.data, overrides: rest }, profile);
  return Object.keys(own).length > 0 ? { ...base, qaOverrides: own } : base;
}

/** The QA setup a context sees: the code's values for its data source and profile, with its `qa.` overrides applied. */
export function qaSetupOf(ctx: QaContext): QaSetup {
  return applyOverrides(QA_SETUPS[ctx.data][ctx.profile], ctx.qaOverrides);
}
