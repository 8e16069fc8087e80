/**
 * The DCSR models as data, like the DPR variants (../dense/variants.ts): a record of the
 * dataset, the input form, where the mined negatives come from, and how each example's
 * negatives are drawn. `graph.ts` turns one into steps; two equal records are one model.
 *
 * - DCSR: a positive sentence, one in-passage negative, one random sentence of a BM25
 *   negative passage (Wu et al. 2022, §3.2), from θ0.
 * - The paper's ablations (§4.5): +1 BM25 random (no in-passage negative), +2 BM25 random
 *   (sentences of two different BM25 negatives), +1 in-passage & +1 BM25 random (= DCSR).
 * - DCSR x IHN: iteration 1 is DCSR; iteration i > 1 retrains from θ0 with negative
 *   sentences mined by iteration i-1 of the same seed (and still one in-passage negative).
 * - On mini-nq ("nq"), the paper's own setting: DCSR trained like θ0 (from a random BERT on
 *   the standalone questions), beside θ0, which is DPR trained that way.
 */
import type { DatasetName } from "../../../steps/data/schemas.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { INPUT_FORM } from "../dense/setup.ts";

export type DcsrDataset = DatasetName | "nq";

export type DcsrNegatives = { readonly kind: "bm25" } | { readonly kind: "model"; readonly from: DcsrVariant };

export interface DcsrVariant {
  readonly dataset: DcsrDataset;
  readonly input: QueryFormName;
  readonly negatives: DcsrNegatives;
  /** In-passage negatives per example (0 or 1). */
  readonly inPassage: 0 | 1;
  /** Mined negative sentences per example (1 or 2). */
  readonly negativeSentences: 1 | 2;
  readonly seed: number;
}

export const inputFormOf = (dataset: DcsrDataset): QueryFormName => (dataset === "nq" ? "q_t" : INPUT_FORM[dataset]);

/** DCSR: +1 in-passage & +1 BM25 random. */
export function dcsr(dataset: DcsrDataset, seed: number): DcsrVariant {
  return { dataset, input: inputFormOf(dataset), negatives: { kind: "bm25" }, inPassage: 1, negativeSentences: 1, seed };
}

export type Ablation = "bm25-1" | "bm25-2" | "in-passage-bm25-1";
export const ABLATIONS: readonly Ablation[] = ["bm25-1", "bm25-2", "in-passage-bm25-1"];

/** The paper's §4.5 ablations; "in-passage-bm25-1" is DCSR itself. */
export function ablation(dataset: DcsrDataset, which: Ablation, seed: number): DcsrVariant {
  const base = dcsr(dataset, seed);
  if (which === "bm25-1") return { ...base, inPassage: 0 };
  if (which === "bm25-2") return { ...base, inPassage: 0, negativeSentences: 2 };
  return base;
}

/** DCSR x IHN iteration i (1 = DCSR); i > 1 mines its negative sentences with iteration i-1 of the same seed. */
export function dcsrIhn(dataset: DatasetName, i: number, seed: number): DcsrVariant {
  if (!Number.isInteger(i) || i < 1) throw new RangeError(`DCSR x IHN iteration must be an integer >= 1, got ${i}`);
  return i === 1 ? dcsr(dataset, seed) : { ...dcsr(dataset, seed), negatives: { kind: "model", from: dcsrIhn(dataset, i - 1, seed) } };
}

export function iterationOf(v: DcsrVariant): number {
  return v.negatives.kind === "model" ? iterationOf(v.negatives.from) + 1 : 1;
}

/** A readable name for step names (without the seed): dcsr, dcsr-bm25-1, dcsr-bm25-2, dcsr-ihn-2. */
export function variantLabel(v: DcsrVariant): string {
  let label = v.negatives.kind === "model" ? `dcsr-ihn-${iterationOf(v)}` : "dcsr";
  if (v.inPassage === 0) label += `-${v.negatives.kind === "bm25" ? "bm25" : "mined"}-${v.negativeSentences}`;
  else if (v.negativeSentences !== 1) label += `-in-passage-neg${v.negativeSentences}`;
  if (v.input !== inputFormOf(v.dataset)) label += `.${v.input}`;
  return label;
}
