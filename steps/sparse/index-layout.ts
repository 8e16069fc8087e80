/**
 * The in-memory BM25 inverted index: its layout, the sections a build may write elsewhere, and
 * lookups of a term or a document id (the builder: ./index-builder.ts).
 *
 * Layout (all typed arrays, so the same structure is what the file format stores and what
 * worker threads share through SharedArrayBuffers):
 *  - terms sorted by UTF-8 bytes (= Lucene's term order), concatenated in `termBytes`, term t at
 *    termBytes[termOffsets[t] .. termOffsets[t+1]);
 *  - df[t]; postings of t at postings[postingOffsets[t] .. postingOffsets[t+1]) in bit-packed blocks
 *    (codec: ./postings.ts; the array ends with a few bytes of padding);
 *  - skip blocks and impacts for exact dynamic pruning (./blocks.ts): term t's blocks are
 *    [termBlockOffsets[t], termBlockOffsets[t+1]); block j ends at document blockLastDoc[j], starts at
 *    byte blockStart[j] of the postings (blockStart has one more entry: the postings' end), and its
 *    impact frontier is at impacts[blockImpactOffsets[j]]; term t's frontier at impacts[termImpactOffsets[t]];
 *  - norms[d] = SmallFloat.intToByte4(number of terms of d) (Lucene's lossy length);
 *  - idRank[d] = position of doc d's id in id order (code point order = Lucene's BytesRef order),
 *    used to break score ties by passage id without comparing strings;
 *  - ids concatenated in `idBytes` (UTF-8) with `idOffsets`.
 * Internal doc numbers are insertion order.
 */
import type { ByteColumn, FileSection, NumberColumn } from "./columns.ts";

export interface Bm25Index {
  readonly analyzer: string;
  /** Documents in the index, including those with no indexed term. */
  readonly numDocs: number;
  /** Documents with at least one indexed term: Lucene's docCount, the N of the idf. */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
  readonly numTerms: number;
  readonly termBytes: Uint8Array;
  readonly termOffsets: Float64Array;
  readonly df: Uint32Array;
  readonly postingOffsets: Float64Array;
  readonly postings: Uint8Array;
  readonly termBlockOffsets: Float64Array;
  readonly termImpactOffsets: Float64Array;
  readonly blockLastDoc: Uint32Array;
  readonly blockStart: Float64Array;
  readonly blockImpactOffsets: Float64Array;
  readonly impacts: Uint8Array;
  readonly norms: Uint8Array;
  readonly idRank: Uint32Array;
  readonly idBytes: Uint8Array;
  readonly idOffsets: Float64Array;
}
/** The sections of an index proportional to its postings or blocks. */
export type HeavySectionName = "postings" | "blockLastDoc" | "blockStart" | "blockImpactOffsets" | "impacts";
/** Those sections once written: typed arrays in memory, or files (`FileSection`, see ./index-file.ts). */
export type HeavySections = { readonly [K in HeavySectionName]: Bm25Index[K] | FileSection };

/** Where a build writes its heavy sections (./blocks.ts `BlockColumns` names them); `close` returns them. */
export interface HeavyColumns<T extends HeavySections> {
  readonly postings: ByteColumn;
  readonly blockLastDoc: NumberColumn;
  readonly blockStart: NumberColumn;
  readonly blockImpacts: NumberColumn;
  readonly impacts: ByteColumn;
  close(): T;
}
const dec = new TextDecoder();

export function termAt(index: Bm25Index, t: number): string {
  return dec.decode(index.termBytes.subarray(index.termOffsets[t]!, index.termOffsets[t + 1]!));
}

export function docId(index: Bm25Index, d: number): string {
  return dec.decode(index.idBytes.subarray(index.idOffsets[d]!, index.idOffsets[d + 1]!));
}

/** Binary search of a term (UTF-8 byte order); -1 if absent. */
export function findTerm(index: Bm25Index, term: string): number {
  const key = new TextEncoder().encode(term);
  const tb = index.termBytes;
  let lo = 0;
  let hi = index.numTerms - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const s = index.termOffsets[mid]!;
    const e = index.termOffsets[mid + 1]!;
    let cmp = 0;
    const n = Math.min(e - s, key.length);
    for (let i = 0; i < n && cmp === 0; i++) cmp = tb[s + i]! - key[i]!;
    if (cmp === 0) cmp = e - s - key.length;
    if (cmp === 0) return mid;
    if (cmp < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
