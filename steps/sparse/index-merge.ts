/**
 * Builds an index file for collections larger than memory: documents are indexed into segments of
 * at most `maxPostingsInMemory` postings (8 bytes each while accumulating), each segment is written
 * to a temporary index file, and the segments are merged term by term at the end. Every segment's
 * postings are read sequentially (terms are visited in sorted order), so the merge holds only the
 * term dictionaries, norms and ids in memory, never the postings. One segment: no merge.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IndexBuilder, rankIds, writeVarint } from "./index.ts";
import type { Bm25Index, BuildOptions } from "./index.ts";
import { postingsLocation, readIndex, writeIndex } from "./index-file.ts";
import type { IndexParts } from "./index-file.ts";

export interface BuildFileOptions<D> extends BuildOptions<D> {
  /** Postings per in-memory segment (default 100M, ~800 MB while accumulating). */
  readonly maxPostingsInMemory?: number;
  /** Where segment files go (default: the OS temp dir). */
  readonly tmpDir?: string;
}

export interface BuildFileResult {
  readonly numDocs: number;
  readonly docCount: number;
  readonly numTerms: number;
  readonly sumTotalTermFreq: number;
  readonly bytes: number;
  readonly bytesPerPassage: number;
  readonly segments: number;
}

/** Streams documents into an index file at `path`. */
export async function buildIndexFile<D extends { readonly id: string }>(
  docs: Iterable<D> | AsyncIterable<D>,
  path: string,
  opts: BuildFileOptions<D> = {},
): Promise<BuildFileResult> {
  const textOf = opts.textOf ?? ((d: D) => (d as unknown as { text: string }).text);
  const every = opts.progressEvery ?? 10_000;
  const limit = opts.maxPostingsInMemory ?? 100_000_000;
  const source = opts.source ?? "<documents>";
  const tmp = mkdtempSync(join(opts.tmpDir ?? tmpdir(), "cspipe-bm25-seg-"));
  const segments: string[] = [];
  try {
    let builder = new IndexBuilder(source);
    let done = 0;
    for await (const d of docs) {
      builder.add(d.id, textOf(d));
      done++;
      if (opts.onProgress && done % every === 0) opts.onProgress(done, opts.total);
      if (builder.numPostings >= limit) {
        const seg = join(tmp, `seg${segments.length}.bm25`);
        writeIndex(builder.finish({ rankIds: false }), seg);
        segments.push(seg);
        builder = new IndexBuilder(source);
      }
    }
    opts.onProgress?.(done, opts.total);
    if (segments.length === 0) {
      const index = builder.finish();
      return summary(index, writeIndex(index, path), 1);
    }
    if (builder.numDocs > 0) {
      const seg = join(tmp, `seg${segments.length}.bm25`);
      writeIndex(builder.finish({ rankIds: false }), seg);
      segments.push(seg);
    }
    const merged = mergeSegments(segments, join(tmp, "postings.tmp"), source);
    return summary(merged, writeIndex(merged, path), segments.length);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function summary(index: IndexParts, bytes: number, segments: number): BuildFileResult {
  return {
    numDocs: index.numDocs,
    docCount: index.docCount,
    numTerms: index.numTerms,
    sumTotalTermFreq: index.sumTotalTermFreq,
    bytes,
    bytesPerPassage: index.numDocs > 0 ? bytes / index.numDocs : 0,
    segments,
  };
}

/** Sequential byte reader over a region of a file. */
class FileReader {
  private readonly buf = new Uint8Array(1 << 22);
  private len = 0;
  private i = 0;
  private filePos: number;
  constructor(
    private readonly fd: number,
    start: number,
    private readonly end: number,
  ) {
    this.filePos = start;
  }
  private byte(): number {
    if (this.i === this.len) {
      const n = readSync(this.fd, this.buf, 0, Math.min(this.buf.length, this.end - this.filePos), this.filePos);
      if (n <= 0) throw new Error("segment postings ended early");
      this.filePos += n;
      this.len = n;
      this.i = 0;
    }
    return this.buf[this.i++]!;
  }
  varint(): number {
    let v = 0;
    let mul = 1;
    let b: number;
    do {
      b = this.byte();
      v += (b & 127) * mul;
      mul *= 128;
    } while (b >= 128);
    return v;
  }
}

/** Sequential writer to a file; returns the number of bytes written on close. */
class FileWriter {
  private readonly buf = new Uint8Array(1 << 22);
  private pos = 0;
  written = 0;
  constructor(private readonly fd: number) {}
  get position(): number {
    return this.written + this.pos;
  }
  varint(v: number): void {
    if (this.pos > this.buf.length - 10) this.flush();
    this.pos = writeVarint(this.buf, this.pos, v);
  }
  flush(): void {
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, this.buf, off, this.pos - off);
    this.written += this.pos;
    this.pos = 0;
  }
}

function compareBytes(a: Uint8Array, as: number, ae: number, b: Uint8Array, bs: number, be: number): number {
  const n = Math.min(ae - as, be - bs);
  for (let i = 0; i < n; i++) {
    const d = a[as + i]! - b[bs + i]!;
    if (d !== 0) return d;
  }
  return ae - as - (be - bs);
}

/** Merges segment files (in document order) into one index whose postings sit in `postingsFile`. */
export function mergeSegments(segmentPaths: readonly string[], postingsFile: string, source: string): IndexParts {
  const segs = segmentPaths.map((p) => ({ index: readIndex(p, { shared: false, withoutPostings: true }), loc: postingsLocation(p), fd: openSync(p, "r") }));
  const out = openSync(postingsFile, "w");
  try {
    const bases: number[] = [];
    let numDocs = 0;
    for (const s of segs) {
      bases.push(numDocs);
      numDocs += s.index.numDocs;
    }
    const readers = segs.map((s) => new FileReader(s.fd, s.loc.offset, s.loc.offset + s.loc.length));
    const cursor = segs.map(() => 0);
    const writer = new FileWriter(out);
    const termChunks: Uint8Array[] = [];
    const termOffsets: number[] = [0];
    const df: number[] = [];
    const postingOffsets: number[] = [0];
    let termBytesLength = 0;
    const live = (i: number): boolean => cursor[i]! < segs[i]!.index.numTerms;
    for (;;) {
      // smallest current term over the segments (few segments: a linear scan is fine)
      let min = -1;
      for (let i = 0; i < segs.length; i++) {
        if (!live(i)) continue;
        if (min < 0) {
          min = i;
          continue;
        }
        const a = segs[i]!.index;
        const b = segs[min]!.index;
        const ta = cursor[i]!;
        const tb = cursor[min]!;
        if (compareBytes(a.termBytes, a.termOffsets[ta]!, a.termOffsets[ta + 1]!, b.termBytes, b.termOffsets[tb]!, b.termOffsets[tb + 1]!) < 0) min = i;
      }
      if (min < 0) break;
      const m = segs[min]!.index;
      const mt = cursor[min]!;
      const ms = m.termOffsets[mt]!;
      const me = m.termOffsets[mt + 1]!;
      termChunks.push(m.termBytes.subarray(ms, me));
      termBytesLength += me - ms;
      termOffsets.push(termBytesLength);
      let termDf = 0;
      let last = -1;
      for (let i = 0; i < segs.length; i++) {
        if (!live(i)) continue;
        const s = segs[i]!.index;
        const t = cursor[i]!;
        if (compareBytes(s.termBytes, s.termOffsets[t]!, s.termOffsets[t + 1]!, m.termBytes, ms, me) !== 0) continue;
        const r = readers[i]!;
        const n = s.df[t]!;
        let local = -1;
        for (let j = 0; j < n; j++) {
          const v = r.varint();
          const tf = v % 2 === 1 ? 1 : r.varint();
          local += Math.floor(v / 2) + 1;
          const global = bases[i]! + local;
          writer.varint((global - last - 1) * 2 + (tf === 1 ? 1 : 0));
          if (tf !== 1) writer.varint(tf);
          last = global;
        }
        termDf += n;
        cursor[i] = t + 1;
      }
      df.push(termDf);
      postingOffsets.push(writer.position);
    }
    writer.flush();

    const termBytes = new Uint8Array(termBytesLength);
    let p = 0;
    for (const c of termChunks) {
      termBytes.set(c, p);
      p += c.length;
    }
    const norms = new Uint8Array(numDocs);
    const idOffsets = new Float64Array(numDocs + 1);
    let idBytesLength = 0;
    for (const s of segs) idBytesLength += s.index.idBytes.length;
    const idBytes = new Uint8Array(idBytesLength);
    const ids: string[] = [];
    const dec = new TextDecoder();
    let d = 0;
    let ib = 0;
    let docCount = 0;
    let sumTotalTermFreq = 0;
    for (const s of segs) {
      const x = s.index;
      norms.set(x.norms, d);
      idBytes.set(x.idBytes, ib);
      for (let j = 0; j < x.numDocs; j++) {
        idOffsets[d + j + 1] = ib + x.idOffsets[j + 1]!;
        ids.push(dec.decode(x.idBytes.subarray(x.idOffsets[j]!, x.idOffsets[j + 1]!)));
      }
      d += x.numDocs;
      ib += x.idBytes.length;
      docCount += x.docCount;
      sumTotalTermFreq += x.sumTotalTermFreq;
    }
    const index: Omit<Bm25Index, "postings"> = {
      analyzer: segs[0]!.index.analyzer,
      numDocs,
      docCount,
      sumTotalTermFreq,
      numTerms: df.length,
      termBytes,
      termOffsets: Float64Array.from(termOffsets),
      df: Uint32Array.from(df),
      postingOffsets: Float64Array.from(postingOffsets),
      norms,
      idRank: rankIds(ids, source),
      idBytes,
      idOffsets,
    };
    return { ...index, postings: { file: postingsFile, length: writer.written } };
  } finally {
    closeSync(out);
    for (const s of segs) closeSync(s.fd);
  }
}
