/**
 * Document bitsets of frequent terms (pure): which documents a term occurs in, one bit per
 * document, built from the term's postings once a pruned search has looked the term up often
 * enough, and kept for later queries (of this searcher and of those sharing its pool) within a
 * byte budget.
 *
 * Why: most random-access lookups of the pruned searcher go to frequent terms (df >= N/32 carried
 * ~90% of them at 1M generated passages) and most of those miss (~84%): a lookup opens the block
 * that could hold the document and binary searches it only to find the document absent. A bit
 * test answers "absent" without touching the postings; only the present documents are searched
 * (for their tf). The bits are read from the same postings the search would read, so nothing about
 * the scores changes.
 *
 * When: a bitset costs one pass over the term's postings (13-25 ns a posting at 1M generated
 * passages), a lookup ~100 ns (the CPU time the bitsets saved per lookup they answered, same
 * index). So a term's bitset is built only once the searcher has made df / BUILD_AFTER_LOOKUPS
 * lookups in it: by then the lookups have cost about what the build costs, so a searcher that
 * answers a handful of queries never pays for bitsets it cannot use, and one that answers
 * thousands pays at most about twice the lookups it would have made anyway (the ski-rental rule).
 *
 * Memory: numDocs / 8 bytes per cached term (125 KB at 1M documents); terms rarer than N/32 are
 * never cached (their postings are no larger than a few bytes per 32 documents, the lookups are
 * few). The bitsets live in a pool with a byte budget (default: a quarter of the postings, see
 * defaultBitsetBudget), which the worker threads of a parallel search share, so a bitset is built
 * once per search, not once per thread. Once the budget is spent no new term is cached (no
 * eviction: no churn, and the terms that reach their lookup count first are the ones queries keep
 * asking for); the other terms are looked up as before.
 */
import type { Bm25Index } from "./index.ts";
import { BlockReader, MAX_BLOCK_SIZE, postingsView } from "./postings.ts";

/** The least default budget (a small index still gets room for its frequent terms). */
export const MIN_DEFAULT_BITSET_BUDGET_BYTES = 64 << 20;
/** A term is cached when df * MIN_DENSITY_INVERSE >= numDocs. */
const MIN_DENSITY_INVERSE = 32;
/** A frequent term's bitset is built once lookups * BUILD_AFTER_LOOKUPS >= df (see "When" above). */
export const BUILD_AFTER_LOOKUPS = 8;

type PoolIndex = Pick<Bm25Index, "numDocs" | "df" | "numTerms" | "postings">;

/** 32-bit words of one bitset over numDocs documents. */
const wordsPerSet = (numDocs: number): number => (numDocs + 31) >>> 5;

/**
 * The default budget: a quarter of the index's postings bytes, at least 64 MiB. The bitsets of
 * every term with df >= N/32 took 23% of the postings at 1M and 10M generated passages (33 and
 * ~330 MB), so the default holds them all there, and a search never needs more than 1.25x the
 * index's memory for them however many threads share them.
 */
export function defaultBitsetBudget(index: Pick<Bm25Index, "postings">): number {
  return Math.max(MIN_DEFAULT_BITSET_BUDGET_BYTES, Math.floor(index.postings.byteLength / 4));
}

/** Whether a term of document frequency df may get a bitset (df >= numDocs / 32). */
export const mayHaveBitset = (df: number, numDocs: number): boolean => df * MIN_DENSITY_INVERSE >= numDocs;

/** Terms that may get a bitset, ascending: slot k of a pool belongs to the k-th. */
export function frequentTerms(index: PoolIndex): number[] {
  const out: number[] = [];
  for (let t = 0; t < index.numTerms; t++) if (mayHaveBitset(index.df[t]!, index.numDocs)) out.push(t);
  return out;
}

/**
 * Room for bitsets, shared by every searcher given it (in worker threads too: with `shared` the
 * arrays are SharedArrayBuffers, and workerData passes them without copying). Plain data:
 *   state[0]      bitsets allocated so far (may run past `capacity`: those were refused);
 *   state[1 + k]  the k-th frequent term's bitset: 0 none yet, -1 being built by some searcher,
 *                 -2 refused (the pool is full), else 1 + its first word in `words`;
 *   words         `capacity` bitsets of `wordsPerSet` words each, filled once each.
 * A searcher that finds a bitset being built elsewhere looks the postings up meanwhile.
 */
export interface BitsetPool {
  readonly state: Int32Array;
  readonly words: Int32Array;
  readonly wordsPerSet: number;
  readonly capacity: number;
}

