/**
 * Special tokens of BERT-style WordPiece vocabularies.
 *
 * - BERT-base uncased (the locked DPR checkpoint): [PAD]=0, [UNK]=100, [CLS]=101, [SEP]=102,
 *   [MASK]=103 ([unused0..98] fill ids 1..99). Ids are always looked up in the vocab, never assumed.
 * - Vocabularies trained by `trainWordPieceVocab` (mini benchmark) use the fixed low layout
 *   TRAINED_SPECIAL_TOKENS: [PAD]=0, [UNK]=1, [CLS]=2, [SEP]=3, [MASK]=4.
 * Padding is always id 0 in the .npy outputs, so [PAD] must be id 0 in any vocab we accept.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";

export const PAD = "[PAD]";
export const UNK = "[UNK]";
export const CLS = "[CLS]";
export const SEP = "[SEP]";
export const MASK = "[MASK]";

/** Order (and therefore ids 0..4) of the special tokens in a trained vocabulary. */
export const TRAINED_SPECIAL_TOKENS: readonly string[] = [PAD, UNK, CLS, SEP, MASK];

export interface SpecialIds {
  readonly pad: number;
  readonly unk: number;
  readonly cls: number;
  readonly sep: number;
  readonly mask: number;
}

/** Looks the five special tokens up in `vocab` (token -> id); throws InputError if one is missing or [PAD] is not 0. */
export function resolveSpecialIds(index: ReadonlyMap<string, number>, file = "vocab.txt"): SpecialIds {
  const get = (tok: string): number => {
    const id = index.get(tok);
    if (id === undefined) {
      throw new InputError(`vocabulary has no ${tok} token`, { file, fix: `add a line '${tok}' (BERT vocabularies have all of ${TRAINED_SPECIAL_TOKENS.join(" ")})` });
    }
    return id;
  };
  const ids = { pad: get(PAD), unk: get(UNK), cls: get(CLS), sep: get(SEP), mask: get(MASK) };
  if (ids.pad !== 0) {
    throw new InputError(`[PAD] has id ${ids.pad}, the token matrices pad with 0`, { file, line: ids.pad + 1, fix: "put [PAD] on the first line of vocab.txt" });
  }
  return ids;
}
