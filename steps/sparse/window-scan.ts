/**
 * The essential clauses of an inner window of the block-max MaxScore search (./block-max.ts),
 * scored term at a time into the window's buffers (pure): a bitset of candidates and each
 * candidate's partial score, rarest clause first. What it leaves out, and why that is exact, is
 * told in ./block-max.ts: documents outside the window mask (./window-mask.ts), blocks whose
 * maximum cannot make a new candidate (their ranges are kept as the clause's *gaps*, for the
 * lookups of ./candidate-completion.ts), and postings cut by the maxima of the clauses to come or
 * by their bitsets (./bitset-cut.ts; "New candidates" in ./block-max.ts).
 *
 * Hot loop: the loop over a block's postings in `scanClause`. The clause's state is read from fields
 * into locals once per clause; nothing is allocated; keep it free of closures and iterators.
 */
import { END, INFLATE, TABLE_TF, type Cursors } from "./cursors.ts";
import type { PruningStats } from "./block-max-types.ts";
import { BitsetCut } from "./bitset-cut.ts";
import { WindowMask } from "./window-mask.ts";
import type { WindowPartition } from "./window-partition.ts";

const f = Math.fround;
/** Documents per inner window (bitset + per-clause score buffer). */
export const WINDOW = 1 << 12;
export const WORDS = WINDOW >>> 5;

export class WindowScan {
  /** Per offset in the window: the candidate's partial score; bit o of the bitset: o is a candidate. */
  readonly acc = new Float64Array(WINDOW);
  readonly bits = new Int32Array(WORDS);
  /** Per clause, document ranges of the inner window whose postings were not all read (pairs). */
  gaps: Int32Array[] = [];
  gapCount = new Int32Array(0);
  /** Per clause, its block when the window's scan began (where its lookups start). */
  blockAtStart = new Float64Array(0);
  /** This window's postings left out: masked, cut by the maxima to come, cut by the bitsets. */
  nMasked = 0;
  nCut = 0;
  nBitsetCut = 0;
  /** Documents of the inner window that can still reach θ, by the clauses' bitsets (./window-mask.ts). */
  private readonly mask = new WindowMask(WORDS);
  /** Cuts new candidates by the later clauses' bitsets (./bitset-cut.ts). */
  private readonly bitsetCut = new BitsetCut();
  /** The window [lo, hi), its threshold (fixed during the scan: offers come after) and whether a mask was built. */
  private lo = 0;
  private hi = 0;
  private theta = 0;
  private masked = false;

  constructor(
    private readonly c: Cursors,
    private readonly counters: Pick<PruningStats, "blocksSkipped">,
  ) {}

  /** Room for n clauses. */
  ensure(n: number): void {
    this.gapCount = new Int32Array(n);
    this.blockAtStart = new Float64Array(n);
    this.mask.ensure(n);
    this.bitsetCut.ensure(n);
    while (this.gaps.length < n) this.gaps.push(new Int32Array(64));
  }

  /** Query start (the cursors reset to the query's m clauses). */
  startQuery(m: number): void {
    this.mask.startQuery(this.c, m);
  }

  /** Scans the essential clauses of partition p over [lo, hi) at threshold theta into the window buffers. */
  scan(p: WindowPartition, lo: number, hi: number, m: number, theta: number): void {
    const c = this.c;
    const gapCount = this.gapCount;
    for (let i = 0; i < m; i++) gapCount[i] = 0;
    this.lo = lo;
    this.hi = hi;
    this.theta = theta;
    this.masked = this.mask.build(c, p.wmax, p.ord, p.ne, m, lo, hi, theta);
    this.nMasked = 0;
    this.nCut = 0;
    this.nBitsetCut = 0;
    const bc = this.bitsetCut;
    const withSets = bc.window(c, p.wmax, p.ord, p.eOrd, p.ne, m);
    const ess = m - p.ne;
    for (let q = 0; q < ess; q++) this.scanClause(p.eOrd[q]!, p.rest[q]!, withSets && bc.rank(q, theta));
  }

  /** After the window: its n documents (candidates and postings left out) count towards the bitsets the mask wanted. */
  countUses(n: number): void {
    this.mask.countUses(this.c, n);
  }

