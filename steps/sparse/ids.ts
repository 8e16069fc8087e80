/**
 * Passage ids in an index: ranks in code point order (= UTF-8 byte order = Lucene's BytesRef
 * order), which break score ties without comparing strings at query time, and duplicate detection
 * (equal neighbours after sorting: no Set, whose size V8 caps at 2^24 entries). Ranks are computed
 * on the UTF-8 bytes the index stores, per segment and then by a k-way merge of the segments'
 * sorted orders, so merging never holds the ids as JS strings.
 */
import { InputError } from "../../pipeline/engine/errors.ts";

/** Code point order (= UTF-8 byte order), unlike `<` on JS strings for astral characters. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x <= 0xdfff ? x + 0x2000 : x - 0x800;
        y = y <= 0xdfff ? y + 0x2000 : y - 0x800;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** UTF-8 ids back to back: id d at bytes[offsets[d] .. offsets[d + 1]). */
export interface IdBytes {
  readonly idBytes: Uint8Array;
  readonly idOffsets: Float64Array;
}

function compareIdBytes(a: IdBytes, da: number, b: IdBytes, db: number): number {
  const as = a.idOffsets[da]!;
  const ae = a.idOffsets[da + 1]!;
  const bs = b.idOffsets[db]!;
  const be = b.idOffsets[db + 1]!;
  const n = Math.min(ae - as, be - bs);
  const x = a.idBytes;
  const y = b.idBytes;
  for (let i = 0; i < n; i++) {
    const d = x[as + i]! - y[bs + i]!;
    if (d !== 0) return d;
  }
  return ae - as - (be - bs);
}

const dec = new TextDecoder();
const idString = (ids: IdBytes, d: number): string => dec.decode(ids.idBytes.subarray(ids.idOffsets[d]!, ids.idOffsets[d + 1]!));

function duplicate(ids: IdBytes, d: number, first: number, second: number, source: string): InputError {
  return new InputError(`duplicate passage id '${idString(ids, d)}' (documents ${first + 1} and ${second + 1})`, {
    file: source,
    field: "id",
    fix: "passage ids must be unique; deduplicate the collection",
  });
}

/** Position of each id in byte order; throws InputError on a duplicate id. */
export function rankIdBytes(ids: IdBytes, numDocs: number, source: string): Uint32Array {
  const byId = new Uint32Array(numDocs);
  for (let d = 0; d < numDocs; d++) byId[d] = d;
  const order = Array.from(byId).sort((a, b) => compareIdBytes(ids, a, ids, b) || a - b);
  const idRank = new Uint32Array(numDocs);
  for (let r = 0; r < order.length; r++) {
    const d = order[r]!;
    if (r > 0 && compareIdBytes(ids, order[r - 1]!, ids, d) === 0) throw duplicate(ids, d, order[r - 1]!, d, source);
    idRank[d] = r;
  }
  return idRank;
}

/** rankIdBytes for JS strings (encoded first). */
export function rankIds(ids: readonly string[], source: string): Uint32Array {
  const enc = new TextEncoder();
  const parts = ids.map((id) => enc.encode(id));
  const idOffsets = new Float64Array(ids.length + 1);
  for (let i = 0; i < parts.length; i++) idOffsets[i + 1] = idOffsets[i]! + parts[i]!.length;
  const idBytes = new Uint8Array(idOffsets[ids.length]!);
  parts.forEach((p, i) => idBytes.set(p, idOffsets[i]!));
  return rankIdBytes({ idBytes, idOffsets }, ids.length, source);
}

/**
 * Global ranks of the documents of consecutive segments (segment s holds global docs base_s ..),
 * from each segment's own ranks: a k-way merge of the segments' sorted orders. Throws InputError on
 * an id present in two segments (documents numbered globally in the message).
 */
export function mergeIdRanks(segments: readonly (IdBytes & { readonly idRank: Uint32Array; readonly numDocs: number })[], source: string): Uint32Array {
  const bases: number[] = [];
  let total = 0;
  for (const s of segments) {
    bases.push(total);
    total += s.numDocs;
  }
  const orders = segments.map((s) => {
    const o = new Uint32Array(s.numDocs);
    for (let d = 0; d < s.numDocs; d++) o[s.idRank[d]!] = d;
    return o;
  });
  const heads = segments.map(() => 0);
  const out = new Uint32Array(total);
  let prevSeg = -1;
  let prevDoc = -1;
  // Few segments: a linear scan for the smallest head is cheaper than a heap.
  for (let r = 0; r < total; r++) {
    let best = -1;
    for (let s = 0; s < segments.length; s++) {
      if (heads[s]! >= segments[s]!.numDocs) continue;
      if (best < 0 || compareIdBytes(segments[s]!, orders[s]![heads[s]!]!, segments[best]!, orders[best]![heads[best]!]!) < 0) best = s;
    }
    const seg = segments[best]!;
    const d = orders[best]![heads[best]!++]!;
    if (prevSeg >= 0 && compareIdBytes(segments[prevSeg]!, prevDoc, seg, d) === 0) {
      throw duplicate(seg, d, bases[prevSeg]! + prevDoc, bases[best]! + d, source);
    }
    out[bases[best]! + d] = r;
    prevSeg = best;
    prevDoc = d;
  }
  return out;
}
