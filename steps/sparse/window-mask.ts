/**
 * The document mask of an inner window of the pruned search (pure): which documents of the window
 * can still reach θ, told 32 at a time from the clauses' document bitsets (./term-bitsets.ts). The
 * essential clauses (./block-max.ts) make no candidate of a document outside it.
 *
 * The rule. A document scores at most the sum of the window maxima of the clauses it contains, so
 * to reach θ it must contain
 *   1. every *required* clause: one without which the other clauses' maxima sum below θ;
 *   2. at least `need` of the other clauses: the fewest of their largest maxima that bring the
 *      required clauses' sum to θ.
 * A clause without a bitset counts as present, so (2) asks `need` minus the number of those of the
 * clauses that have one. Bounds are inflated as everywhere (INFLATE, ./cursors.ts), so a document
 * ruled out scores strictly below θ: a document tying θ is kept (it may win on its id).
 *
 * Why: on queries of frequent terms only (among the slowest of the bench's generated queries at
 * 10M) θ needs most of the terms, and most candidates hold one or two of them; each would be made,
 * tested against θ and looked up in the other clauses, one at a time. It does not reach long
 * queries of mid-frequency terms: those get no bitsets (df < N/32) and count as present.
 *
 * Cost: a word of mask costs an AND per required bitset and `least` operations per counted one; a
 * posting ruled out saves a candidate (a pass-1 test and some lookup-clause tests, ~MASK_SAVES
 * word operations). From the terms' densities (taken as independent, an estimate) the mask is
 * built only when the postings it is expected to rule out save more than it costs.
 *
 * Bitsets are built by use (./term-bitsets.ts): a frequent clause the mask would read and that has
 * no bitset yet counts the documents of the window as lookups towards building one (`countUses`).
 */
import { INFLATE, type Cursors } from "./cursors.ts";
import { mayHaveBitset } from "./term-bitsets.ts";

const f = Math.fround;
/** Word operations of mask a posting it rules out saves (see "Cost" above; measured in bench/bm25, not tuned on the hits). */
const MASK_SAVES = 4;

export class WindowMask {
  /** The mask: bit d % 32 of word (d >>> 5) - base for document d. */
  readonly words: Int32Array;
  base = 0;
  private cap = 0;
  /** Bitsets the mask reads: the required clauses' from the front, the counted ones' from the back. */
  private sets: Int32Array[] = [];
  private density = new Float64Array(0);
  private exactly = new Float64Array(0);
  /** Row t (one window of words each): the documents in >= t of the counted clauses so far. */
  private atLeast = new Int32Array(0);
  private prefix = new Float64Array(0);
  private required = new Uint8Array(0);
  private hasSet = new Uint8Array(0);
  /** Frequent clauses the mask would read if they had a bitset. */
  private wanted = new Int32Array(0);
  private nWanted = 0;
  /** Whether some clause of the query is frequent enough to have a bitset: else no mask is tried. */
  private maskable = false;

  constructor(private readonly windowWords: number) {
    this.words = new Int32Array(windowWords + 1);
  }

  /** Room for m clauses. */
  ensure(m: number): void {
    if (m <= this.cap) return;
    const n = Math.max(m, this.cap * 2, 8);
    this.sets = new Array<Int32Array>(n).fill(this.words);
    this.density = new Float64Array(n);
    this.exactly = new Float64Array(n + 1);
    this.atLeast = new Int32Array((n + 1) * (this.windowWords + 1));
    this.prefix = new Float64Array(n + 1);
    this.required = new Uint8Array(n);
    this.hasSet = new Uint8Array(n);
    this.wanted = new Int32Array(n);
    this.cap = n;
  }

  /** Before a query's first window (c reset to its m clauses). */
  startQuery(c: Cursors, m: number): void {
    this.maskable = false;
    for (let i = 0; i < m; i++) if (mayHaveBitset(c.df[i]!, c.index.numDocs)) this.maskable = true;
  }

