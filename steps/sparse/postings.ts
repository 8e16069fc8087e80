/**
 * The postings codec (pure): per term, its postings (doc, tf) in document order, cut into blocks
 * of at most `blockSize` (<= 256) postings, each block bit-packed so that any posting can be read
 * without decoding the ones before it (a pruned search looks up one document in a block of a
 * frequent term by binary search instead of decoding 128 postings):
 *
 *   varint  firstDoc - (last doc of the previous block of the term, or -1) - 1
 *   u8      n - 1                        (n postings in the block)
 *   u8      docBits                      bits of each doc - firstDoc, postings 1 .. n-1
 *   u8      tfBits                       bits of each tf - 1 (0: every tf is 1)
 *   bits    (n - 1) * docBits, then padding to a byte
 *   bits    n * tfBits, then padding to a byte
 *
 * Bits are little-endian within bytes (bit i of the area is bit i%8 of byte i/8). A postings array
 * ends with PADDING zero bytes so that 4-byte reads near its end stay inside it.
 */

export const MAX_BLOCK_SIZE = 256;
/** Zero bytes after the last block (reads of up to 5 bytes at any bit position stay in bounds). */
export const PADDING = 8;

export function varintLength(v: number): number {
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export function writeVarint(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 128) {
    buf[pos++] = (v % 128) | 128;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Bits needed to store v >= 0 (0 for 0). */
export function bitWidth(v: number): number {
  return v === 0 ? 0 : 32 - Math.clz32(v);
}

/** The layout of one block, from its statistics. */
export function blockLength(firstDelta: number, n: number, docBits: number, tfBits: number): number {
  return varintLength(firstDelta) + 3 + Math.ceil(((n - 1) * docBits) / 8) + Math.ceil((n * tfBits) / 8);
}

/** ORs the w low bits of v (w <= 31) into the zeroed area starting at byte `base`, at bit position bitPos. */
export function writeBits(buf: Uint8Array, base: number, bitPos: number, w: number, v: number): void {
  let byte = base + (bitPos >>> 3);
  let sh = bitPos & 7;
  let left = w;
  while (left > 0) {
    buf[byte]! |= (v << sh) & 0xff;
    const took = 8 - sh;
    v = v >>> took;
    left -= took;
    byte++;
    sh = 0;
  }
}

/** The w-bit value (w <= 31) at bit position bitPos of buf, starting at byte `base`. */
export function readBits(buf: Uint8Array, base: number, bitPos: number, w: number): number {
  const at = base + (bitPos >>> 3);
  const sh = bitPos & 7;
  let v = (buf[at]! | (buf[at + 1]! << 8) | (buf[at + 2]! << 16) | (buf[at + 3]! << 24)) >>> sh;
  if (w + sh > 32) v |= buf[at + 4]! << (32 - sh);
  return w === 31 ? v & 0x7fffffff : v & ((1 << w) - 1);
}

/** Writes a whole block at buf[pos..] from its postings; returns the position after it. */
export function writeBlock(buf: Uint8Array, pos: number, prevDoc: number, docs: ArrayLike<number>, tfs: ArrayLike<number>, n: number): number {
  const first = docs[0]!;
  let maxOff = 0;
  let maxTf = 0;
  for (let j = 0; j < n; j++) {
    maxOff = Math.max(maxOff, docs[j]! - first);
    maxTf = Math.max(maxTf, tfs[j]! - 1);
  }
  const docBits = bitWidth(maxOff);
  const tfBits = bitWidth(maxTf);
  pos = writeVarint(buf, pos, first - prevDoc - 1);
  buf[pos++] = n - 1;
  buf[pos++] = docBits;
  buf[pos++] = tfBits;
  const docArea = pos;
  buf.fill(0, docArea, docArea + Math.ceil(((n - 1) * docBits) / 8) + Math.ceil((n * tfBits) / 8));
  if (docBits > 0) for (let j = 1; j < n; j++) writeBits(buf, docArea, (j - 1) * docBits, docBits, docs[j]! - first);
  const tfArea = docArea + Math.ceil(((n - 1) * docBits) / 8);
  if (tfBits > 0) for (let j = 0; j < n; j++) writeBits(buf, tfArea, j * tfBits, tfBits, tfs[j]! - 1);
  return tfArea + Math.ceil((n * tfBits) / 8);
}

/** A parsed block header: where its areas are, and what it holds. */
export class BlockReader {
  first = 0;
  n = 0;
  docBits = 0;
  tfBits = 0;
  docArea = 0;
  tfArea = 0;
  /** Byte after the block. */
  end = 0;

  /** Parses the block at postings[pos]; prevDoc is the last doc of the term's previous block (or -1). */
  open(postings: Uint8Array, pos: number, prevDoc: number): this {
    let byte = postings[pos++]!;
    let v = byte & 127;
    for (let mul = 128; byte >= 128; mul *= 128) {
      byte = postings[pos++]!;
      v += (byte & 127) * mul;
    }
    this.first = prevDoc + v + 1;
    this.n = postings[pos]! + 1;
    this.docBits = postings[pos + 1]!;
    this.tfBits = postings[pos + 2]!;
    this.docMask = this.docBits === 31 ? 0x7fffffff : (1 << this.docBits) - 1;
    this.docArea = pos + 3;
    this.tfArea = this.docArea + Math.ceil(((this.n - 1) * this.docBits) / 8);
    this.end = this.tfArea + Math.ceil((this.n * this.tfBits) / 8);
    return this;
  }

  /** Mask of docBits low bits. */
  docMask = 0;

  /** `doc` through a DataView of the same postings (one unaligned 32-bit load instead of four byte loads). */
  docIn(view: DataView, j: number): number {
    if (j === 0) return this.first;
    const bit = (j - 1) * this.docBits;
    const at = this.docArea + (bit >>> 3);
    const sh = bit & 7;
    let v = view.getUint32(at, true) >>> sh;
    if (this.docBits + sh > 32) v |= view.getUint8(at + 4) << (32 - sh);
    return this.first + (v & this.docMask);
  }

  doc(postings: Uint8Array, j: number): number {
    return j === 0 ? this.first : this.first + readBits(postings, this.docArea, (j - 1) * this.docBits, this.docBits);
  }

  tf(postings: Uint8Array, j: number): number {
    return this.tfBits === 0 ? 1 : 1 + readBits(postings, this.tfArea, j * this.tfBits, this.tfBits);
  }

  /** Decodes every posting into docs/tfs (sized >= n); returns n. `view` is a DataView of the postings. */
  decode(view: DataView, docs: Int32Array, tfs: Int32Array): number {
    const n = this.decodeDocs(view, docs);
    const { tfBits, tfArea } = this;
    if (tfBits === 0) {
      tfs.fill(1, 0, n);
    } else {
      const mask = (1 << tfBits) - 1;
      let bit = 0;
      for (let j = 0; j < n; j++, bit += tfBits) {
        // tfBits <= 31 and sh <= 7: a tf wider than 25 bits may need a fifth byte
        const at = tfArea + (bit >>> 3);
        const sh = bit & 7;
        let v = view.getUint32(at, true) >>> sh;
        if (tfBits + sh > 32) v |= view.getUint8(at + 4) << (32 - sh);
        tfs[j] = 1 + (v & mask);
      }
    }
    return n;
  }

  /** Decodes the documents of every posting into docs (sized >= n), not the tfs; returns n. */
  decodeDocs(view: DataView, docs: Int32Array): number {
    const { n, first, docBits, docArea } = this;
    docs[0] = first;
    if (docBits === 0) {
      for (let j = 1; j < n; j++) docs[j] = first;
    } else {
      const mask = this.docMask;
      let bit = 0;
      for (let j = 1; j < n; j++, bit += docBits) {
        const at = docArea + (bit >>> 3);
        const sh = bit & 7;
        let v = view.getUint32(at, true) >>> sh;
        if (docBits + sh > 32) v |= view.getUint8(at + 4) << (32 - sh);
        docs[j] = first + (v & mask);
      }
    }
    return n;
  }
}

/** A DataView of a postings array (what `BlockReader.decode` and `docIn` read). */
export function postingsView(postings: Uint8Array): DataView {
  return new DataView(postings.buffer, postings.byteOffset, postings.byteLength);
}

/** The arrays of an index (index.ts's Bm25Index) that locate a term's postings. */
export interface TermPostings {
  readonly postings: Uint8Array;
  readonly termBlockOffsets: Float64Array;
  readonly blockStart: Float64Array;
  readonly blockLastDoc: Uint32Array;
}

/** Decodes the postings of term t: calls fn(doc, tf) in doc order. */
export function forEachPostingOf(
  index: TermPostings,
  t: number,
  fn: (doc: number, tf: number) => void,
): void {
  const r = new BlockReader();
  const p = index.postings;
  const first = index.termBlockOffsets[t]!;
  for (let b = first; b < index.termBlockOffsets[t + 1]!; b++) {
    r.open(p, index.blockStart[b]!, b === first ? -1 : index.blockLastDoc[b - 1]!);
    for (let j = 0; j < r.n; j++) fn(r.doc(p, j), r.tf(p, j));
  }
}
