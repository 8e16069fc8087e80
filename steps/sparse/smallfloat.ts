/**
 * Lucene's one-byte document-length encoding (SmallFloat.intToByte4 / byte4ToInt, Lucene >= 7).
 * Lengths below 24 are exact; above, 4 significant bits are kept (e.g. 100 -> byte 57 -> 96).
 * BM25Similarity stores intToByte4(number of indexed terms) per document and scores with the
 * decoded length, so lengths are lossy exactly like this.
 */

/** longToInt4(Integer.MAX_VALUE) = 231; values below 255 - 231 = 24 are stored verbatim. */
const NUM_FREE_VALUES = 24;

function longToInt4(i: number): number {
  const numBits = 32 - Math.clz32(i);
  if (numBits < 4) return i; // subnormal
  const shift = numBits - 4;
  // keep the 4 most significant bits, drop the implicit leading one, store the shift + 1 above them
  return ((i >>> shift) & 0x07) | ((shift + 1) << 3);
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** Encodes a non-negative length (up to 2^31 - 1) into one unsigned byte. */
export function intToByte4(i: number): number {
  if (!Number.isInteger(i) || i < 0 || i > 0x7fffffff) throw new RangeError(`intToByte4: length ${i} out of range`);
  return i < NUM_FREE_VALUES ? i : NUM_FREE_VALUES + longToInt4(i - NUM_FREE_VALUES);
}

/** Decodes an unsigned byte written by intToByte4. */
export function byte4ToInt(b: number): number {
  const i = b & 0xff;
  return i < NUM_FREE_VALUES ? i : NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES);
}

/** BM25Similarity.LENGTH_TABLE: the decoded length of each of the 256 norm bytes. */
export const LENGTH_TABLE: Float32Array = Float32Array.from({ length: 256 }, (_, i) => byte4ToInt(i));
