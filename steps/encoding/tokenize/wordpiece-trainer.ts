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

/** id -> token and back, growing: adding a token already there gives its id. */
class VocabIds {
  readonly vocab: string[] = [];
  private readonly ids = new Map<string, number>();
  add(t: string): number {
    let id = this.ids.get(t);
    if (id === undefined) {
      id = this.vocab.length;
      this.vocab.push(t);
      this.ids.set(t, id);
    }
    return id;
  }
  id(t: string): number {
    return this.ids.get(t)!;
  }
}

/** Every character seen (sorted by code point), then `##c` for every character seen in a non-initial position. */
function addAlphabet(v: VocabIds, words: readonly string[], prefix: string): void {
  const byCodePoint = (x: string, y: string): number => x.codePointAt(0)! - y.codePointAt(0)!;
  const initial = new Set<string>();
  const continuation = new Set<string>();
  for (const w of words) {
    [...w].forEach((c, i) => (i === 0 ? initial : continuation).add(c));
  }
  const alphabet = new Set([...initial, ...continuation]);
  [...alphabet].sort(byCodePoint).forEach((c) => v.add(c));
  [...continuation].sort(byCodePoint).forEach((c) => v.add(prefix + c));
}

/** Adjacent symbol pairs (keyed a*PAIR_BASE+b): each one's count over the words, weighted by frequency, and the words holding it. */
class PairIndex {
  readonly count = new Map<number, number>();
  private readonly words = new Map<number, Set<number>>();
  /** Adds `delta` to every adjacent pair of word `wi`'s symbols, noting each pair in `touched`. */
  bumpWord(syms: readonly number[], delta: number, wi: number, touched?: Set<number>): void {
    for (let i = 0; i + 1 < syms.length; i++) {
      const k = key(syms[i]!, syms[i + 1]!);
      this.count.set(k, (this.count.get(k) ?? 0) + delta);
      if (delta > 0) {
        let s = this.words.get(k);
        if (!s) this.words.set(k, (s = new Set()));
        s.add(wi);
      }
      touched?.add(k);
    }
  }
  /** The words that held pair `k` (some may no longer), in word order. */
  wordsOf(k: number): number[] {
    return [...(this.words.get(k) ?? [])].sort((x, y) => x - y);
  }
  drop(k: number): void {
    this.count.delete(k);
    this.words.delete(k);
  }
  /** The touched pairs, in key order: gone when their count fell to 0, else pushed on the heap with their new count. */
  requeue(touched: ReadonlySet<number>, heap: PairHeap): void {
    for (const k of [...touched].sort((x, y) => x - y)) {
      const c = this.count.get(k);
      if (c === undefined) continue;
      if (c <= 0) this.drop(k);
      else heap.push({ count: c, a: Math.floor(k / PAIR_BASE), b: k % PAIR_BASE });
    }
  }
}

/** A word's symbols with every (a, b) pair, left to right, replaced by `merged`. */
function mergeInWord(old: readonly number[], a: number, b: number, merged: number): number[] {
  const next: number[] = [];
  for (let i = 0; i < old.length; i++) {
    if (i + 1 < old.length && old[i] === a && old[i + 1] === b) {
      next.push(merged);
      i++;
    } else next.push(old[i]!);
  }
  return next;
}

/** Applies the merge (a, b) -> merged to every word holding it, moving their pair counts; returns the pairs whose counts changed. */
function mergeEverywhere(symbols: number[][], freqs: readonly number[], pairs: PairIndex, top: { a: number; b: number }, merged: number): Set<number> {
  const touched = new Set<number>();
  for (const wi of pairs.wordsOf(key(top.a, top.b))) {
    const old = symbols[wi]!;
    const next = mergeInWord(old, top.a, top.b, merged);
    if (next.length === old.length) continue;
    pairs.bumpWord(old, -freqs[wi]!, wi, touched);
    pairs.bumpWord(next, freqs[wi]!, wi, touched);
    symbols[wi] = next;
  }
  return touched;
}

export function trainWordPieceFromCounts(wordCounts: ReadonlyMap<string, number>, params: WordPieceTrainerParams): WordPieceTrainingResult {
  const prefix = params.continuingSubwordPrefix ?? "##";
  const minFrequency = params.minFrequency ?? 2;
  if (!Number.isInteger(params.vocabSize) || params.vocabSize < 1) throw new RangeError(`vocabSize must be a positive integer, got ${params.vocabSize}`);
  const v = new VocabIds();
  for (const t of params.specialTokens ?? TRAINED_SPECIAL_TOKENS) v.add(t);
  const words = [...wordCounts.keys()].sort();
  const freqs = words.map((w) => wordCounts.get(w)!);
  addAlphabet(v, words, prefix);
  const symbols: number[][] = words.map((w) => [...w].map((c, i) => v.id(i === 0 ? c : prefix + c)));
  const pairs = new PairIndex();
  symbols.forEach((syms, wi) => pairs.bumpWord(syms, freqs[wi]!, wi));
  const heap = new PairHeap(v.vocab);
  for (const [k, count] of pairs.count) heap.push({ count, a: Math.floor(k / PAIR_BASE), b: k % PAIR_BASE });
  const merges: [string, string][] = [];
  const target = params.vocabSize;
  while (v.vocab.length < target) {
    const top = heap.pop();
    if (top === undefined) break;
    const k = key(top.a, top.b);
    if (pairs.count.get(k) !== top.count) continue; // stale
    if (top.count < minFrequency || top.count <= 0) break;
    const left = v.vocab[top.a]!;
    const right = v.vocab[top.b]!;
    const merged = v.add(left + (right.startsWith(prefix) ? right.slice(prefix.length) : right));
    merges.push([left, right]);
    const touched = mergeEverywhere(symbols, freqs, pairs, top, merged);
    pairs.drop(k);
    pairs.requeue(touched, heap);
    params.onProgress?.(v.vocab.length, target);
  }
  return { vocab: v.vocab, merges };
}

/** Trains on an iterable of texts (passages, questions, answers). */
export function trainWordPieceVocab(texts: Iterable<string>, params: WordPieceTrainerParams): WordPieceTrainingResult {
  return trainWordPieceFromCounts(countWords(texts), params);
}
