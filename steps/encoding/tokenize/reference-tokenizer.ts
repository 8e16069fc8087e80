/**
 * A small pure-TS BERT WordPiece tokenizer (greedy longest-match-first, `##` continuation,
 * whole word -> [UNK] when it cannot be covered or has more than `maxInputCharsPerWord`
 * code points). It is the cross-check and benchmark peer of the library-backed tokenizer.
 * Special-token strings inside the text ("[SEP]" etc.) become the special token, as in HF.
 */
import { bertWords } from "./bert-text.ts";
import type { TokenEncoder } from "./encoder.ts";
import { resolveSpecialIds, TRAINED_SPECIAL_TOKENS } from "./special-tokens.ts";
import type { Vocab } from "./vocab.ts";

export interface WordPieceOptions {
  readonly maxInputCharsPerWord?: number;
  readonly continuingSubwordPrefix?: string;
}

/** WordPiece of one pre-tokenised word: token strings. */
export function wordPieceWord(word: string, index: ReadonlyMap<string, number>, unk: string, maxChars = 100, prefix = "##", maxTokenChars = Infinity): string[] {
  const chars = [...word];
  if (chars.length > maxChars) return [unk];
  const out: string[] = [];
  let start = 0;
  while (start < chars.length) {
    let end = Math.min(chars.length, start + maxTokenChars);
    let found: string | null = null;
    while (start < end) {
      const piece = (start > 0 ? prefix : "") + chars.slice(start, end).join("");
      if (index.has(piece)) {
        found = piece;
        break;
      }
      end--;
    }
    if (found === null) return [unk];
    out.push(found);
    start = end;
  }
  return out;
}

export function createReferenceTokenizer(vocab: Vocab, options: WordPieceOptions = {}): TokenEncoder {
  const special = resolveSpecialIds(vocab.index);
  const maxChars = options.maxInputCharsPerWord ?? 100;
  const prefix = options.continuingSubwordPrefix ?? "##";
  let maxTokenChars = 1;
  for (const t of vocab.tokens) {
    const n = [...(t.startsWith(prefix) ? t.slice(prefix.length) : t)].length;
    if (n > maxTokenChars) maxTokenChars = n;
  }
  const specials = TRAINED_SPECIAL_TOKENS.filter((t) => vocab.index.has(t));
  const splitter = new RegExp(`(${specials.map((s) => s.replace(/[[\]]/g, "\\$&")).join("|")})`);
  const tokenize = (text: string): string[] => {
    const out: string[] = [];
    for (const part of text.split(splitter)) {
      if (part === "") continue;
      if (vocab.index.has(part) && specials.includes(part)) {
        out.push(part);
        continue;
      }
      for (const w of bertWords(part)) out.push(...wordPieceWord(w, vocab.index, "[UNK]", maxChars, prefix, maxTokenChars));
    }
    return out;
  };
  return {
    implementation: "reference",
    vocabSize: vocab.tokens.length,
    vocabDigest: vocab.digest,
    special,
    tokenize,
    encode: (text) => tokenize(text).map((t) => vocab.index.get(t)!),
    idToToken: (id) => vocab.tokens[id],
  };
}