/** A pool for `index` holding at most `budgetBytes` of bitsets (and no more than its frequent terms need). */
export function bitsetPool(index: PoolIndex, budgetBytes: number = defaultBitsetBudget(index), shared = false): BitsetPool {
  const frequent = frequentTerms(index).length;
  const words = wordsPerSet(index.numDocs);
  const capacity = Math.min(frequent, Math.floor(budgetBytes / (words * 4)));
  const ints = (n: number): Int32Array => (shared ? new Int32Array(new SharedArrayBuffer(n * 4)) : new Int32Array(n));
  return { state: ints(1 + frequent), words: ints(capacity * words), wordsPerSet: words, capacity };
}

/** Sets the bits of term t's documents in `bits` (zeroed, wordsPerSet(numDocs) words): bit d % 32 of word d >>> 5 for document d. */
export function fillTermBitset(index: Pick<Bm25Index, "postings" | "termBlockOffsets" | "blockStart" | "blockLastDoc">, t: number, bits: Int32Array): Int32Array {
  const r = new BlockReader();
  const docs = new Int32Array(MAX_BLOCK_SIZE);
  const view = postingsView(index.postings);
  const first = index.termBlockOffsets[t]!;
  const end = index.termBlockOffsets[t + 1]!;
  for (let b = first; b < end; b++) {
    const n = r.open(index.postings, index.blockStart[b]!, b === first ? -1 : index.blockLastDoc[b - 1]!).decodeDocs(view, docs);
    for (let j = 0; j < n; j++) {
      const d = docs[j]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  }
  return bits;
}

/** The document bitset of term t, in new memory. */
export function termBitset(index: Pick<Bm25Index, "numDocs" | "postings" | "termBlockOffsets" | "blockStart" | "blockLastDoc">, t: number): Int32Array {
  return fillTermBitset(index, t, new Int32Array(wordsPerSet(index.numDocs)));
}

/** One searcher's view of a pool: its own lookup counts, the pool's bitsets. */
export class TermBitsets {
  private readonly sets = new Map<number, Int32Array>();
  /** Lookups made so far in frequent terms that have no bitset yet. */
  private readonly lookups = new Map<number, number>();
  /** Frequent term -> its slot in the pool. */
  private readonly slots = new Map<number, number>();
  readonly pool: BitsetPool;

  /** With a budget in bytes, a pool of its own; with a pool, that pool (shared with other searchers). */
  constructor(
    readonly index: Bm25Index,
    poolOrBudget: BitsetPool | number = defaultBitsetBudget(index),
  ) {
    this.pool = typeof poolOrBudget === "number" ? bitsetPool(index, poolOrBudget) : poolOrBudget;
    frequentTerms(index).forEach((t, k) => this.slots.set(t, k));
    const words = wordsPerSet(index.numDocs);
    if (this.slots.size + 1 !== this.pool.state.length || this.pool.wordsPerSet !== words) {
      throw new Error(`a bitset pool for another index (${this.pool.state.length - 1} frequent terms, ${this.pool.wordsPerSet} words a set; this index: ${this.slots.size}, ${words})`);
    }
  }

  /** Bytes of bitsets the pool holds (all its searchers together). */
  get size(): number {
    return Math.min(Atomics.load(this.pool.state, 0), this.pool.capacity) * this.pool.wordsPerSet * 4;
  }

  /** Records n lookups made in term t's postings (the searcher asks for bitsets by this count). */
  countLookups(t: number, n: number): void {
    if (n > 0 && this.slots.has(t) && !this.sets.has(t)) this.lookups.set(t, (this.lookups.get(t) ?? 0) + n);
  }

  /**
   * Term t's bitset: undefined for rare terms, before this searcher has made df / BUILD_AFTER_LOOKUPS
   * lookups in it, while another searcher builds it and once the pool is full; built on the first
   * request after that (by this searcher, into the pool), then kept.
   */
  get(t: number): Int32Array | undefined {
    const have = this.sets.get(t);
    if (have !== undefined) return have;
    const k = this.slots.get(t);
    if (k === undefined || (this.lookups.get(t) ?? 0) * BUILD_AFTER_LOOKUPS < this.index.df[t]!) return undefined;
    const { state, words, wordsPerSet, capacity } = this.pool;
    let at = Atomics.load(state, 1 + k);
    if (at === 0 && Atomics.compareExchange(state, 1 + k, 0, -1) === 0) {
      // this searcher builds it
      const slot = Atomics.add(state, 0, 1);
      if (slot >= capacity) {
        Atomics.store(state, 1 + k, -2);
        return undefined;
      }
      fillTermBitset(this.index, t, words.subarray(slot * wordsPerSet, (slot + 1) * wordsPerSet));
      at = 1 + slot * wordsPerSet;
      Atomics.store(state, 1 + k, at); // publishes the words written above (Atomics are sequentially consistent)
    }
    if (at <= 0) return undefined; // being built elsewhere, or refused
    const bits = words.subarray(at - 1, at - 1 + wordsPerSet);
    this.sets.set(t, bits);
    this.lookups.delete(t);
    return bits;
  }
}
