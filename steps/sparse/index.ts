/**
 * The in-memory BM25 inverted index and its builder (pure apart from the input iterable).
 *
 * Layout (all typed arrays, so the same structure is what the file format stores and what
 * worker threads share through SharedArrayBuffers):
 *  - terms sorted by UTF-8 bytes (= Lucene's term order), concatenated in `termBytes`, term t at
 *    termBytes[termOffsets[t] .. termOffsets[t+1]);
 *  - df[t]; postings of t at postings[postingOffsets[t] .. postingOffsets[t+1]) as varints:
 *    per posting (docDelta << 1 | tf==1), then tf when tf > 1 (docDelta from the previous doc of t);
 *  - norms[d] = SmallFloat.intToByte4(number of terms of d) (Lucene's lossy length);
 *  - idRank[d] = position of doc d's id in id order (code point order = Lucene's BytesRef order),
 *    used to break score ties by passage id without comparing strings;
 *  - ids concatenated in `idBytes` (UTF-8) with `idOffsets`.
 * Internal doc numbers are insertion order. Memory while building: ~8 bytes per posting plus the
 * id strings; the postings are then encoded at ~2-3 bytes per posting.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { ANALYZER_ID, analyzeEach } from "./analyzer.ts";
import { intToByte4 } from "./smallfloat.ts";

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
  readonly norms: Uint8Array;
  readonly idRank: Uint32Array;
  readonly idBytes: Uint8Array;
  readonly idOffsets: Float64Array;
}

export interface BuildOptions<D> {
  /** The text to index for a document; Pyserini indexes the `contents` field only. Default: `doc.text`. */
  readonly textOf?: (doc: D) => string;
  /** Name of the input, for error messages. */
  readonly source?: string;
  readonly onProgress?: (done: number, total?: number) => void;
  /** Documents between two onProgress calls (default 10,000). */
  readonly progressEvery?: number;
  /** Total number of documents, if known (passed to onProgress). */
  readonly total?: number;
}

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

/** Growable list of uint32 in fixed chunks (no giant reallocations). */
class U32Chunks {
  private readonly chunks: Uint32Array[] = [];
  private cur = new Uint32Array(1 << 20);
  private pos = 0;
  length = 0;
  push(v: number): void {
    if (this.pos === this.cur.length) {
      this.chunks.push(this.cur);
      this.cur = new Uint32Array(1 << 20);
      this.pos = 0;
    }
    this.cur[this.pos++] = v;
    this.length++;
  }
  *all(): Generator<Uint32Array> {
    yield* this.chunks;
    yield this.cur.subarray(0, this.pos);
  }
}

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

/** Accumulates documents one at a time; `finish()` returns the index. */
export class IndexBuilder {
  private readonly termIds = new Map<string, number>();
  private readonly termList: string[] = [];
  /** Per document: (termId, tf) pairs, documents back to back; docEnds[d] = pair count after d. */
  private readonly pairs = new U32Chunks();
  private readonly docEnds = new U32Chunks();
  private readonly norms = new U32Chunks();
  private readonly ids: string[] = [];
  private sumTotalTermFreq = 0;
  private docCount = 0;
  /** Per-term tf scratch for the current document (indexed by term id) and the terms it touched. */
  private tfScratch = new Uint32Array(1 << 16);
  private docTerms = new Uint32Array(1 << 12);

  constructor(private readonly source = "<documents>") {}

  get numDocs(): number {
    return this.ids.length;
  }

  /** Postings accumulated so far (each costs 8 bytes until finish()). */
  get numPostings(): number {
    return this.pairs.length / 2;
  }

  add(id: string, text: string): void {
    if (typeof id !== "string" || id.length === 0) {
      throw new InputError(`document ${this.ids.length + 1} has no id`, { file: this.source, field: "id", fix: "give every passage a non-empty string id" });
    }
    if (typeof text !== "string") {
      throw new InputError(`document '${id}' has no text`, { file: this.source, field: "text", fix: "give every passage a string text (possibly empty)" });
    }
    let tfs = this.tfScratch;
    let nTerms = 0;
    let length = 0;
    analyzeEach(text, (term) => {
      let t = this.termIds.get(term);
      if (t === undefined) {
        t = this.termList.length;
        this.termIds.set(term, t);
        this.termList.push(term);
        if (t >= tfs.length) {
          const bigger = new Uint32Array(tfs.length * 2);
          bigger.set(tfs);
          tfs = this.tfScratch = bigger;
        }
      }
      if (tfs[t] === 0) {
        if (nTerms === this.docTerms.length) {
          const bigger = new Uint32Array(this.docTerms.length * 2);
          bigger.set(this.docTerms);
          this.docTerms = bigger;
        }
        this.docTerms[nTerms++] = t;
      }
      tfs[t]!++;
      length++;
    });
    for (let i = 0; i < nTerms; i++) {
      const t = this.docTerms[i]!;
      this.pairs.push(t);
      this.pairs.push(tfs[t]!);
      tfs[t] = 0;
    }
    this.docEnds.push(this.pairs.length / 2);
    this.norms.push(intToByte4(length));
    this.ids.push(id);
    if (length > 0) this.docCount++;
    this.sumTotalTermFreq += length;
  }

