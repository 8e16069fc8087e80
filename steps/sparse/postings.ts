/**
 * The postings codec (pure). Per term, postings in document order as varints: per posting
 * (docDelta << 1 | tf==1), then tf when tf > 1, where docDelta = doc - previous doc - 1 (the first
 * posting of a term counts from -1). Blocks (./blocks.ts) cut this stream without changing it: a
 * block's first delta counts from the last document of the block before it.
 */
import type { Bm25Index } from "./index.ts";

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

/** Bytes one posting takes: the (delta, tf==1) varint plus tf when it is not 1. */
export function postingLength(docDelta: number, tf: number): number {
  return varintLength(docDelta * 2 + (tf === 1 ? 1 : 0)) + (tf === 1 ? 0 : varintLength(tf));
}

export function writePosting(buf: Uint8Array, pos: number, docDelta: number, tf: number): number {
  pos = writeVarint(buf, pos, docDelta * 2 + (tf === 1 ? 1 : 0));
  return tf === 1 ? pos : writeVarint(buf, pos, tf);
}

/**
 * Decodes postings[start, end) into docs/tfs (the caller sizes them: at most one posting per byte);
 * `prevDoc` is the document before the first one. Returns the number of postings.
 */
export function decodePostings(postings: Uint8Array, start: number, end: number, prevDoc: number, docs: Int32Array, tfs: Int32Array): number {
  let pos = start;
  let d = prevDoc;
  let n = 0;
  while (pos < end) {
    let byte = postings[pos++]!;
    let v = byte & 127;
    for (let mul = 128; byte >= 128; mul *= 128) {
      byte = postings[pos++]!;
      v += (byte & 127) * mul;
    }
    let tf = 1;
    if ((v & 1) === 0) {
      byte = postings[pos++]!;
      tf = byte & 127;
      for (let mul = 128; byte >= 128; mul *= 128) {
        byte = postings[pos++]!;
        tf += (byte & 127) * mul;
      }
    }
    d += Math.floor(v / 2) + 1;
    docs[n] = d;
    tfs[n++] = tf;
  }
  return n;
}

/** Decodes the postings of term t: calls fn(doc, tf, byteOffset) in doc order. */
export function forEachPostingOf(index: Pick<Bm25Index, "postings" | "postingOffsets">, t: number, fn: (doc: number, tf: number, byteOffset: number) => void): void {
  const p = index.postings;
  let pos = index.postingOffsets[t]!;
  const end = index.postingOffsets[t + 1]!;
  let doc = -1;
  while (pos < end) {
    const at = pos;
    let v = 0;
    let mul = 1;
    let byte: number;
    do {
      byte = p[pos++]!;
      v += (byte & 127) * mul;
      mul *= 128;
    } while (byte >= 128);
    let tf = 1;
    if (v % 2 === 0) {
      tf = 0;
      mul = 1;
      do {
        byte = p[pos++]!;
        tf += (byte & 127) * mul;
        mul *= 128;
      } while (byte >= 128);
    }
    doc += Math.floor(v / 2) + 1;
    fn(doc, tf, at);
  }
}
