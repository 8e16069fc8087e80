/**
 * Skip blocks and impacts for exact dynamic pruning (pure).
 *
 * Each term's postings are cut into blocks of `blockSize` documents (the last one shorter). Per
 * block the index stores its last document, the byte offset where it starts in the postings and
 * its *impacts*: the (norm byte, tf) pairs no other posting of the block dominates (a posting
 * dominates another when its tf is at least as large and its norm byte at most as large), which is
 * Lucene's "competitive impacts". Per term the same frontier over all its postings.
 *
 * Why that bounds the score exactly: BM25's clause score in float32 (`bm25TermScore`,
 * weight - weight / (1 + tf * cache[norm])) is a chain of float operations each monotone in its
 * argument, so it is non-decreasing in tf and in cache[norm]; and cache[norm] is non-increasing in
 * the norm byte (longer documents score less) for any k1 > 0 and 0 <= b <= 1. So the largest
 * score any posting of a block can get is the largest score over its frontier pairs, computed with
 * the very same float arithmetic at query time (k1, b and the query boost are query-time values,
 * hence pairs and not scores are stored). `normCacheIsMonotone` checks the assumption for the
 * parameters in use; the searcher falls back to exhaustive scoring where it does not hold.
 *
 * Frontier encoding (in the `impacts` byte section): varint count, then per pair, by ascending norm
 * byte (so strictly ascending tf): the norm byte, then tf as a varint.
 */
import type { ByteColumn, NumberColumn } from "./columns.ts";
import { MAX_BLOCK_SIZE, PADDING, writeBlock } from "./postings.ts";

/** Documents per block (Lucene 8 uses 128 too). */
export const DEFAULT_BLOCK_SIZE = 128;

/** Where the postings and block data of an index go while it is built. */
export interface BlockColumns {
  /** The postings (./postings.ts). */
  readonly postings: ByteColumn;
  /** Per term, the postings length after it (prefix ends; see `withLeadingZero`). */
  readonly termPostingEnds: NumberColumn;
  /** Per term, the number of blocks written up to and including it (prefix ends). */
  readonly termBlockEnds: NumberColumn;
  /** Per term, the offset of its frontier in `impacts` (numTerms entries). */
  readonly termImpacts: NumberColumn;
  /** Per block, its last document. */
  readonly blockLastDoc: NumberColumn;
  /** Per block, where it starts in the postings (numBlocks + 1 entries: the last is the postings' end). */
  readonly blockStart: NumberColumn;
  /** Per block, the offset of its frontier in `impacts`. */
  readonly blockImpacts: NumberColumn;
  readonly impacts: ByteColumn;
}

/** Per-norm max tf scratch with the list of norms touched, for one frontier. */
class Frontier {
  private readonly maxTf = new Float64Array(256);
  private readonly touched = new Uint8Array(256);
  private n = 0;

  add(norm: number, tf: number): void {
    const m = this.maxTf[norm]!;
    if (m === 0) this.touched[this.n++] = norm;
    if (tf > m) this.maxTf[norm] = tf;
  }

  /** Writes the non-dominated pairs and resets. */
  write(out: ByteColumn): void {
    const t = this.touched;
    const n = this.n;
    // insertion sort: blocks touch few distinct norm bytes
    for (let i = 1; i < n; i++) {
      const v = t[i]!;
      let j = i - 1;
      while (j >= 0 && t[j]! > v) {
        t[j + 1] = t[j]!;
        j--;
      }
      t[j + 1] = v;
    }
    let count = 0;
    let best = 0;
    for (let i = 0; i < n; i++) {
      const tf = this.maxTf[t[i]!]!;
      if (tf > best) {
        best = tf;
        count++;
      }
    }
    out.varint(count);
    best = 0;
    for (let i = 0; i < n; i++) {
      const norm = t[i]!;
      const tf = this.maxTf[norm]!;
      if (tf > best) {
        best = tf;
        out.byte(norm);
        out.varint(tf);
      }
      this.maxTf[norm] = 0;
    }
    this.n = 0;
  }
}

/**
 * Writes postings term by term: for each term in term order, `add` each posting (in doc order) with
 * its document's norm byte, then `endTerm`; `finish()` once at the end. Encodes the blocks
 * (./postings.ts) and records their last documents, offsets and impact frontiers.
 */
export class BlockWriter {
  private readonly block = new Frontier();
  private readonly term = new Frontier();
  private readonly docs: Int32Array;
  private readonly tfs: Int32Array;
  private readonly scratch: Uint8Array;
  private n = 0;
  private prevDoc = -1;
  private blocks = 0;

