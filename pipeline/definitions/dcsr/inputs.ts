/**
 * What DCSR reads per dataset, built once per context (memoised by structure): the tables,
 * the sentences table, the marker-token collection, the tokenized queries, the answer-
 * sentence labels, BM25's mined negatives and the dev collection. Steps DPR builds too
 * (tables, tokenized queries, BM25 runs and negatives, dev collections) are made with the
 * same names and params as in ../dense, so the engine merges them into one: DCSR and DPR
 * rows of a table train on the same queries and negatives. (models.ts keeps those builders
 * private; the test in test/dcsr/definitions.test.ts fails if the two ever drift apart.)
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { generateMini } from "../../../steps/data/steps.ts";
import { preprocessNqStep } from "../../../steps/data/nq-steps.ts";
import { buildDevCollectionStep } from "../../../steps/data/dev-collection.ts";
import { tokenizeQueries } from "../../../steps/encoding/steps.ts";
import { buildBm25Index, searchBm25 } from "../../../steps/sparse/steps.ts";
import { bm25Of, preprocessOf } from "../shared-parameters.ts";
import { mineNegativesStep } from "../../../steps/mining/steps.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { splitSentencesStep } from "../../../steps/dcsr/sentences.ts";
import { tokenizeDcsrPassages } from "../../../steps/dcsr/tokenize.ts";
import { labelAnswerSentences, labelAnswerSentencesFromRaw } from "../../../steps/dcsr/label-step.ts";
import { lockedFiles, realRaw, tablesIn } from "../datasets.ts";
import { memo } from "../memo.ts";
import { baseOf, releasedDevIds, tagOf } from "../dense/base.ts";
import { HAS_TITLES, INPUT_FORM, type DevCollection } from "../dense/setup.ts";
import { setupOf } from "../dense/models.ts";
import { dcsrSetupOf, denseOf, type DcsrContext } from "./parameters.ts";
import type { DcsrDataset } from "./variants.ts";

/** Step-name tag of a dataset: "mini-qrecc", "mini-smoke-topiocqa", "mini-nq" (the dense graph's names). */
export const datasetTag = (ctx: DcsrContext, dataset: DcsrDataset): string => `${tagOf(ctx)}-${dataset}`;

export interface DcsrTables {
  readonly passages: OutputRef<"parquet:passages">;
  readonly turns: OutputRef<"parquet:turns">;
}

/** mini-nq's tables (θ0's pre-training data), as base.ts builds them. */
function nqTables(ctx: DcsrContext): DcsrTables {
  if (ctx.data !== "mini") throw new Error("DCSR on NQ-style questions runs on mini-nq only (the real θ0 is the released DPR-NQ)");
  const raw = use(generateMini.nq, { name: "generate-mini-nq", params: {}, inputs: {} });
  const nq = use(preprocessNqStep, { name: "preprocess-mini-nq", params: {}, inputs: { raw: raw.out.raw } }).out;
  return { passages: nq.passages, turns: nq.turns };
}

export function tablesOf(ctx: DcsrContext, dataset: DcsrDataset): DcsrTables {
  return memo(["dcsr-tables", ctx.data, dataset, dataset === "nq" ? null : preprocessOf(ctx.overrides, dataset)], () => (dataset === "nq" ? nqTables(ctx) : tablesIn(ctx, dataset)));
}

const hasTitles = (dataset: DcsrDataset): boolean => (dataset === "nq" ? true : HAS_TITLES[dataset]);

export function sentencesOf(ctx: DcsrContext, dataset: DcsrDataset): OutputRef<"parquet:sentences"> {
  return memo(["dcsr-sentences", ctx, dataset], () => {
    const rule = dcsrSetupOf(ctx).split;
    return use(splitSentencesStep, { name: `split-sentences.${datasetTag(ctx, dataset)}`, params: { minWords: rule.minWords, minTailWords: rule.minTailWords }, inputs: { passages: tablesOf(ctx, dataset).passages } }).out.sentences;
  });
}

/** The collection as marker-token inputs (same token budget and titles as DPR's passages). */
export function markerTokensOf(ctx: DcsrContext, dataset: DcsrDataset): OutputRef<"tokens:dcsr-passages"> {
  return memo(["dcsr-tokens", ctx, dataset], () => {
    const d = dcsrSetupOf(ctx);
    return use(tokenizeDcsrPassages, {
      name: `tokenize-dcsr-passages.${datasetTag(ctx, dataset)}`,
      params: { maxLength: setupOf(ctx).maxPassageLength, title: hasTitles(dataset), marker: d.marker, maxMarkers: d.maxMarkers },
      inputs: { passages: tablesOf(ctx, dataset).passages, sentences: sentencesOf(ctx, dataset), vocab: baseOf(denseOf(ctx)).vocab },
    }).out.tokens;
  });
}

