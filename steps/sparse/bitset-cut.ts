/**
 * The bitset bound of a new candidate (pure): in an inner window of the pruned search
 * (./block-max.ts), a posting of an essential clause whose document is not yet a candidate is cut
 * (makes no candidate) when its own score plus the window maxima of the clauses still to come
 * *that the document holds* is below θ. Which of those clauses it holds is told by their document
 * bitsets (./term-bitsets.ts); a clause without a bitset counts as held.
 *
 * Why: the plain cut (its own score plus the maxima of every clause still to come) cannot touch the
 * rarest essential clauses of a long query: the clauses after them sum far above θ. On the slowest
 * queries of the bench's generated mix at 10M (10-15 words, frequent and mid-frequency ones), ~1M
 * such postings a query became candidates, and nearly all of them died at their first lookup, a
 * clear bit in a frequent clause's bitset. Reading that bit while scanning saves making, listing and
 * completing the candidate.
 *
 * The test, per posting (score s at essential rank q): the later clauses with a bitset are taken by
 * descending window maximum; `have` starts at s plus the maxima of the later clauses without one,
 * and each bit set adds its clause's maximum. The posting is kept as soon as `have` reaches θ, and
 * cut as soon as `have` plus the maxima of the clauses not yet tested is below θ. So a document
 * holding the largest clauses is kept after one or two bit tests, and one lacking them is cut after
 * one or two. Sums are of non-negative maxima in double, inflated as every bound (INFLATE,
 * ./cursors.ts): a cut document scores strictly below θ, a tie with θ is kept.
 *
 * Exactness is the argument of "New candidates" in ./block-max.ts: the bound covers every clause the
 * document can still gain (the essential ones after q and the non-essential ones), so a cut first
 * posting means a score below θ, and a later clause that makes the document a candidate gives it a
 * partial sum the heap turns away.
 */
import { INFLATE, type Cursors } from "./cursors.ts";

const f = Math.fround;

export class BitsetCut {
  private cap = 0;
  /** The window's clauses with a bitset and a positive window max, by descending window max: bitset, clause, window max. */
  private all: Int32Array[] = [];
  private allClause = new Int32Array(0);
  private allMax = new Float64Array(0);
  private nAll = 0;
  /** Per clause: its window max when it has no bitset, else 0. */
  private loose = new Float64Array(0);
  /** Per clause: its essential rank, m for a non-essential clause. */
  private rankOf = new Int32Array(0);
  /** Per essential rank: the window maxima of the clauses after it without a bitset. */
  private withoutAfter = new Float64Array(0);
  /** For the current rank: the later clauses with a bitset, their maxima, and the sum of the maxima from each on. */
  private sets: Int32Array[] = [];
  private max = new Float64Array(0);
  private from = new Float64Array(0);
  private n = 0;
  private without = 0;

  /** Room for m clauses. */
  ensure(m: number): void {
    if (m <= this.cap) return;
    const n = Math.max(m, this.cap * 2, 8);
    this.allClause = new Int32Array(n);
    this.allMax = new Float64Array(n);
    this.loose = new Float64Array(n);
    this.rankOf = new Int32Array(n);
    this.withoutAfter = new Float64Array(n);
    this.max = new Float64Array(n);
    this.from = new Float64Array(n + 1);
    this.cap = n;
  }

  /**
   * Before an inner window's essential scan: the clauses' window maxima wmax, ord (all clauses by
   * ascending window max; the ranks from ne on are essential) and eOrd (the essential clauses in
   * scan order). False when no clause has a bitset: nothing to cut by.
   */
  window(c: Pick<Cursors, "filter">, wmax: Float64Array, ord: Int32Array, eOrd: Int32Array, ne: number, m: number): boolean {
    const { all, allClause, allMax, loose, rankOf, withoutAfter } = this;
    let nAll = 0;
    let without = 0;
    for (let j = m - 1; j >= 0; j--) {
      const i = ord[j]!;
      rankOf[i] = m;
      const bits = wmax[i]! > 0 ? c.filter(i) : undefined;
      loose[i] = bits === undefined ? wmax[i]! : 0;
      if (j < ne) without += loose[i]!;
      if (bits === undefined) continue;
      allClause[nAll] = i;
      allMax[nAll] = wmax[i]!;
      all[nAll++] = bits;
    }
    this.nAll = nAll;
    if (nAll === 0) return false;
    for (let q = m - ne - 1; q >= 0; q--) {
      const i = eOrd[q]!;
      rankOf[i] = q;
      withoutAfter[q] = without;
      without += loose[i]!;
    }
    return true;
  }

  /** Before the scan of essential rank q: false when no posting of it can be cut at θ this way. */
  rank(q: number, theta: number): boolean {
    const { all, allClause, allMax, rankOf, sets, max, from } = this;
    let n = 0;
    for (let a = 0; a < this.nAll; a++) {
      if (rankOf[allClause[a]!]! <= q) continue;
      sets[n] = all[a]!;
      max[n++] = allMax[a]!;
    }
    from[n] = 0;
    for (let a = n - 1; a >= 0; a--) from[a] = from[a + 1]! + max[a]!;
    this.n = n;
    this.without = this.withoutAfter[q]!;
    return n > 0 && f(this.without * INFLATE) < theta;
  }

  /** Whether the posting of document d scoring s at the current rank may make a candidate that reaches θ (false: cut it). */
  mayReach(d: number, s: number, theta: number): boolean {
    const { sets, max, from } = this;
    let have = s + this.without;
    if (f(have * INFLATE) >= theta) return true;
    const word = d >>> 5;
    const bit = 1 << (d & 31);
    for (let a = 0; a < this.n; a++) {
      if ((sets[a]![word]! & bit) !== 0) {
        have += max[a]!;
        if (f(have * INFLATE) >= theta) return true;
      } else if (f((have + from[a + 1]!) * INFLATE) < theta) return false;
    }
    return false;
  }
}
