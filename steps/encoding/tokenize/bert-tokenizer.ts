/**
 * BERT-uncased WordPiece tokenizer on top of `@huggingface/tokenizers` (pure TS port of the
 * inference side of HF tokenizers), loaded from the tokenizer.json built by
 * `buildBertTokenizerJson`. This is the tokenizer the pipeline uses.
 *
 * The library (0.2.0) deviates from HF's Rust BertNormalizer in three corner cases; we fix
 * them by pre-processing the text before handing it over (results then equal the Rust
 * tokenizer and our reference, see test/encoding/tokenize/bert-tokenizer.test.ts):
 * - CJK ideographs outside the BMP (U+20000..) are not split (it tests UTF-16 units):
 *   we put the spaces around them ourselves;
 * - unassigned code points (Cn) are not dropped by clean_text: we drop them;
 * - it lowercases the whole string, so a word-final 'Σ' becomes 'ς'; Rust lowercases per char
 *   ('σ'): we map 'Σ' to 'σ' first.
 * All three only touch non-ASCII text; ASCII text goes to the library unchanged.
 */
import { Tokenizer } from "@huggingface/tokenizers";
import { isBertChineseChar } from "./bert-text.ts";
import { buildBertTokenizerConfig, buildBertTokenizerJson, type BertTokenizerJsonOptions } from "./bert-tokenizer-json.ts";
import type { TokenEncoder } from "./encoder.ts";
import { resolveSpecialIds } from "./special-tokens.ts";
import type { Vocab } from "./vocab.ts";

const NEEDS_FIX = /[\u0080-\u{10FFFF}]/u;
const FIX = /[\p{Cn}Σ]|[\u{20000}-\u{2FA1F}]/gu;

/** The pre-processing described above (identity on ASCII). */
export function fixForLibrary(text: string): string {
  if (!NEEDS_FIX.test(text)) return text;
  return text.replace(FIX, (ch) => {
    if (ch === "Σ") return "σ";
    const cp = ch.codePointAt(0)!;
    if (isBertChineseChar(cp)) return ` ${ch} `;
    if (/\p{Cn}/u.test(ch)) return "";
    return ch;
  });
}

export function createBertTokenizer(vocab: Vocab, options: BertTokenizerJsonOptions = {}): TokenEncoder {
  const special = resolveSpecialIds(vocab.index);
  const tok = new Tokenizer(buildBertTokenizerJson(vocab, options), buildBertTokenizerConfig(options));
  return {
    implementation: "hf-tokenizers",
    vocabSize: vocab.tokens.length,
    vocabDigest: vocab.digest,
    special,
    encode: (text): number[] => tok.encode(fixForLibrary(text), { add_special_tokens: false }).ids,
    tokenize: (text): string[] => tok.tokenize(fixForLibrary(text), { add_special_tokens: false }),
    idToToken: (id) => vocab.tokens[id],
  };
}
