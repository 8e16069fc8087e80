/**
 * Per-clause postings cursors for the pruned searcher (pure): struct-of-arrays state for the m
 * clauses of one query over one index, reused across queries. A clause moves forward through its
 * blocks (./postings.ts): `shallow` moves only its block pointer (no decoding), `advance` positions
 * it on a document (a binary search in the packed block unless the block is decoded), `decode`
 * unpacks the current block for a scan, and `completeClause` looks candidates up by random access
 * with a separate lookup pointer, without moving the cursor (for documents behind it). Block maxima (./blocks.ts) are computed from
 * per-block score denominators cached for the life of the searcher (they depend on k1 and b only).
 *
 * Groups: at level k (0-based) the blocks size * g .. size * g + size - 1 (global block numbers,
 * size = GROUP^(k+1)) form group g. A group that lies inside one term's blocks is passed whole by
 * `shallow` (one test of its last block) and by `windowMax` (its largest denominator, cached like
 * the blocks'): levels over the blocks in the spirit of Lucene's multi-level skip data. At 10M
 * passages a window of a rare essential clause spans hundreds of a frequent clause's blocks, and
 * the block-by-block maximum was the largest single cost of a query. The maximum over a group is
 * the maximum over its blocks, so every bound, and so every pruning decision, is the same as block
 * by block.
 */
import { maxImpactDenominator } from "./blocks.ts";
import type { Bm25Index } from "./index.ts";
import { BlockReader, MAX_BLOCK_SIZE, postingsView } from "./postings.ts";
import { TermBitsets, type BitsetPool } from "./term-bitsets.ts";

const f = Math.fround;
export const END = 0x7fffffff;
/** Relative slack on bounds summed in double (see ./block-max.ts). */
export const INFLATE = 1 + 2 ** -32;
/** Term frequencies whose clause scores are tabulated per query (for every norm byte). */
export const TABLE_TF = 4;
/** Groups of a level per group of the next level, and blocks per group of level 0 (a power of two; see "Groups" above). */
export const GROUP = 16;
/** Group levels: blocks of GROUP and GROUP^2. */
export const GROUP_LEVELS = 2;
const GROUP_SHIFT = 31 - Math.clz32(GROUP);
/** Per level, log2 of its blocks per group, largest level first (the order `windowMax` tries them). */
const LEVEL_SHIFTS = Array.from({ length: GROUP_LEVELS }, (_, k) => GROUP_SHIFT * (GROUP_LEVELS - k));

export class Cursors {
  /** Capacity (clauses). */
  private cap = 0;
  weight = new Float64Array(0);
  df = new Float64Array(0);
  term = new Int32Array(0);
  /** Current block, end of the term's blocks, first block of the term. */
  blk = new Float64Array(0);
  blkEnd = new Float64Array(0);
  firstBlk = new Float64Array(0);
  /** Block whose header readers[i] holds, and block whose postings docs[i]/tfs[i] hold (-1: none). */
  opened = new Float64Array(0);
  decoded = new Float64Array(0);
  pos = new Int32Array(0);
  cnt = new Int32Array(0);
  /** Current document (END when exhausted, -1 before the first advance). */
  cur = new Int32Array(0);
  docs: Int32Array[] = [];
  tfs: Int32Array[] = [];
  private readers: BlockReader[] = [];
  /** Random-access lookups: their own block pointer and header. */
  private lkBlk = new Float64Array(0);
  private lkOpened = new Float64Array(0);
  private lkReaders: BlockReader[] = [];
  /** In the opened lookup block: position of the first posting >= the last document looked up, and that posting's document. */
  private lkPos = new Int32Array(0);
  private lkNext = new Int32Array(0);
  /** Per clause i, tf 1..TABLE_TF and norm byte: the clause score, at (i * TABLE_TF + tf - 1) * 256 + norm (float32 values: exact). */
  scoreTable = new Float32Array(0);
  /** Per clause, its term's document bitset (./term-bitsets.ts) once asked for (undefined: none); `filterAsked` 1 once asked. */
  private filters: (Int32Array | undefined)[] = [];
  private filterAsked = new Uint8Array(0);
  private readonly bitsets: TermBitsets;
  /** Per block, the largest score denominator, 0 until first needed. */
  private readonly denominators: Float32Array;
  /** Per level and group, the largest of its blocks' denominators, 0 until first needed (largest level first, as LEVEL_SHIFTS). */
  private readonly groupDenominators: Float32Array[];
  blocksDecoded = 0;
  /** Single-document lookups (cumulative). */
  lookups = 0;
  /** Lookups a clear bit of the clause's document bitset answered without the postings (cumulative). */
  bitsetMisses = 0;

