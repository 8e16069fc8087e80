/**
 * WordPiece vocabulary trainer, in the style of Hugging Face tokenizers' `WordPieceTrainer`:
 * BPE merges over words whose non-initial characters carry the `##` prefix, rendered as a
 * WordPiece vocab. Pure and deterministic (no seed needed):
 *
 * 1. words = BERT-uncased normalisation + pre-tokenisation (bert-text.ts), counted.
 * 2. vocab = special tokens (TRAINED_SPECIAL_TOKENS: [PAD]=0 [UNK]=1 [CLS]=2 [SEP]=3 [MASK]=4),
 *    then every character seen (sorted by code point), then `##c` for every character seen in a
 *    non-initial position (sorted by code point).
 * 3. repeat: merge the most frequent adjacent pair (ties: left symbol, then right symbol, in
 *    JavaScript string order); the new token is left + right without its `##`; stop when the vocab
 *    has `vocabSize` tokens, no pair is left, or the best pair occurs fewer than `minFrequency`
 *    times. A merge whose result already exists reuses that token (as HF does).
 * The alphabet is always kept whole, so the vocab can exceed `vocabSize` when the alphabet does.
 * Differences from HF: HF breaks count ties by internal ids (insertion order of a hash map) and
 * adds `##c` symbols in word-iteration order; we sort, so ids are stable across runs and machines.
 */
import { bertWords } from "./bert-text.ts";
import { PairHeap } from "./pair-heap.ts";
import { TRAINED_SPECIAL_TOKENS } from "./special-tokens.ts";

export interface WordPieceTrainerParams {
  /** Target vocabulary size including special tokens. */
  readonly vocabSize: number;
  /** A pair must occur at least this often to be merged (HF BertWordPieceTokenizer default: 2). */
  readonly minFrequency?: number;
  readonly specialTokens?: readonly string[];
  readonly continuingSubwordPrefix?: string;
  readonly onProgress?: (done: number, total?: number) => void;
}

export interface WordPieceTrainingResult {
  /** id -> token; write with writeVocabFile. */
  readonly vocab: string[];
  /** Merges in order, as [left, right] symbol strings. */
  readonly merges: [string, string][];
}

/** Counts BERT words over texts; call repeatedly with the same map to stream several sources. */
export function countWords(texts: Iterable<string>, counts: Map<string, number> = new Map()): Map<string, number> {
  for (const text of texts) {
    for (const w of bertWords(text)) counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

const PAIR_BASE = 2 ** 22; // symbol ids stay below 4M, so a*BASE+b is an exact integer key
const key = (a: number, b: number): number => a * PAIR_BASE + b;

export function trainWordPieceFromCounts(wordCounts: ReadonlyMap<string, number>, params: WordPieceTrainerParams): WordPieceTrainingResult {
  const prefix = params.continuingSubwordPrefix ?? "##";
  const minFrequency = params.minFrequency ?? 2;
  const specials = params.specialTokens ?? TRAINED_SPECIAL_TOKENS;
  if (!Number.isInteger(params.vocabSize) || params.vocabSize < 1) throw new RangeError(`vocabSize must be a positive integer, got ${params.vocabSize}`);

  const vocab: string[] = [];
  const ids = new Map<string, number>();
  const add = (t: string): number => {
    let id = ids.get(t);
    if (id === undefined) {
      id = vocab.length;
      vocab.push(t);
      ids.set(t, id);
    }
    return id;
  };
  specials.forEach(add);

  const words = [...wordCounts.keys()].sort();
  const freqs = words.map((w) => wordCounts.get(w)!);
  const byCodePoint = (x: string, y: string): number => x.codePointAt(0)! - y.codePointAt(0)!;
  const initial = new Set<string>();
  const continuation = new Set<string>();
  for (const w of words) {
    [...w].forEach((c, i) => (i === 0 ? initial : continuation).add(c));
  }
  const alphabet = new Set([...initial, ...continuation]);
  [...alphabet].sort(byCodePoint).forEach(add);
  [...continuation].sort(byCodePoint).forEach((c) => add(prefix + c));

  const symbols: number[][] = words.map((w) => [...w].map((c, i) => ids.get(i === 0 ? c : prefix + c)!));
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const bump = (k: number, delta: number, wi: number): void => {
    pairCount.set(k, (pairCount.get(k) ?? 0) + delta);
    if (delta > 0) {
      let s = pairWords.get(k);
      if (!s) pairWords.set(k, (s = new Set()));
      s.add(wi);
    }
  };
  symbols.forEach((syms, wi) => {
    for (let i = 0; i + 1 < syms.length; i++) bump(key(syms[i]!, syms[i + 1]!), freqs[wi]!, wi);
  });
  const heap = new PairHeap(vocab);
  for (const [k, count] of pairCount) heap.push({ count, a: Math.floor(k / PAIR_BASE), b: k % PAIR_BASE });

  const merges: [string, string][] = [];
  const target = params.vocabSize;
  while (vocab.length < target) {
    const top = heap.pop();
    if (top === undefined) break;
    const k = key(top.a, top.b);
    if (pairCount.get(k) !== top.count) continue; // stale
    if (top.count < minFrequency || top.count <= 0) break;
    const left = vocab[top.a]!;
    const right = vocab[top.b]!;
    const merged = add(left + (right.startsWith(prefix) ? right.slice(prefix.length) : right));
    merges.push([left, right]);
    const touched = new Set<number>();
    for (const wi of [...(pairWords.get(k) ?? [])].sort((x, y) => x - y)) {
      const old = symbols[wi]!;
      const f = freqs[wi]!;
      const next: number[] = [];
      for (let i = 0; i < old.length; i++) {
        if (i + 1 < old.length && old[i] === top.a && old[i + 1] === top.b) {
          next.push(merged);
          i++;
        } else next.push(old[i]!);
      }
      if (next.length === old.length) continue;
      for (let i = 0; i + 1 < old.length; i++) {
        const pk = key(old[i]!, old[i + 1]!);
        bump(pk, -f, wi);
        touched.add(pk);
      }
      for (let i = 0; i + 1 < next.length; i++) {
        const pk = key(next[i]!, next[i + 1]!);
        bump(pk, f, wi);
        touched.add(pk);
      }
      symbols[wi] = next;
    }
    pairCount.delete(k);
    pairWords.delete(k);
    for (const pk of [...touched].sort((x, y) => x - y)) {
      const c = pairCount.get(pk);
      if (c === undefined) continue;
      if (c <= 0) {
        pairCount.delete(pk);
        pairWords.delete(pk);
      } else heap.push({ count: c, a: Math.floor(pk / PAIR_BASE), b: pk % PAIR_BASE });
    }
    params.onProgress?.(vocab.length, target);
  }
  return { vocab, merges };
}

/** Trains on an iterable of texts (passages, questions, answers). */
export function trainWordPieceVocab(texts: Iterable<string>, params: WordPieceTrainerParams): WordPieceTrainingResult {
  return trainWordPieceFromCounts(countWords(texts), params);
}
