/**
 * Completes the candidates of an inner window of the block-max MaxScore search (./block-max.ts)
 * and offers them to the top-k heap (pure), clause by clause. The *lookup clauses* are the
 * non-essential ones and the essential ones with skipped ranges (gaps, ./window-scan.ts), by
 * descending window max. A candidate is first dropped when its partial score plus every lookup
 * clause's window max cannot reach θ; then each lookup clause in turn, for the candidates still
 * alive, bounds the candidate by its partial score, the clause's block max at d (0 when the
 * clause's last lookup already passed over d, or when d lies outside the gaps of an essential
 * clause: its score is already in the partial) and the window maxima of the clauses after it,
 * drops it below θ, else looks the clause up (./cursors.ts `completeClause`). The survivors are
 * offered with their partial scores, which are then complete. One clause at a time keeps each
 * lookup pointer moving forward through the clause's blocks, with no per-candidate loop over the
 * clauses.
 */
import { INFLATE, type Cursors } from "./cursors.ts";
import type { PruningStats } from "./block-max-types.ts";
import type { TopK } from "./topk.ts";
import { WINDOW, WORDS, type WindowScan } from "./window-scan.ts";
import type { WindowPartition } from "./window-partition.ts";

const f = Math.fround;

export class CandidateCompletion {
  /** Lookup clauses of the window (by descending window max) and the sum of the maxima after each. */
  private lk = new Int32Array(0);
  private restAfter = new Float64Array(0);
  /** The window's live candidates: offset in the window and partial score; `alive` of them. */
  private readonly candO = new Int32Array(WINDOW);
  private readonly candP = new Float64Array(WINDOW);
  private alive = 0;

  constructor(
    private readonly c: Cursors,
    private readonly counters: Pick<PruningStats, "candidates" | "scored">,
  ) {}

  /** Room for n clauses. */
  ensure(n: number): void {
    this.lk = new Int32Array(n);
    this.restAfter = new Float64Array(n);
  }

  /** Completes the candidates scan found in the window from lo (partition p) and offers them to heap; the number of candidates. */
  complete(p: WindowPartition, scan: WindowScan, lo: number, m: number, heap: TopK): number {
    const { lk, restAfter, candO, candP } = this;
    const nl = this.lookupClauses(p, scan, m);
    let rest = 0;
    for (let t = nl - 1; t >= 0; t--) {
      restAfter[t] = rest;
      rest += p.wmax[lk[t]!]!;
    }
    const theta = heap.threshold;
    const found = this.collect(scan, rest, theta);
    let n = this.alive;
    // one pass per lookup clause over the candidates still alive
    for (let t = 0; t < nl && n > 0; t++) {
      const i = lk[t]!;
      n = this.c.completeClause(i, lo, candO, candP, n, restAfter[t]!, theta, p.essential[i] === 1 ? scan.gaps[i] : undefined, scan.gapCount[i]!);
    }
    // the survivors: exact scores (the sums are order-free, see ./sum-order.ts)
    for (let r = 0; r < n; r++) heap.offer(lo + candO[r]!, f(candP[r]!));
    this.counters.scored += n;
    this.counters.candidates += found;
    return found;
  }

  /** Fills lk with the window's lookup clauses by descending window max (their lookups started); their number. */
  private lookupClauses(p: WindowPartition, scan: WindowScan, m: number): number {
    const { lk } = this;
    const { wmax, ord, eOrd, ne } = p;
    let nl = 0;
    for (let j = 0; j < ne; j++) lk[nl++] = ord[j]!;
    for (let q = 0; q < m - ne; q++) {
      const i = eOrd[q]!;
      if (scan.gapCount[i]! === 0) continue;
      lk[nl++] = i;
      this.c.startLookups(i, scan.blockAtStart[i]!);
    }
    // descending window max (ties by clause index: any order is exact, this one is deterministic)
    for (let a = 1; a < nl; a++) {
      const v = lk[a]!;
      let b = a - 1;
      while (b >= 0 && (wmax[lk[b]!]! < wmax[v]! || (wmax[lk[b]!] === wmax[v] && lk[b]! > v))) {
        lk[b + 1] = lk[b]!;
        b--;
      }
      lk[b + 1] = v;
    }
    return nl;
  }

  /**
   * Pass 1: takes the candidates out of the window buffers (clearing them), keeping in candO/candP
   * (`alive` of them) those that can reach θ with every lookup clause's window max (sum: rest); the
   * number of candidates.
   */
  private collect(scan: WindowScan, rest: number, theta: number): number {
    const { candO, candP } = this;
    const { bits: windowBits, acc: windowAcc } = scan;
    let n = 0;
    let found = 0;
    for (let wd = 0; wd < WORDS; wd++) {
      let bits = windowBits[wd]!;
      if (bits === 0) continue;
      windowBits[wd] = 0;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const o = (wd << 5) + 31 - Math.clz32(low);
        found++;
        const partial = windowAcc[o]!;
        windowAcc[o] = 0;
        if (f((partial + rest) * INFLATE) < theta) continue;
        candO[n] = o;
        candP[n++] = partial;
      }
    }
    this.alive = n;
    return found;
  }
}
