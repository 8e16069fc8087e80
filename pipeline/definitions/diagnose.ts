/**
 * The graph of `diagnose` (pipeline/commands/diagnose.ts), built here like every target's: BM25
 * over q_t, X_t \ q_t and X_t, each run evaluated per turn, and the render step; with a dense
 * model also its runs over the two history forms through the pipeline's tokenize / encode /
 * search steps. Either over a user's files (hashed by the command: `UserFile`s) or over a dataset
 * cspipe reads, whose BM25 index is the lexical targets' own step (same name, same key).
 */
import { use, type AnyStep, type OutputRef } from "../engine/step.ts";
import type { DataSource } from "../engine/targets.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import { diagnosisMetrics } from "../../steps/diagnose/core.ts";
import { readConversationsDef, renderDiagnosisDenseStep, renderDiagnosisStep, searchFormsDef, summarizeTurnsStep, type RENDER_PARAMS } from "../../steps/diagnose/steps.ts";
import { importDenseModelDef, importVocabFileDef, readCollectionPassagesDef } from "../../steps/diagnose/dense-steps.ts";
import { tokenizePassages, tokenizeQueries } from "../../steps/encoding/steps.ts";
import { buildFlatIpIndex, encodePassages, encodeQueries, searchDense } from "../../steps/dense/steps.ts";
import { evaluateRunStep } from "../../steps/eval/steps.ts";
import { buildBm25Index } from "../../steps/sparse/steps.ts";
import { datasetTables } from "./datasets.ts";
import { fileParam, locationsOf, collectionIndex, type UserFile } from "./user-files.ts";
import type { z } from "zod";

/** The render step's params, validated by the command (RENDER_PARAMS, defaults filled in). */
export type DiagnosisParams = z.output<typeof RENDER_PARAMS>;

/** The per-turn metrics of the three forms. */
type PerQuery = Record<"q_t" | "history_without_q" | "history", OutputRef<"parquet:per-query">>;

/** What every diagnosis reads: the turns, their summary, a BM25 index and (for a dense model) the passages. */
export interface DiagnosisBase {
  readonly turns: OutputRef<"parquet:turns">;
  readonly summary: OutputRef<"json:conversations">;
  readonly index: OutputRef<"bm25-index">;
  readonly passages: () => OutputRef<"parquet:passages">;
  /** Distinguishes step names of one base from another's (`user`, `mini-qrecc`). */
  readonly tag: string;
}

/** A dense model's files as the command found and hashed them: the ONNX encoders (and extras) and the vocabulary. */
export interface DenseModelFiles {
  readonly files: readonly UserFile[];
  readonly vocab: UserFile;
}

/** A user's conversations (split `split`) over a user's collection. */
export function userDiagnosisBase(conversations: UserFile, collection: readonly UserFile[], split: string): DiagnosisBase {
  const conv = use(readConversationsDef(locationsOf([conversations])), { name: "read-conversations-file", params: { file: fileParam(conversations), split }, inputs: {} });
  const index = collectionIndex(collection);
  const passages = () => use(readCollectionPassagesDef(locationsOf(collection)), { name: "read-collection-passages", params: { files: collection.map(fileParam) }, inputs: {} }).out.passages;
  return { turns: conv.out.turns, summary: conv.out.summary, index: index.out.index, passages, tag: "user" };
}

/** A dataset cspipe reads: its tables, and the lexical targets' BM25 index of its collection. */
export function datasetDiagnosisBase(dataset: DatasetName, data: DataSource, split: string): DiagnosisBase {
  const tables = datasetTables(dataset, data);
  const tag = `${data}-${dataset}`;
  // The same step, params and name as the lexical targets: their index is reused.
  const index = use(buildBm25Index, { name: `build-bm25-index.${tag}`, params: {}, inputs: { passages: tables.passages } });
  const summary = use(summarizeTurnsStep, { name: `diagnose.summarize-turns.${tag}`, params: { split }, inputs: { turns: tables.turns } });
  return { turns: tables.turns, summary: summary.out.summary, index: index.out.index, passages: () => tables.passages, tag };
}