  constructor(
    private readonly out: BlockColumns,
    private readonly blockSize: number = DEFAULT_BLOCK_SIZE,
  ) {
    if (!Number.isInteger(blockSize) || blockSize < 1 || blockSize > MAX_BLOCK_SIZE) throw new RangeError(`block size must be an integer in 1..${MAX_BLOCK_SIZE}, got ${blockSize}`);
    this.docs = new Int32Array(blockSize);
    this.tfs = new Int32Array(blockSize);
    // varint + 3 header bytes + two areas of at most 31 bits per posting
    this.scratch = new Uint8Array(8 + 2 * Math.ceil((blockSize * 31) / 8));
  }

  add(doc: number, tf: number, norm: number): void {
    this.docs[this.n] = doc;
    this.tfs[this.n] = tf;
    this.block.add(norm, tf);
    this.term.add(norm, tf);
    if (++this.n === this.blockSize) this.endBlock();
  }

  private endBlock(): void {
    const out = this.out;
    out.blockStart.push(out.postings.length);
    out.postings.bytes(this.scratch, writeBlock(this.scratch, 0, this.prevDoc, this.docs, this.tfs, this.n));
    this.prevDoc = this.docs[this.n - 1]!;
    out.blockLastDoc.push(this.prevDoc);
    out.blockImpacts.push(out.impacts.length);
    this.block.write(out.impacts);
    this.n = 0;
    this.blocks++;
  }

  /** Closes the current term (a term without postings gets no block). */
  endTerm(): void {
    if (this.n > 0) this.endBlock();
    const out = this.out;
    out.termPostingEnds.push(out.postings.length);
    out.termBlockEnds.push(this.blocks);
    out.termImpacts.push(out.impacts.length);
    this.term.write(out.impacts);
    this.prevDoc = -1;
  }

  /** Writes the sentinel block offset and the postings' padding; call once after the last term. */
  finish(): void {
    this.out.blockStart.push(this.out.postings.length);
    for (let i = 0; i < PADDING; i++) this.out.postings.byte(0);
  }
}

/** Prefix ends (what BlockWriter pushes per term) -> offsets: each term's start, plus the total. */
export function withLeadingZero(ends: Float64Array): Float64Array {
  const out = new Float64Array(ends.length + 1);
  out.set(ends, 1);
  return out;
}

/**
 * The largest score denominator f(1 + f(tf * cache[norm])) over the frontier at impacts[offset..].
 * The clause score f(w - f(w / y)) is non-decreasing in y, so the block's largest score for any
 * query weight w is f(w - f(w / y_max)): y_max depends on the block and (k1, b) only, which lets a
 * searcher compute it once per block and reuse it for every query.
 */
export function maxImpactDenominator(impacts: Uint8Array, offset: number, normCache: Float32Array): number {
  let p = offset;
  let byte = impacts[p++]!;
  let count = byte & 127;
  for (let mul = 128; byte >= 128; mul *= 128) {
    byte = impacts[p++]!;
    count += (byte & 127) * mul;
  }
  let best = 0;
  for (let i = 0; i < count; i++) {
    const norm = impacts[p++]!;
    byte = impacts[p++]!;
    let tf = byte & 127;
    for (let mul = 128; byte >= 128; mul *= 128) {
      byte = impacts[p++]!;
      tf += (byte & 127) * mul;
    }
    const y = Math.fround(1 + Math.fround(tf * normCache[norm]!));
    if (y > best) best = y;
  }
  return best;
}

/** bm25TermScore from its denominator y = f(1 + f(tf * normInverse)). */
export function scoreFromDenominator(weight: number, y: number): number {
  return Math.fround(weight - Math.fround(weight / y));
}

/** The largest clause score over the frontier at impacts[offset..] (exact float32, see the file comment). */
export function maxImpactScore(impacts: Uint8Array, offset: number, weight: number, normCache: Float32Array): number {
  const y = maxImpactDenominator(impacts, offset, normCache);
  return y === 0 ? 0 : scoreFromDenominator(weight, y);
}

/** Decodes a frontier (tests, diagnostics). */
export function decodeImpacts(impacts: Uint8Array, offset: number): { norm: number; tf: number }[] {
  let p = offset;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    let b: number;
    do {
      b = impacts[p++]!;
      v += (b & 127) * mul;
      mul *= 128;
    } while (b >= 128);
    return v;
  };
  const n = varint();
  const out: { norm: number; tf: number }[] = [];
  for (let i = 0; i < n; i++) {
    const norm = impacts[p++]!;
    out.push({ norm, tf: varint() });
  }
  return out;
}

/** True when cache[norm] never increases with the norm byte (the premise of the block bounds). */
export function normCacheIsMonotone(cache: Float32Array): boolean {
  for (let i = 1; i < cache.length; i++) if (!(cache[i]! <= cache[i - 1]!)) return false;
  return cache.every((c) => c >= 0); // NaN fails; +Infinity (b = 1, length 0) keeps the order
}