  /**
   * Scans clause i up to hi into the window buffers; bound: the maxima of the clauses still to come;
   * setsCut: cut new candidates by their bitsets too. A posting that would make a new candidate
   * whose score here plus bound is below θ makes none (see "New candidates" in ./block-max.ts). The
   * loop over a block's postings is the hot loop.
   */
  private scanClause(i: number, bound: number, setsCut: boolean): void {
    const c = this.c;
    const { cur, docs: allDocs, tfs: allTfs, pos, cnt, normCache: cache, scoreTable: table } = c;
    const { norms, blockLastDoc: last } = c.index;
    const { lo, hi, theta, masked, acc, bits, bitsetCut: bc } = this;
    const { words: mask, base: maskBase } = this.mask;
    const w = c.weight[i]!;
    const tableBase = (i * TABLE_TF - 1) * 256;
    const cuts = f(bound * INFLATE) < theta;
    let dropped = 0;
    let cut = 0;
    let bitsetCut = 0;
    this.startClause(i);
    while (cur[i]! < hi) {
      const b = c.blk[i]!;
      if (f((c.blockMax(i, b) + bound) * INFLATE) < theta) {
        this.skipBlock(i, Math.min(hi - 1, last[b]!));
        continue;
      }
      this.decodeBlock(i, b);
      const docs = allDocs[i]!;
      const tfs = allTfs[i]!;
      const n = cnt[i]!;
      let p = pos[i]!;
      let d = cur[i]!;
      for (; p < n; p++) {
        d = docs[p]!;
        if (d >= hi) break;
        if (masked && (mask[(d >>> 5) - maskBase]! & (1 << (d & 31))) === 0) {
          dropped++;
          continue;
        }
        const tf = tfs[p]!;
        const norm = norms[d]!;
        const s = tf <= TABLE_TF ? table[tableBase + (tf << 8) + norm]! : f(w - f(w / f(1 + f(tf * cache[norm]!))));
        const o = d - lo;
        const bit = 1 << (o & 31);
        const word = bits[o >>> 5]!;
        if ((word & bit) === 0) {
          if (cuts && f((s + bound) * INFLATE) < theta) {
            cut++;
            continue;
          }
          if (setsCut && !bc.mayReach(d, s, theta)) {
            bitsetCut++;
            continue;
          }
        }
        acc[o]! += s;
        bits[o >>> 5] = word | bit;
      }
      if (p < n) {
        pos[i] = p;
        cur[i] = d;
        break;
      }
      if (!this.nextBlock(i, b)) break;
    }
    this.nMasked += dropped;
    this.nCut += cut;
    this.nBitsetCut += bitsetCut;
  }

  /** Before clause i's scan: its block now is where its lookups start. */
  private startClause(i: number): void {
    const b = this.c.blk[i]!;
    this.blockAtStart[i] = b;
    this.c.startLookups(i, b);
  }

  /**
   * No new candidate can come from clause i's current block: the candidates the other clauses find
   * in its range (up to rangeEnd) look the clause up when they are completed (a gap).
   */
  private skipBlock(i: number, rangeEnd: number): void {
    this.counters.blocksSkipped++;
    this.addGap(i, this.c.cur[i]!, rangeEnd);
    this.c.advance(i, rangeEnd + 1); // past the range, by the block headers only
  }

  /** Clause i's block b opened and decoded (its position kept). */
  private decodeBlock(i: number, b: number): void {
    const c = this.c;
    if (c.opened[i] !== b) c.open(i, b);
    if (c.decoded[i] !== b) {
      const p = c.pos[i]!;
      c.decode(i);
      c.pos[i] = p;
    }
  }

  /** Clause i's block b is exhausted: on to the next one, decoded; false when the clause is exhausted. */
  private nextBlock(i: number, b: number): boolean {
    const c = this.c;
    c.blk[i] = b + 1;
    if (b + 1 === c.blkEnd[i]) {
      c.cur[i] = END;
      return false;
    }
    c.open(i, b + 1);
    c.decode(i);
    c.cur[i] = c.docs[i]![0]!;
    return true;
  }

  private addGap(i: number, start: number, end: number): void {
    let g = this.gaps[i]!;
    const n = this.gapCount[i]!;
    if (n > 0 && g[2 * n - 1]! + 1 >= start) {
      g[2 * n - 1] = end;
      return;
    }
    if (2 * n + 2 > g.length) {
      const bigger = new Int32Array(g.length * 2);
      bigger.set(g);
      this.gaps[i] = g = bigger;
    }
    g[2 * n] = start;
    g[2 * n + 1] = end;
    this.gapCount[i] = n + 1;
  }
}