  constructor(
    readonly index: Bm25Index,
    readonly normCache: Float32Array,
    bitsets?: BitsetPool | number,
  ) {
    this.bitsets = new TermBitsets(index, bitsets);
    this.denominators = new Float32Array(index.blockLastDoc.length);
    this.groupDenominators = LEVEL_SHIFTS.map((shift) => new Float32Array(Math.ceil(index.blockLastDoc.length / 2 ** shift)));
    this.view = postingsView(index.postings);
  }

  /** The postings as a DataView (the searches read single postings through it). */
  private readonly view: DataView;

  /** Sets up the clauses (term, weight) of a query; positions nothing yet. */
  reset(clauses: readonly { readonly term: number; readonly weight: number }[]): void {
    const m = clauses.length;
    if (m > this.cap) this.grow(m);
    const x = this.index;
    for (let i = 0; i < m; i++) {
      const c = clauses[i]!;
      this.weight[i] = c.weight;
      this.df[i] = x.df[c.term]!;
      this.term[i] = c.term;
      this.filterAsked[i] = 0;
      this.firstBlk[i] = this.blk[i] = this.lkBlk[i] = x.termBlockOffsets[c.term]!;
      this.blkEnd[i] = x.termBlockOffsets[c.term + 1]!;
      this.opened[i] = this.decoded[i] = this.lkOpened[i] = -1;
      this.cur[i] = -1;
      const w = c.weight;
      const cache = this.normCache;
      const t = this.scoreTable;
      for (let tf = 1; tf <= TABLE_TF; tf++) {
        const row = (i * TABLE_TF + tf - 1) * 256;
        for (let norm = 0; norm < 256; norm++) t[row + norm] = f(w - f(w / f(1 + f(tf * cache[norm]!))));
      }
    }
  }

  private grow(m: number): void {
    const n = Math.max(m, this.cap * 2, 8);
    for (const k of ["weight", "df", "blk", "blkEnd", "firstBlk", "opened", "decoded", "lkBlk", "lkOpened"] as const) this[k] = new Float64Array(n);
    this.lkPos = new Int32Array(n);
    this.term = new Int32Array(n);
    this.filterAsked = new Uint8Array(n);
    this.filters = new Array<Int32Array | undefined>(n).fill(undefined);
    this.lkNext = new Int32Array(n);
    this.pos = new Int32Array(n);
    this.cnt = new Int32Array(n);
    this.scoreTable = new Float32Array(n * TABLE_TF * 256);
    this.cur = new Int32Array(n);
    for (let i = this.docs.length; i < n; i++) {
      this.docs.push(new Int32Array(MAX_BLOCK_SIZE));
      this.tfs.push(new Int32Array(MAX_BLOCK_SIZE));
      this.readers.push(new BlockReader());
      this.lkReaders.push(new BlockReader());
    }
    this.cap = n;
  }

  private prevDoc(i: number, b: number): number {
    return b === this.firstBlk[i] ? -1 : this.index.blockLastDoc[b - 1]!;
  }

  /** Parses the header of block b for clause i and puts its position on the block's first posting. */
  open(i: number, b: number): void {
    const r = this.readers[i]!.open(this.index.postings, this.index.blockStart[b]!, this.prevDoc(i, b));
    this.cnt[i] = r.n;
    this.opened[i] = b;
    this.pos[i] = 0;
  }

  /** Decodes clause i's open block into its buffers (to scan it posting by posting). */
  decode(i: number): void {
    this.readers[i]!.decode(this.view, this.docs[i]!, this.tfs[i]!);
    this.decoded[i] = this.opened[i]!;
    this.blocksDecoded++;
  }

  /** The largest score denominator of block b (any clause: it depends on the block, k1 and b only). */
  private denominator(b: number): number {
    const y = this.denominators[b]!;
    return y !== 0 ? y : (this.denominators[b] = maxImpactDenominator(this.index.impacts, this.index.blockImpactOffsets[b]!, this.normCache));
  }