/** Tokenized queries: the dense graph's `tokenize-queries` steps (mini-nq: base.ts's, which keep gold turns only). */
export function queryTokensOf(ctx: DcsrContext, dataset: DcsrDataset, form: QueryFormName, split: string, goldOnlyAsked: boolean): OutputRef<"tokens:queries"> {
  const goldOnly = dataset === "nq" ? true : goldOnlyAsked;
  return memo(["dcsr-queries", ctx, dataset, form, split, goldOnly], () => {
    const name = dataset === "nq" ? `tokenize-queries.mini-nq.${form}.${split}` : `tokenize-queries.${datasetTag(ctx, dataset)}.${form}.${split}${goldOnly ? ".gold" : ""}`;
    return use(tokenizeQueries, {
      name,
      params: { form, split, goldOnly, maxLength: setupOf(ctx).maxQueryLength },
      inputs: { turns: tablesOf(ctx, dataset).turns, vocab: baseOf(denseOf(ctx)).vocab },
    }).out.tokens;
  });
}

/** BM25 over one query form and split: the dense graph's run (mini-nq: base.ts's). */
export function bm25RunOf(ctx: DcsrContext, dataset: DcsrDataset, form: QueryFormName, split: string): OutputRef<"parquet:run"> {
  return memo(["dcsr-bm25", ctx, dataset, form, split], () => {
    const t = tablesOf(ctx, dataset);
    const tag = dataset === "nq" ? "mini-nq" : datasetTag(ctx, dataset);
    const k = dataset === "nq" ? 100 : setupOf(ctx).schedule[dataset].k;
    const index = use(buildBm25Index, { name: `build-bm25-index.${tag}`, params: {}, inputs: { passages: t.passages } });
    return use(searchBm25, { name: `search-bm25.${tag}.${form}.${split}`, params: { form, split, k, ...bm25Of(ctx.overrides, dataset) }, inputs: { index: index.out.index, turns: t.turns } }).out.run;
  });
}

/** BM25's mined negatives of the training turns (gold excluded), the dense graph's step. */
export function bm25NegativesOf(ctx: DcsrContext, dataset: DcsrDataset): OutputRef<"parquet:negatives"> {
  return memo(["dcsr-bm25-negatives", ctx, dataset], () =>
    use(mineNegativesStep, {
      name: `mine-negatives.${datasetTag(ctx, dataset)}.bm25`,
      params: { split: "train", k: dataset === "nq" ? 100 : setupOf(ctx).schedule[dataset].k, excludeGold: true },
      inputs: { run: bm25RunOf(ctx, dataset, inputFormOfDataset(dataset), "train"), turns: tablesOf(ctx, dataset).turns },
    }).out.negatives,
  );
}

const inputFormOfDataset = (dataset: DcsrDataset): QueryFormName => (dataset === "nq" ? "q_t" : INPUT_FORM[dataset]);

/** The dev collection of model selection: none (sampled inside the examples step), released ids, or BM25-hard. */
export function devCollectionOf(ctx: DcsrContext, dataset: DcsrDataset): { sample: number } | { ids: OutputRef<"ids:passages"> } {
  const dev: DevCollection = setupOf(ctx).devPassages[dataset];
  if ("sample" in dev) return { sample: dev.sample };
  if ("released" in dev) return { ids: releasedDevIds(dev.released) };
  return memo(["dcsr-dev-collection", ctx, dataset], () => {
    const t = tablesOf(ctx, dataset);
    return {
      ids: use(buildDevCollectionStep, {
        name: `build-dev-collection.${datasetTag(ctx, dataset)}`,
        params: { split: "dev", perQuery: dev.bm25, size: dev.size },
        inputs: { run: bm25RunOf(ctx, dataset, inputFormOfDataset(dataset), "dev"), turns: t.turns, passages: t.passages },
      }).out.ids,
    };
  });
}

/** Where the evidence of the answer sentences lives, for the datasets whose evidence is in raw turn files. */
function rawEvidence(ctx: DcsrContext, dataset: DatasetName) {
  if (dataset === "orquac") {
    return ctx.data === "mini" ? use(generateMini.orquac, { name: "generate-mini-orquac", params: {}, inputs: {} }).out.raw : realRaw("orquac", { part: "turns", fileSplits: ["train"] });
  }
  if (dataset === "topiocqa") {
    return ctx.data === "mini" ? use(generateMini.topiocqa, { name: "generate-mini-topiocqa", params: {}, inputs: {} }).out.raw : lockedFiles("topiocqa-turns-train");
  }
  return undefined;
}

/** The answer sentence of every training turn with gold, and its passage's labels. */
export function answerSentencesOf(ctx: DcsrContext, dataset: DcsrDataset): OutputRef<"parquet:answer-sentences"> {
  return memo(["dcsr-labels", ctx, dataset], () => {
    const t = tablesOf(ctx, dataset);
    const name = `label-answer-sentences.${datasetTag(ctx, dataset)}`;
    const common = { turns: t.turns, passages: t.passages, sentences: sentencesOf(ctx, dataset) };
    const params = { dataset, split: "train" };
    const raw = dataset === "nq" ? undefined : rawEvidence(ctx, dataset);
    if (raw === undefined) return use(labelAnswerSentences, { name, params, inputs: common }).out.labels;
    return use(labelAnswerSentencesFromRaw(raw.kind), { name, params, inputs: { ...common, raw } }).out.labels;
  });
}

export type { DevCollection };
