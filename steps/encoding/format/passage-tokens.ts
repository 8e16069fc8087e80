/**
 * Passage inputs (max 384 tokens):
 * - with a title (OR-QuAC, TopiOCQA): the text pair `[CLS] title [SEP] text [SEP]`, truncated
 *   "longest first" like HF tokenizers' `truncation=True` (the authors' `ctx_tokenizer(title,
 *   text_pair=..., truncation=True)`, DPR's `encode(title, text_pair=text, truncation=True)`):
 *   drop one token at a time from the end of the longer segment, the text on ties;
 * - without (QReCC, or an empty/null title, as DPR's `if title:`): `[CLS] text [SEP]`, right-truncated.
 * Token types: DPR and the authors feed all-zero segment ids to the encoders (DPR's biencoder
 * builds `torch.zeros_like(ids)`; the authors pass no token_type_ids), so "zeros" is the default;
 * "bert" gives BERT's pair types (0 for [CLS] title [SEP], 1 for text [SEP]) for other models.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { TokenEncoder } from "../tokenize/encoder.ts";
import type { SpecialIds } from "../tokenize/special-tokens.ts";
import type { EncodedSequence, PassageRow } from "./rows.ts";

export type SegmentIdScheme = "zeros" | "bert";

export interface PassageEncodingOptions {
  /** Total length including specials (paper: 384). */
  readonly maxLength?: number;
  /** Prepend the title as a text pair (OR-QuAC, TopiOCQA: true; QReCC: false). */
  readonly useTitle?: boolean;
  readonly segmentIds?: SegmentIdScheme;
}

export const DEFAULT_MAX_PASSAGE_LENGTH = 384;

/** Lengths [first, second] after HF's one-token-at-a-time longest-first truncation to `budget`. */
export function longestFirstLengths(a: number, b: number, budget: number): [number, number] {
  let excess = a + b - budget;
  if (excess <= 0) return [a, b];
  if (a > b) {
    const d = Math.min(excess, a - b);
    a -= d;
    excess -= d;
  } else if (b > a) {
    const d = Math.min(excess, b - a);
    b -= d;
    excess -= d;
  }
  // now a === b (or nothing left): alternate, the second segment first on ties
  b -= Math.ceil(excess / 2);
  a -= Math.floor(excess / 2);
  return [a, b];
}

export function assemblePassage(titleIds: readonly number[] | null, textIds: readonly number[], special: SpecialIds, maxLength: number, scheme: SegmentIdScheme = "zeros"): EncodedSequence {
  if (titleIds === null) {
    if (!Number.isInteger(maxLength) || maxLength < 2) throw new InputError(`maxLength must be an integer >= 2, got ${maxLength}`, { field: "maxLength" });
    const kept = textIds.slice(0, maxLength - 2);
    const ids = [special.cls, ...kept, special.sep];
    return { ids, typeIds: ids.map(() => 0), truncated: kept.length < textIds.length };
  }
  if (!Number.isInteger(maxLength) || maxLength < 3) throw new InputError(`maxLength must be an integer >= 3 for title pairs, got ${maxLength}`, { field: "maxLength" });
  const [na, nb] = longestFirstLengths(titleIds.length, textIds.length, maxLength - 3);
  const first = [special.cls, ...titleIds.slice(0, na), special.sep];
  const second = [...textIds.slice(0, nb), special.sep];
  const typeIds = [...first.map(() => 0), ...second.map(() => (scheme === "bert" ? 1 : 0))];
  return { ids: [...first, ...second], typeIds, truncated: na < titleIds.length || nb < textIds.length };
}

export function encodePassage(passage: PassageRow, encoder: TokenEncoder, options: PassageEncodingOptions = {}): EncodedSequence {
  const useTitle = options.useTitle ?? true;
  const title = useTitle && passage.title !== null && passage.title.trim() !== "" ? encoder.encode(passage.title) : null;
  return assemblePassage(title, encoder.encode(passage.text), encoder.special, options.maxLength ?? DEFAULT_MAX_PASSAGE_LENGTH, options.segmentIds ?? "zeros");
}