  /** The largest denominator of group g of the level at LEVEL_SHIFTS[l] (its blocks must all exist). */
  private groupDenominator(l: number, g: number): number {
    const level = this.groupDenominators[l]!;
    const y = level[g]!;
    if (y !== 0) return y;
    let m = 0;
    for (let c = g << GROUP_SHIFT, e = c + GROUP; c < e; c++) {
      const yc = l === GROUP_LEVELS - 1 ? this.denominator(c) : this.groupDenominator(l + 1, c);
      if (yc > m) m = yc;
    }
    return (level[g] = m);
  }

  /** Max score of block b of clause i. */
  blockMax(i: number, b: number): number {
    const w = this.weight[i]!;
    return f(w - f(w / this.denominator(b)));
  }

  /** Moves clause i's block pointer to the first block that can hold target (without decoding); returns it. */
  shallow(i: number, target: number): number {
    const last = this.index.blockLastDoc;
    let b = this.blk[i]!;
    const end = this.blkEnd[i]!;
    while (b < end && last[b]! < target) {
      // the largest group of this term's blocks that starts at b and ends before target, else one block
      let step = 1;
      for (let l = 0; l < GROUP_LEVELS; l++) {
        const size = 1 << LEVEL_SHIFTS[l]!;
        if ((b & (size - 1)) === 0 && b + size <= end && last[b + size - 1]! < target) {
          step = size;
          break;
        }
      }
      b += step;
    }
    this.blk[i] = b;
    return b;
  }