  /**
   * Builds the mask of the documents [lo, hi) at threshold theta, for clauses with window maxima
   * wmax (ord: the clauses by ascending window max; the ranks from ne on are the essential ones);
   * false when no mask is built (it would rule nothing out, or cost more than it saves).
   */
  build(c: Cursors, wmax: Float64Array, ord: Int32Array, ne: number, m: number, lo: number, hi: number, theta: number): boolean {
    this.nWanted = 0;
    if (theta === -Infinity || !this.maskable) return false;
    const numDocs = c.index.numDocs;
    const { prefix, required, hasSet, sets, density, wanted, words: mask, atLeast } = this;
    prefix[0] = 0;
    for (let i = 0; i < m; i++) prefix[i + 1] = prefix[i]! + wmax[i]!;
    let nAll = 0;
    let firstCounted = m;
    let sumRequired = 0;
    let suffix = 0;
    let unknown = 0;
    let pass = 1; // estimated fraction of the documents that pass
    for (let i = m - 1; i >= 0; i--) {
      const without = prefix[i]! + suffix; // every clause but i (sums of non-negatives: no cancellation)
      suffix += wmax[i]!;
      required[i] = wmax[i]! > 0 && f(without * INFLATE) < theta ? 1 : 0;
      const bits = c.filter(i);
      hasSet[i] = bits === undefined ? 0 : 1;
      if (required[i] === 1) {
        sumRequired += wmax[i]!;
        if (bits !== undefined) {
          sets[nAll++] = bits;
          pass *= c.df[i]! / numDocs;
        }
      } else if (bits !== undefined) {
        sets[--firstCounted] = bits;
        density[firstCounted] = c.df[i]! / numDocs;
      } else unknown++;
    }
    let need = 0;
    let reach = sumRequired;
    for (let j = m - 1; j >= 0 && f(reach * INFLATE) < theta; j--) {
      const i = ord[j]!; // the largest window maxima first
      if (required[i] === 1) continue;
      reach += wmax[i]!;
      need++;
    }
    for (let i = 0; i < m; i++) if ((required[i] === 1 || need > 0) && hasSet[i] === 0 && mayHaveBitset(c.df[i]!, numDocs)) wanted[this.nWanted++] = i;
    const none = f(reach * INFLATE) < theta; // no document of the window can reach θ
    const least = need - unknown;
    const nCounted = m - firstCounted;
    if (!none && nAll === 0 && least <= 0) return false;
    const top = Math.min(hi, numDocs);
    const count = ((top - 1) >>> 5) - (lo >>> 5) + 1;
    if (!none) {
      if (least > 0) {
        // P(>= least of the counted clauses) by their densities; exactly[t]: P(t of them so far), t < least
        const exactly = this.exactly;
        exactly[0] = 1;
        for (let t = 1; t < least; t++) exactly[t] = 0;
        for (let a = firstCounted; a < m; a++) {
          const p = density[a]!;
          for (let t = least - 1; t >= 1; t--) exactly[t] = exactly[t]! * (1 - p) + exactly[t - 1]! * p;
          exactly[0] = exactly[0]! * (1 - p);
        }
        let below = 0;
        for (let t = 0; t < least; t++) below += exactly[t]!;
        pass *= 1 - below;
      }
      let postings = 0; // expected postings of the essential clauses in the window
      for (let j = ne; j < m; j++) postings += c.df[ord[j]!]! / numDocs;
      postings *= top - lo;
      if ((1 - pass) * postings * MASK_SAVES < count * (nAll + (least > 0 ? nCounted * least : 0))) return false;
    }
    const base = lo >>> 5;
    this.base = base;
    const empty = none || least > nCounted;
    mask.fill(empty ? 0 : -1, 0, count);
    if (empty) return true;
    for (let a = 0; a < nAll; a++) {
      const set = sets[a]!;
      for (let w = 0; w < count; w++) mask[w]! &= set[base + w]!;
    }
    if (least > 0) {
      atLeast.fill(-1, 0, count);
      atLeast.fill(0, count, (least + 1) * count);
      for (let a = firstCounted; a < m; a++) {
        const set = sets[a]!;
        for (let t = Math.min(least, a - firstCounted + 1); t >= 1; t--) {
          const row = t * count;
          const below = row - count;
          for (let w = 0; w < count; w++) atLeast[row + w]! |= atLeast[below + w]! & set[base + w]!;
        }
      }
      const row = least * count;
      for (let w = 0; w < count; w++) mask[w]! &= atLeast[row + w]!;
    }
    return true;
  }

  /** After the window: the n documents it held count as lookups towards the bitsets the last `build` wanted. */
  countUses(c: Cursors, n: number): void {
    for (let a = 0; a < this.nWanted; a++) c.countUses(this.wanted[a]!, n);
  }
}
