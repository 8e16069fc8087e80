/**
 * Per-searcher document bitsets of frequent terms (pure): which documents a term occurs in, one
 * bit per document, built from the term's postings once a pruned search has looked the term up
 * often enough, and kept for the searcher's later queries within a byte budget.
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
 * few). Once the budget is spent no new term is cached (no eviction: no churn, and the terms
 * that reach their lookup count first are the ones queries keep asking for); the other terms are
 * looked up as before.
 */
import type { Bm25Index } from "./index.ts";
import { BlockReader, MAX_BLOCK_SIZE, postingsView } from "./postings.ts";

/** Default budget per searcher (the 264 terms of df >= N/32 at 1M generated passages take 33 MiB). */
export const DEFAULT_BITSET_BUDGET_BYTES = 64 << 20;
/** A term is cached when df * MIN_DENSITY_INVERSE >= numDocs. */
const MIN_DENSITY_INVERSE = 32;
/** A frequent term's bitset is built once lookups * BUILD_AFTER_LOOKUPS >= df (see "When" above). */
export const BUILD_AFTER_LOOKUPS = 8;

/** The document bitset of term t: bit d % 32 of word d >>> 5 is set when t occurs in document d. */
export function termBitset(index: Pick<Bm25Index, "numDocs" | "postings" | "termBlockOffsets" | "blockStart" | "blockLastDoc">, t: number): Int32Array {
  const bits = new Int32Array((index.numDocs + 31) >>> 5);
  const r = new BlockReader();
  const docs = new Int32Array(MAX_BLOCK_SIZE);
  const tfs = new Int32Array(MAX_BLOCK_SIZE);
  const view = postingsView(index.postings);
  const first = index.termBlockOffsets[t]!;
  const end = index.termBlockOffsets[t + 1]!;
  for (let b = first; b < end; b++) {
    const n = r.open(index.postings, index.blockStart[b]!, b === first ? -1 : index.blockLastDoc[b - 1]!).decode(view, docs, tfs);
    for (let j = 0; j < n; j++) {
      const d = docs[j]!;
      bits[d >>> 5]! |= 1 << (d & 31);
    }
  }
  return bits;
}

export class TermBitsets {
  private readonly sets = new Map<number, Int32Array>();
  /** Lookups made so far in frequent terms that have no bitset yet. */
  private readonly lookups = new Map<number, number>();
  private bytes = 0;

  constructor(
    readonly index: Bm25Index,
    readonly budgetBytes: number = DEFAULT_BITSET_BUDGET_BYTES,
  ) {}

  /** Bytes held. */
  get size(): number {
    return this.bytes;
  }

  private frequent(t: number): boolean {
    return this.index.df[t]! * MIN_DENSITY_INVERSE >= this.index.numDocs;
  }

  /** Records n lookups made in term t's postings (the searcher asks for bitsets by this count). */
  countLookups(t: number, n: number): void {
    if (n > 0 && this.frequent(t) && !this.sets.has(t)) this.lookups.set(t, (this.lookups.get(t) ?? 0) + n);
  }

  /**
   * Term t's bitset: undefined for rare terms, before the term has had df / BUILD_AFTER_LOOKUPS
   * lookups, and once the budget is spent; built on the first request after that, then kept.
   */
  get(t: number): Int32Array | undefined {
    const have = this.sets.get(t);
    if (have !== undefined) return have;
    const x = this.index;
    const setBytes = ((x.numDocs + 31) >>> 5) * 4;
    if (!this.frequent(t) || (this.lookups.get(t) ?? 0) * BUILD_AFTER_LOOKUPS < x.df[t]! || this.bytes + setBytes > this.budgetBytes) return undefined;
    const bits = termBitset(x, t);
    this.sets.set(t, bits);
    this.lookups.delete(t);
    this.bytes += setBytes;
    return bits;
  }
}
