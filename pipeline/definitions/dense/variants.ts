/**
 * The dense models of the study as data: a variant is a typed record (dataset, input form,
 * negatives, seed, the released code's quirks) and `models.ts` turns one into steps. Two
 * equal records are the same model (memoised by structure, never by a label), so every table
 * and figure that shows a model shares its steps.
 *
 * Iterative hard negatives are a chain: IHN iteration i > 1 trains from θ0 with negatives
 * mined by iteration i-1 of the same seed; iteration 1 is in-batch negatives only (IBN).
 *
 * A replicate r > 1 of a seed is another fine-tuning from the same θ0 (the seed's), with its
 * examples in another order (trainer seed `trainerSeedOf`); a chain's replicate mines with the
 * models of its own replicate. Replicate 1 is the seed's own model and is not written in the
 * record, so a variant without replicates keeps its structure (and its steps' keys).
 */
import type { DatasetName } from "../../../steps/data/schemas.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { INPUT_FORM } from "./setup.ts";

/** Sources of mined hard negatives other than a model of the chain (Tables 1 and 6). */
export type MinedSource = "bm25" | "bm25-rewrite" | "cqr";

export type Negatives =
  | { readonly kind: "in-batch" }
  | { readonly kind: "mined"; readonly source: MinedSource }
  | { readonly kind: "model"; readonly from: DprVariant };

export interface DprVariant {
  readonly dataset: DatasetName;
  /** The input the model is trained (and evaluated) on: X_t, X_t \ q_t, or Q_t (OR-QuAC). */
  readonly input: QueryFormName;
  readonly negatives: Negatives;
  readonly seed: number;
  /** Another fine-tuning from the seed's θ0 (>= 2; absent = the seed's own, replicate 1). */
  readonly replicate?: number;
  /** The authors' released code: gold passages may be sampled as negatives, and are not masked. */
  readonly asReleased: boolean;
}

/**
 * Trainer seeds of replicates: replicate r of seed s trains with seed s + REPLICATE_SEED_STRIDE * (r - 1),
 * so they never meet the seed of another model while study seeds stay below the stride (parameters.ts checks).
 */
export const REPLICATE_SEED_STRIDE = 1000;

function base(dataset: DatasetName, seed: number, replicate = 1): DprVariant {
  if (!Number.isInteger(replicate) || replicate < 1) throw new RangeError(`a replicate is an integer >= 1, got ${replicate}`);
  return { dataset, input: INPUT_FORM[dataset], negatives: { kind: "in-batch" }, seed, ...(replicate > 1 ? { replicate } : {}), asReleased: false };
}

/** DPR (IBN): in-batch negatives only, on the dataset's conversational input. */
export function ibn(dataset: DatasetName, seed: number, replicate = 1): DprVariant {
  return base(dataset, seed, replicate);
}

/** DPR^shortcut: trained and evaluated on X_t \ {q_t}, in-batch negatives. */
export function shortcut(dataset: DatasetName, seed: number, replicate = 1): DprVariant {
  return { ...base(dataset, seed, replicate), input: "history_without_q" };
}

/** IHN iteration i (1 = IBN); i > 1 retrains from θ0 with negatives mined by iteration i-1 of the same seed (and replicate). */
export function ihn(dataset: DatasetName, i: number, seed: number, replicate = 1): DprVariant {
  if (!Number.isInteger(i) || i < 1) throw new RangeError(`IHN iteration must be an integer >= 1, got ${i}`);
  return i === 1 ? ibn(dataset, seed, replicate) : { ...base(dataset, seed, replicate), negatives: { kind: "model", from: ihn(dataset, i - 1, seed, replicate) } };
}

/** The seed the trainer shuffles with: the study seed, moved by REPLICATE_SEED_STRIDE per replicate after the first. */
export const trainerSeedOf = (v: DprVariant): number => v.seed + REPLICATE_SEED_STRIDE * ((v.replicate ?? 1) - 1);

/** The seed part of step names: s3, or s3.r2 for replicate 2 of seed 3. */
export const seedTag = (v: DprVariant): string => `s${v.seed}${(v.replicate ?? 1) > 1 ? `.r${v.replicate}` : ""}`;

/** One round from θ0 with negatives mined by BM25 over X_t, BM25 over the gold rewrite, or θ0 on the rewrite (CQR). */
export function mined(dataset: DatasetName, source: MinedSource, seed: number): DprVariant {
  return { ...base(dataset, seed), negatives: { kind: "mined", source } };
}

/** IHN iteration 2 as the authors' code trains it (gold kept among the mined negatives, unmasked). */
export function asReleased(dataset: DatasetName, seed: number): DprVariant {
  return { ...ihn(dataset, 2, seed), asReleased: true };
}

/** The IHN iteration of a variant: 1 unless its negatives come from a model of the chain. */
export function iterationOf(v: DprVariant): number {
  return v.negatives.kind === "model" ? iterationOf(v.negatives.from) + 1 : 1;
}

/** A short, readable name for step names and logs (without the seed): ibn, shortcut, ihn-2, cqr-negs, ihn-2-as-released. */
export function variantLabel(v: DprVariant): string {
  const n = v.negatives;
  let label: string;
  if (n.kind === "in-batch") label = v.input === "history_without_q" ? "shortcut" : "ibn";
  else if (n.kind === "mined") label = `${n.source}-negs`;
  else label = `ihn-${iterationOf(v)}`;
  if (v.input !== INPUT_FORM[v.dataset] && !(n.kind === "in-batch" && v.input === "history_without_q")) label += `.${v.input}`;
  return v.asReleased ? `${label}-as-released` : label;
}
