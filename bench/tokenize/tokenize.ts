/**
 * Tokenizer throughput: @huggingface/tokenizers (the pipeline's tokenizer, via
 * createBertTokenizer) vs our pure-TS reference WordPiece, same vocab, same texts, same run.
 * Also times the WordPiece trainer. Synthetic deterministic corpus (no data needed):
 *   npx tsx bench/tokenize/tokenize.ts [passages=3000] [--quick]   (--quick: 500 passages)
 */
import { performance } from "node:perf_hooks";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { createReferenceTokenizer } from "../../steps/encoding/tokenize/reference-tokenizer.ts";
import type { TokenEncoder } from "../../steps/encoding/tokenize/encoder.ts";
import { vocabFromTokens } from "../../steps/encoding/tokenize/vocab.ts";
import { trainWordPieceVocab } from "../../steps/encoding/tokenize/wordpiece-trainer.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

const positional = process.argv.slice(2).find((a) => !a.startsWith("-"));
const n = Number(positional ?? (process.argv.includes("--quick") ? 500 : 3000));
const next = mulberry32(42);
const rnd = (k: number): number => Math.floor(next() * k);
const syl = ["ka", "ri", "to", "men", "sa", "lo", "ve", "qu", "an", "der", "ing", "tion", "pre", "ex", "ou", "th", "é", "ß"];
const lexicon = Array.from({ length: 3000 }, () => Array.from({ length: 1 + rnd(4) }, () => syl[rnd(syl.length)]).join(""));
const punct = [",", ".", "?", "'s", " (1990)", ";"];
const passage = (): string =>
  Array.from({ length: 120 + rnd(80) }, (_, i) => {
    const w = lexicon[Math.floor(Math.sqrt(rnd(lexicon.length * lexicon.length)))]!; // skewed frequencies
    return (i % 9 === 0 ? w[0]!.toUpperCase() + w.slice(1) : w) + (rnd(8) === 0 ? punct[rnd(punct.length)]! : "");
  }).join(" ");
const texts = Array.from({ length: n }, passage);
const chars = texts.reduce((a, t) => a + t.length, 0);

let t0 = performance.now();
const { vocab } = trainWordPieceVocab(texts, { vocabSize: 8000, minFrequency: 2 });
const trainMs = performance.now() - t0;
const v = vocabFromTokens(vocab);
console.log(`corpus: ${n} passages, ${(chars / 1e6).toFixed(2)} M chars; trained vocab ${vocab.length} tokens in ${(trainMs / 1000).toFixed(2)} s`);

function measure(enc: TokenEncoder): { tokens: number; ms: number } {
  for (const t of texts.slice(0, 200)) enc.encode(t); // warm-up
  let best = Infinity;
  let tokens = 0;
  for (let rep = 0; rep < 3; rep++) {
    t0 = performance.now();
    tokens = 0;
    for (const t of texts) tokens += enc.encode(t).length;
    best = Math.min(best, performance.now() - t0);
  }
  return { tokens, ms: best };
}

const lib = measure(createBertTokenizer(v));
const ref = measure(createReferenceTokenizer(v));
if (lib.tokens !== ref.tokens) throw new Error(`token counts differ: library ${lib.tokens}, reference ${ref.tokens}`);
const rate = (r: { tokens: number; ms: number }): number => r.tokens / (r.ms / 1000);
console.log(`@huggingface/tokenizers: ${(rate(lib) / 1e6).toFixed(3)} M tokens/s (${lib.tokens} tokens, best of 3: ${lib.ms.toFixed(0)} ms)`);
console.log(`reference (pure TS):     ${(rate(ref) / 1e6).toFixed(3)} M tokens/s (${ref.tokens} tokens, best of 3: ${ref.ms.toFixed(0)} ms)`);
console.log(`ratio library/reference: ${(rate(lib) / rate(ref)).toFixed(2)}x`);