  /** Positions clause i on its first document >= target (END when none). */
  advance(i: number, target: number): void {
    if (this.cur[i]! >= target) return;
    const b = this.shallow(i, target);
    if (b === this.blkEnd[i]) {
      this.cur[i] = END;
      return;
    }
    if (this.opened[i] !== b) this.open(i, b);
    if (this.decoded[i] === b) {
      const docs = this.docs[i]!;
      let p = this.pos[i]!;
      while (docs[p]! < target) p++;
      this.pos[i] = p;
      this.cur[i] = docs[p]!;
      return;
    }
    const view = this.view;
    const r = this.readers[i]!;
    let lo = this.pos[i]!;
    let hi = r.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r.docIn(view, mid) < target) lo = mid + 1;
      else hi = mid;
    }
    this.pos[i] = lo;
    this.cur[i] = r.docIn(view, lo);
  }

  /** The tf of clause i's current posting. */
  tf(i: number): number {
    return this.decoded[i] === this.opened[i] ? this.tfs[i]![this.pos[i]!]! : this.readers[i]!.tf(this.index.postings, this.pos[i]!);
  }

  /** Clause i's score for document d with term frequency tf. */
  score(i: number, tf: number, d: number): number {
    const norm = this.index.norms[d]!;
    if (tf <= TABLE_TF) return this.scoreTable[(i * TABLE_TF + tf - 1) * 256 + norm]!;
    const w = this.weight[i]!;
    return f(w - f(w / f(1 + f(tf * this.normCache[norm]!))));
  }

  /**
   * Largest score clause i can give a document in [lo, hi); 0 when it has none there. The score is
   * non-decreasing in the denominator (./blocks.ts), so it is the score at the blocks' largest one.
   */
  windowMax(i: number, lo: number, hi: number): number {
    if (this.cur[i]! >= hi) return 0;
    const last = this.index.blockLastDoc;
    const end = this.blkEnd[i]!;
    let b = this.shallow(i, lo);
    if (b === end) return 0;
    let y = 0;
    // blocks b.. up to and including the first that reaches hi - 1; a whole group at a time when
    // the group is the term's and all its blocks but the last end before hi - 1
    outer: while (b < end) {
      for (let l = 0; l < GROUP_LEVELS; l++) {
        const shift = LEVEL_SHIFTS[l]!;
        const size = 1 << shift;
        if ((b & (size - 1)) === 0 && b + size <= end && last[b + size - 2]! < hi - 1) {
          const yg = this.groupDenominator(l, b >>> shift);
          if (yg > y) y = yg;
          b += size;
          if (last[b - 1]! >= hi - 1) break outer;
          continue outer;
        }
      }
      const yb = this.denominator(b);
      if (yb > y) y = yb;
      if (last[b]! >= hi - 1) break;
      b++;
    }
    const w = this.weight[i]!;
    return f(w - f(w / y));
  }

  /** Bytes of term bitsets held (by the pool, which other searchers may share). */
  get bitsetBytes(): number {
    return this.bitsets.size;
  }

  /** Clause i's document bitset, when its term has one (frequent, looked up often enough: ./term-bitsets.ts); asked once per query. */
  filter(i: number): Int32Array | undefined {
    if (this.filterAsked[i] === 0) {
      this.filterAsked[i] = 1;
      this.filters[i] = this.bitsets.get(this.term[i]!);
    }
    return this.filters[i];
  }

  /** Records n documents that clause i's bitset would have told apart (it has none yet): they count as lookups towards building it. */
  countUses(i: number, n: number): void {
    if (this.filters[i] === undefined) this.bitsets.countLookups(this.term[i]!, n);
  }

  /** Starts a run of lookups (increasing documents) of clause i from block b (which may lie behind the last run's). */
  startLookups(i: number, b: number): void {
    this.lkBlk[i] = b;
    this.lkOpened[i] = -1;
  }

  /**
   * One lookup clause's pass over a window's live candidates (documents lo + candO[q] in increasing
   * order, partial scores candP[q], q < n), with the lookup pointer's state in locals: each
   * candidate is bounded by its partial score, the clause's block max at d (0 when the pointer
   * already passed over d, or when d lies outside the clause's `gaps` [start, end] pairs: an
   * essential clause's score is then already in the partial) and `after`; below theta it is
   * dropped, else the clause is looked up and its score added. A document whose bit in the clause's
   * bitset (./term-bitsets.ts, frequent terms only) is clear has score 0 there and is not looked up.
   * Keeps the survivors in place; returns how many.
   */
  completeClause(i: number, lo: number, candO: Int32Array, candP: Float64Array, n: number, after: number, theta: number, gaps: Int32Array | undefined, ng: number): number {
    const last = this.index.blockLastDoc;
    const postings = this.index.postings;
    const view = this.view;
    const r = this.lkReaders[i]!;
    const end = this.blkEnd[i]!;
    let b = this.lkBlk[i]!;
    let opened = this.lkOpened[i]!;
    let pos = this.lkPos[i]!;
    let next = this.lkNext[i]!;
    let maxBlk = -1;
    let max = 0;
    let gp = 0;
    let kept = 0;
    let lookups = 0;
    let misses = 0;
    const bits = this.filter(i);
    for (let q = 0; q < n; q++) {
      const o = candO[q]!;
      let partial = candP[q]!;
      const d = lo + o;
      let ub = 0;
      let open = true;
      if (gaps !== undefined) {
        while (gp < ng && gaps[2 * gp + 1]! < d) gp++;
        open = gp < ng && gaps[2 * gp]! <= d;
      }
      // a clear bit: d lacks the term, its score is 0 (no block to open or search)
      if (open && bits !== undefined && (bits[d >>> 5]! & (1 << (d & 31))) === 0) {
        open = false;
        misses++;
      }
      if (open) {
        while (b < end && last[b]! < d) b++;
        if (b < end && !(opened === b && d < next)) {
          if (maxBlk !== b) {
            maxBlk = b;
            max = this.blockMax(i, b);
          }
          ub = max;
        }
      }
      if (f((partial + ub + after) * INFLATE) < theta) continue;
      if (ub > 0) {
        lookups++;
        if (opened !== b) {
          r.open(postings, this.index.blockStart[b]!, this.prevDoc(i, b));
          opened = b;
          pos = 0;
          next = r.first;
        }
        if (d > next) {
          // the first posting >= d lies after pos (the block's last document is >= d)
          let hi = r.n - 1;
          let p = pos + 1;
          while (p < hi) {
            const mid = (p + hi) >>> 1;
            if (r.docIn(view, mid) < d) p = mid + 1;
            else hi = mid;
          }
          pos = p;
          next = r.docIn(view, p);
        }
        if (next === d) partial += this.score(i, r.tf(postings, pos), d);
      }
      candO[kept] = o;
      candP[kept++] = partial;
    }
    this.lkBlk[i] = b;
    this.lkOpened[i] = opened;
    this.lkPos[i] = pos;
    this.lkNext[i] = next;
    this.lookups += lookups;
    this.bitsetMisses += misses;
    if (bits === undefined) this.bitsets.countLookups(this.term[i]!, lookups);
    return kept;
  }
}