  /** The index of the documents added so far. `rankIds: false` skips the id sort (segments being merged). */
  finish(opts: { readonly rankIds?: boolean } = {}): Bm25Index {
    const numTerms = this.termList.length;
    const numDocs = this.ids.length;
    // Sorted term order; remap first-seen ids to sorted positions.
    const order = Array.from({ length: numTerms }, (_, i) => i).sort((a, b) => compareCodePoints(this.termList[a]!, this.termList[b]!));
    const rankOf = new Uint32Array(numTerms);
    order.forEach((t, r) => (rankOf[t] = r));

    // Pass 1: df and encoded size per term.
    const df = new Uint32Array(numTerms);
    const size = new Float64Array(numTerms);
    const lastDoc = new Float64Array(numTerms).fill(-1);
    this.forEachPosting((d, t, tf) => {
      const r = rankOf[t]!;
      df[r]!++;
      size[r]! += varintLength((d - lastDoc[r]! - 1) * 2 + (tf === 1 ? 1 : 0)) + (tf === 1 ? 0 : varintLength(tf));
      lastDoc[r] = d;
    });
    const postingOffsets = new Float64Array(numTerms + 1);
    for (let r = 0; r < numTerms; r++) postingOffsets[r + 1] = postingOffsets[r]! + size[r]!;
    const postings = new Uint8Array(postingOffsets[numTerms]!);
    // Pass 2: write.
    const cursor = Float64Array.from(postingOffsets.subarray(0, numTerms));
    lastDoc.fill(-1);
    this.forEachPosting((d, t, tf) => {
      const r = rankOf[t]!;
      let p = writeVarint(postings, cursor[r]!, (d - lastDoc[r]! - 1) * 2 + (tf === 1 ? 1 : 0));
      if (tf !== 1) p = writeVarint(postings, p, tf);
      cursor[r] = p;
      lastDoc[r] = d;
    });

    const enc = new TextEncoder();
    const termParts = order.map((t) => enc.encode(this.termList[t]!));
    const { bytes: termBytes, offsets: termOffsets } = concat(termParts);
    const idParts = this.ids.map((id) => enc.encode(id));
    const { bytes: idBytes, offsets: idOffsets } = concat(idParts);
    const idRank = opts.rankIds === false ? new Uint32Array(numDocs) : rankIds(this.ids, this.source);
    const norms = new Uint8Array(numDocs);
    let i = 0;
    for (const c of this.norms.all()) {
      norms.set(c, i);
      i += c.length;
    }
    return {
      analyzer: ANALYZER_ID,
      numDocs,
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
      numTerms,
      termBytes,
      termOffsets,
      df,
      postingOffsets,
      postings,
      norms,
      idRank,
      idBytes,
      idOffsets,
    };
  }

  private forEachPosting(fn: (doc: number, term: number, tf: number) => void): void {
    const ends = this.docEnds.all();
    let endChunk = ends.next().value as Uint32Array;
    let endPos = 0;
    let doc = 0;
    let pairIndex = 0;
    let pending = -1;
    for (const chunk of this.pairs.all()) {
      for (let k = 0; k < chunk.length; k++) {
        if (pending < 0) {
          pending = chunk[k]!;
          continue;
        }
        // advance doc until pairIndex < docEnds[doc]
        for (;;) {
          if (endPos === endChunk.length) {
            endChunk = ends.next().value as Uint32Array;
            endPos = 0;
          }
          if (pairIndex < endChunk[endPos]!) break;
          endPos++;
          doc++;
        }
        fn(doc, pending, chunk[k]!);
        pairIndex++;
        pending = -1;
      }
    }
  }
}

/**
 * Position of each id in code point order; throws InputError on a duplicate id (found as equal
 * neighbours after sorting: no Set, whose size V8 caps at 2^24 entries).
 */
export function rankIds(ids: readonly string[], source: string): Uint32Array {
  const byId = Array.from({ length: ids.length }, (_, i) => i).sort((a, b) => compareCodePoints(ids[a]!, ids[b]!) || a - b);
  const idRank = new Uint32Array(ids.length);
  for (let r = 0; r < byId.length; r++) {
    const d = byId[r]!;
    if (r > 0 && ids[byId[r - 1]!] === ids[d]) {
      throw new InputError(`duplicate passage id '${ids[d]}' (documents ${byId[r - 1]! + 1} and ${d + 1})`, {
        file: source,
        field: "id",
        fix: "passage ids must be unique; deduplicate the collection",
      });
    }
    idRank[d] = r;
  }
  return idRank;
}

function concat(parts: readonly Uint8Array[]): { bytes: Uint8Array; offsets: Float64Array } {
  const offsets = new Float64Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  const bytes = new Uint8Array(offsets[parts.length]!);
  for (let i = 0; i < parts.length; i++) bytes.set(parts[i]!, offsets[i]!);
  return { bytes, offsets };
}

/** Builds an index from documents (sync or async iterable), in insertion order. */
export async function buildIndex<D extends { readonly id: string }>(
  docs: Iterable<D> | AsyncIterable<D>,
  opts: BuildOptions<D> = {},
): Promise<Bm25Index> {
  const textOf = opts.textOf ?? ((d: D) => (d as unknown as { text: string }).text);
  const every = opts.progressEvery ?? 10_000;
  const b = new IndexBuilder(opts.source);
  for await (const d of docs) {
    b.add(d.id, textOf(d));
    if (opts.onProgress && b.numDocs % every === 0) opts.onProgress(b.numDocs, opts.total);
  }
  opts.onProgress?.(b.numDocs, opts.total);
  return b.finish();
}

/** Synchronous variant for in-memory arrays (tests, small collections). */
export function buildIndexSync(docs: Iterable<{ readonly id: string; readonly text: string }>): Bm25Index {
  const b = new IndexBuilder();
  for (const d of docs) b.add(d.id, d.text);
  return b.finish();
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

/** Decodes the postings of term t: calls fn(doc, tf) in doc order. */
export function forEachPostingOf(index: Bm25Index, t: number, fn: (doc: number, tf: number) => void): void {
  const p = index.postings;
  let pos = index.postingOffsets[t]!;
  const end = index.postingOffsets[t + 1]!;
  let doc = -1;
  while (pos < end) {
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
    fn(doc, tf);
  }
}