function bm25Forms(base: DiagnosisBase, p: DiagnosisParams, threads: number): PerQuery {
  const k = Math.max(...p.cutoffs);
  const runs = use(searchFormsDef(threads), { name: `diagnose.search-bm25-forms.${base.tag}`, params: { split: p.split, k, k1: p.k1, b: p.b }, inputs: { index: base.index, turns: base.turns } }).out;
  const evaluate = (form: keyof PerQuery) => use(evaluateRunStep, { name: `diagnose.evaluate.${base.tag}.${form}`, params: { split: p.split, metrics: diagnosisMetrics(p.cutoffs) }, inputs: { run: runs[form], turns: base.turns } }).out.perQuery;
  return { q_t: evaluate("q_t"), history_without_q: evaluate("history_without_q"), history: evaluate("history") };
}

/** The dense model's per-turn metrics over X_t \ q_t and X_t, and the model's description for the report. */
function denseForms(base: DiagnosisBase, p: DiagnosisParams, dense: DenseModelFiles) {
  const { tag } = base;
  const model = use(importDenseModelDef(locationsOf(dense.files)), { name: "import-dense-model", params: { files: dense.files.map(fileParam) }, inputs: {} }).out.model;
  const vocab = use(importVocabFileDef(locationsOf([dense.vocab])), { name: "import-vocab-file", params: { file: fileParam(dense.vocab) }, inputs: {} }).out.vocab;
  const ptoks = use(tokenizePassages, { name: `diagnose.tokenize-passages.${tag}`, params: { title: true }, inputs: { passages: base.passages(), vocab } }).out.tokens;
  const emb = use(encodePassages, { name: `diagnose.encode-passages.${tag}`, params: { shard: 0, shards: 1, parity: "if-present" }, inputs: { model, tokens: ptoks } }).out.embeddings;
  const index = use(buildFlatIpIndex, { name: `diagnose.build-flat-ip-index.${tag}`, params: {}, inputs: { embeddings: emb } }).out.index;
  const perForm = (form: "history_without_q" | "history") => {
    const qt = use(tokenizeQueries, { name: `diagnose.tokenize-queries.${tag}.${form}`, params: { form, split: p.split }, inputs: { turns: base.turns, vocab } }).out.tokens;
    const qe = use(encodeQueries, { name: `diagnose.encode-queries.${tag}.${form}`, params: { parity: "if-present" }, inputs: { model, tokens: qt } }).out.embeddings;
    const run = use(searchDense, { name: `diagnose.search-dense.${tag}.${form}`, params: { k: Math.max(...p.cutoffs), tag: "cspipe-dense" }, inputs: { queries: qe, shards: [index] } }).out.run;
    return use(evaluateRunStep, { name: `diagnose.evaluate-dense.${tag}.${form}`, params: { split: p.split, metrics: diagnosisMetrics(p.cutoffs) }, inputs: { run, turns: base.turns } }).out.perQuery;
  };
  const description = `${dense.files.map((f) => `${f.name} (sha256 ${f.sha256.slice(0, 12)})`).join(", ")}, vocabulary ${dense.vocab.sha256.slice(0, 12)}`;
  return { history_without_q: perForm("history_without_q"), history: perForm("history"), model: description };
}

/** The `render-diagnosis` step over a base: BM25's three forms, and a dense model's two when given. */
export function diagnosis(base: DiagnosisBase, params: DiagnosisParams, threads: number, dense?: DenseModelFiles): AnyStep {
  const inputs = { turns: base.turns, summary: base.summary, index: base.index, ...bm25Forms(base, params, threads) };
  if (dense === undefined) return use(renderDiagnosisStep, { name: "render-diagnosis", params, inputs });
  const d = denseForms(base, params, dense);
  return use(renderDiagnosisDenseStep, { name: "render-diagnosis", params: { ...params, model: d.model }, inputs: { ...inputs, dense_history_without_q: d.history_without_q, dense_history: d.history } });
}
