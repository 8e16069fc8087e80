/** The tokenizer contract the formatting code depends on (library-backed or reference). */
import type { SpecialIds } from "./special-tokens.ts";

export interface TokenEncoder {
  /** Which implementation ("hf-tokenizers" or "reference"); recorded in sidecars. */
  readonly implementation: string;
  readonly vocabSize: number;
  /** sha256 of the canonical vocab.txt (see vocab.ts). */
  readonly vocabDigest: string;
  readonly special: SpecialIds;
  /** WordPiece ids of `text`, no special tokens added, no truncation. */
  encode(text: string): number[];
  /** Same as encode, as token strings (tests, debugging). */
  tokenize(text: string): string[];
  idToToken(id: number): string | undefined;
}
