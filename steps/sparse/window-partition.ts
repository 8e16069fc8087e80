/**
 * The outer windows of the block-max MaxScore search (./block-max.ts) and the partition of the
 * query's clauses in each (pure). Per window, every clause's window maximum (./cursors.ts
 * `windowMax`) orders the clauses; the prefix whose maxima sum below θ is *non-essential* there, the
 * rest *essential* (scanned rarest first). A window ends where the first block of an essential
 * clause ends, so the maxima stay tight (the partitioning of Lucene 9's MaxScoreBulkScorer).
 *
 * The orders are insertion sorts over the few clauses of a query into arrays kept for the life of
 * the scorer: nothing is allocated per window.
 */
import { END, INFLATE, type Cursors } from "./cursors.ts";

const f = Math.fround;

export class WindowPartition {
  private cap = 0;
  /** Per clause, its maximum score in the window. */
  wmax = new Float64Array(0);
  /** Per clause, 1 when essential in the window. */
  essential = new Uint8Array(0);
  /** Clauses by ascending window max (non-essential first), and the essential ones by ascending df. */
  ord = new Int32Array(0);
  eOrd = new Int32Array(0);
  /** Per essential rank q: the window maxima of the essential clauses after it plus all non-essential ones. */
  rest = new Float64Array(0);
  /** Non-essential clauses: ord[0 .. ne). */
  ne = 0;
  /** The smallest θ at which the partition would gain a non-essential clause (a better partition is possible). */
  nextTheta = Infinity;

  /** Room for m clauses. */
  ensure(m: number): void {
    if (m <= this.cap) return;
    this.wmax = new Float64Array(m);
    this.essential = new Uint8Array(m);
    this.ord = new Int32Array(m);
    this.eOrd = new Int32Array(m);
    this.rest = new Float64Array(m);
    this.cap = m;
  }

  /** Query start: every clause essential, in clause order. */
  reset(m: number): void {
    for (let i = 0; i < m; i++) {
      this.ord[i] = i;
      this.essential[i] = 1;
    }
    this.ne = 0;
  }

  /** The first document >= lo that any clause may still hold (a lower bound), END when all are exhausted. */
  nextPossible(c: Cursors, lo: number, m: number): number {
    const last = c.index.blockLastDoc;
    let next = END;
    for (let i = 0; i < m; i++) {
      const d = c.cur[i]!;
      if (d >= lo) {
        next = Math.min(next, d);
        continue;
      }
      const b = c.shallow(i, lo);
      if (b < c.blkEnd[i]!) next = Math.min(next, b > c.firstBlk[i]! ? Math.max(lo, last[b - 1]! + 1) : lo);
    }
    return next;
  }

  /**
   * The window from lo for threshold theta, partitioned: its end, narrowed while the partition's
   * essential clauses end a block sooner. `ne === m` when every clause is non-essential there (the
   * window can be skipped).
   */
  window(c: Cursors, lo: number, m: number, minWindow: number, theta: number): number {
    const wmax = this.wmax;
    let hi = this.windowEnd(c, lo, m, minWindow);
    for (;;) {
      for (let i = 0; i < m; i++) wmax[i] = c.windowMax(i, lo, hi);
      if (!this.partition(c.df, m, theta)) return hi;
      const narrower = this.windowEnd(c, lo, m, minWindow);
      if (narrower >= hi) return hi;
      hi = narrower;
    }
  }

  /** Window end: where the first block of an essential clause ends (at least lo + minWindow). */
  private windowEnd(c: Cursors, lo: number, m: number, minWindow: number): number {
    const last = c.index.blockLastDoc;
    let hi = END;
    for (let j = this.ne; j < m; j++) {
      const i = this.ord[j]!;
      const b = c.shallow(i, Math.max(c.cur[i]!, lo));
      if (b < c.blkEnd[i]!) hi = Math.min(hi, last[b]! + 1);
    }
    return Math.max(hi, Math.min(END, lo + minWindow));
  }

  /**
   * Orders the clauses by window max (frequent terms first on ties), marks the non-essential prefix
   * for threshold theta and orders the essential ones rarest first; false when every clause is
   * non-essential (the window can be skipped).
   */
  private partition(df: Float64Array, m: number, theta: number): boolean {
    const { ord, wmax, essential } = this;
    for (let a = 0; a < m; a++) ord[a] = a;
    for (let a = 1; a < m; a++) {
      const v = ord[a]!;
      let b = a - 1;
      while (b >= 0 && (wmax[ord[b]!]! > wmax[v]! || (wmax[ord[b]!] === wmax[v] && df[ord[b]!]! < df[v]!))) {
        ord[b + 1] = ord[b]!;
        b--;
      }
      ord[b + 1] = v;
    }
    let sum = 0;
    let ne = 0;
    this.nextTheta = Infinity;
    for (let j = 0; j < m; j++) {
      const i = ord[j]!;
      const s = sum + wmax[i]!;
      const bound = f(s * INFLATE);
      if (ne === j && bound < theta) {
        sum = s;
        essential[i] = 0;
        ne++;
      } else {
        essential[i] = 1;
        if (bound < this.nextTheta) this.nextTheta = bound;
      }
    }
    this.ne = ne;
    this.orderEssential(df, m, sum);
    return ne < m;
  }

  /** The essential clauses rarest first (ties by clause index) and, per rank, the maxima after it; `nonEssential` is the non-essential maxima's sum. */
  private orderEssential(df: Float64Array, m: number, nonEssential: number): void {
    const { ord, eOrd, wmax, rest, ne } = this;
    const ess = m - ne;
    for (let q = 0; q < ess; q++) eOrd[q] = ord[ne + q]!;
    for (let a = 1; a < ess; a++) {
      const v = eOrd[a]!;
      let b = a - 1;
      while (b >= 0 && (df[eOrd[b]!]! > df[v]! || (df[eOrd[b]!] === df[v] && eOrd[b]! > v))) {
        eOrd[b + 1] = eOrd[b]!;
        b--;
      }
      eOrd[b + 1] = v;
    }
    let after = nonEssential;
    for (let q = ess - 1; q >= 0; q--) {
      rest[q] = after;
      after += wmax[eOrd[q]!]!;
    }
  }
}
