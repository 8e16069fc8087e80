/**
 * Builds an index file for collections larger than memory: documents are indexed into segments of
 * at most `maxPostingsInMemory` postings (4 bytes each while accumulating), each segment is written
 * to a temporary index file, and the segments are merged term by term at the end. Every segment's
 * postings are read sequentially (terms are visited in sorted order) and every output section
 * proportional to the postings (postings, skip blocks, impacts) is streamed to a temporary file, so
 * the merge holds only the term dictionaries, norms, ids and id ranks in memory (ids as UTF-8 bytes;
 * their global order is a k-way merge of the segments' own orders). One segment: no merge.
 */
import { Checkpoints } from "../lib/cancel.ts";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BlockWriter, DEFAULT_BLOCK_SIZE, withLeadingZero } from "./blocks.ts";
import { BlockReader, MAX_BLOCK_SIZE, PADDING, postingsView } from "./postings.ts";
import { concatParts, FileBytes, FileColumn, MemoryColumn } from "./columns.ts";
import type { FileSection } from "./columns.ts";
import { mergeIdRanks } from "./ids.ts";
import { IndexBuilder } from "./index.ts";
import type { Bm25Index, BuildOptions, HeavyColumns, HeavySectionName } from "./index.ts";
import { readIndex, sectionLocation, writeIndex } from "./index-file.ts";
import type { IndexParts, SectionName } from "./index-file.ts";

export interface BuildFileOptions<D> extends BuildOptions<D> {
  /** Postings per in-memory segment (default 100M, ~400 MB while accumulating). */
  readonly maxPostingsInMemory?: number;
  /** Where segment files go (default: the OS temp dir). */
  readonly tmpDir?: string;
  /** Stops the build (throws its reason) within a fraction of a second of being aborted. */
  readonly signal?: AbortSignal;
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
  const blockSize = opts.blockSize ?? DEFAULT_BLOCK_SIZE;
  const tmp = mkdtempSync(join(opts.tmpDir ?? tmpdir(), "cspipe-bm25-seg-"));
  const segments: string[] = [];
  try {
    let builder = new IndexBuilder(source, blockSize);
    let done = 0;
    // The heavy sections go to files next to the segments, then are copied into the index file.
    const write = (b: IndexBuilder, out: string): IndexParts => {
      const work = mkdtempSync(join(tmp, "cols-"));
      try {
        const parts = b.finishInto(heavyColumnsInFiles(work));
        writeIndex(parts, out);
        return parts;
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    };
    const cp = new Checkpoints(opts.signal);
    for await (const d of docs) {
      await cp.pass();
      builder.add(d.id, textOf(d));
      done++;
      if (opts.onProgress && done % every === 0) opts.onProgress(done, opts.total);
      if (builder.numPostings >= limit) {
        const seg = join(tmp, `seg${segments.length}.bm25`);
        write(builder, seg);
        segments.push(seg);
        builder = new IndexBuilder(source, blockSize);
      }
    }
    opts.onProgress?.(done, opts.total);
    if (segments.length === 0) {
      const parts = write(builder, path);
      return summary(parts, statSync(path).size, 1);
    }
    if (builder.numDocs > 0) {
      const seg = join(tmp, `seg${segments.length}.bm25`);
      write(builder, seg);
      segments.push(seg);
    }
    const merged = mergeSegments(segments, tmp, source, blockSize);
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
  private readonly block = new Uint8Array(2 * Math.ceil((MAX_BLOCK_SIZE * 31) / 8) + 16);
  private readonly reader = new BlockReader();
  private readonly blockView = postingsView(this.block);
  /** Reads the next block (see ./postings.ts) into docs/tfs; returns its posting count. */
  readBlock(prevDoc: number, docs: Int32Array, tfs: Int32Array): number {
    const b = this.block;
    let p = 0;
    do b[p] = this.byte();
    while (b[p++]! >= 128);
    for (let k = 0; k < 3; k++) b[p++] = this.byte();
    const n = b[p - 3]! + 1;
    const areas = Math.ceil(((n - 1) * b[p - 2]!) / 8) + Math.ceil((n * b[p - 1]!) / 8);
    for (let k = 0; k < areas; k++) b[p++] = this.byte();
    b.fill(0, p, p + PADDING);
    return this.reader.open(b, 0, prevDoc).decode(this.blockView, docs, tfs);
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

/** Sections the merge does not need from a segment (it re-reads the postings sequentially). */
const HEAVY: readonly SectionName[] = ["postings", "termBlockOffsets", "termImpactOffsets", "blockLastDoc", "blockStart", "blockImpactOffsets", "impacts"];

/** A segment file open for the merge: its light sections in memory, where its postings start, its descriptor. */
interface Segment {
  readonly index: Bm25Index;
  readonly loc: { readonly offset: number; readonly length: number };
  readonly fd: number;
}

/** The columns the merged postings, skip blocks and impacts go to (the heavy ones in files). */
type MergeColumns = ConstructorParameters<typeof BlockWriter>[0];

/** Each segment's first global document number, the total, and every document's norm at its global number. */
function segmentDocs(segs: readonly Segment[]): { bases: number[]; numDocs: number; norms: Uint8Array } {
  const bases: number[] = [];
  let numDocs = 0;
  for (const s of segs) {
    bases.push(numDocs);
    numDocs += s.index.numDocs;
  }
  const norms = new Uint8Array(numDocs);
  segs.forEach((s, i) => norms.set(s.index.norms, bases[i]!));
  return { bases, numDocs, norms };
}

/** The segment whose current term is the smallest (-1 when every segment is done); few segments, so a linear scan. */
function smallestTerm(segs: readonly Segment[], cursor: readonly number[]): number {
  let min = -1;
  for (let i = 0; i < segs.length; i++) {
    if (cursor[i]! >= segs[i]!.index.numTerms) continue;
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
  return min;
}

/** Streams a segment's `n` postings of its current term into `blocks`, at their global document numbers. */
function copyPostings(r: FileReader, n: number, base: number, norms: Uint8Array, blocks: BlockWriter, docs: Int32Array, tfs: Int32Array): void {
  let prev = -1;
  for (let done = 0; done < n; ) {
    const got = r.readBlock(prev, docs, tfs);
    for (let j = 0; j < got; j++) {
      const global = base + docs[j]!;
      blocks.add(global, tfs[j]!, norms[global]!);
    }
    prev = docs[got - 1]!;
    done += got;
  }
}

/** The terms of every segment in byte order, each with the postings of every segment holding it (in segment order). */
function mergeTerms(segs: readonly Segment[], docs: { bases: readonly number[]; norms: Uint8Array }, columns: MergeColumns, blockSize: number): { termBytes: Uint8Array; termOffsets: Float64Array; df: number[] } {
  const readers = segs.map((s) => new FileReader(s.fd, s.loc.offset, s.loc.offset + s.loc.length));
  const cursor = segs.map(() => 0);
  const blocks = new BlockWriter(columns, blockSize);
  const docBuf = new Int32Array(MAX_BLOCK_SIZE);
  const tfBuf = new Int32Array(MAX_BLOCK_SIZE);
  const termChunks: Uint8Array[] = [];
  const df: number[] = [];
  for (let min = smallestTerm(segs, cursor); min >= 0; min = smallestTerm(segs, cursor)) {
    const m = segs[min]!.index;
    const ms = m.termOffsets[cursor[min]!]!;
    const me = m.termOffsets[cursor[min]! + 1]!;
    termChunks.push(m.termBytes.subarray(ms, me));
    let termDf = 0;
    for (let i = 0; i < segs.length; i++) {
      const s = segs[i]!.index;
      const t = cursor[i]!;
      if (t >= s.numTerms || compareBytes(s.termBytes, s.termOffsets[t]!, s.termOffsets[t + 1]!, m.termBytes, ms, me) !== 0) continue;
      copyPostings(readers[i]!, s.df[t]!, docs.bases[i]!, docs.norms, blocks, docBuf, tfBuf);
      termDf += s.df[t]!;
      cursor[i] = t + 1;
    }
    blocks.endTerm();
    df.push(termDf);
  }
  blocks.finish();
  const { bytes, offsets } = concatParts(termChunks);
  return { termBytes: bytes, termOffsets: offsets, df };
}

/** The segments' ids one after the other (their bytes and offsets), and their summed statistics. */
function concatIds(segs: readonly Segment[], numDocs: number): { idBytes: Uint8Array; idOffsets: Float64Array; docCount: number; sumTotalTermFreq: number } {
  const idOffsets = new Float64Array(numDocs + 1);
  let idBytesLength = 0;
  for (const s of segs) idBytesLength += s.index.idBytes.length;
  const idBytes = new Uint8Array(idBytesLength);
  let d = 0;
  let ib = 0;
  let docCount = 0;
  let sumTotalTermFreq = 0;
  for (const s of segs) {
    const x = s.index;
    idBytes.set(x.idBytes, ib);
    for (let j = 0; j < x.numDocs; j++) idOffsets[d + j + 1] = ib + x.idOffsets[j + 1]!;
    d += x.numDocs;
    ib += x.idBytes.length;
    docCount += x.docCount;
    sumTotalTermFreq += x.sumTotalTermFreq;
  }
  return { idBytes, idOffsets, docCount, sumTotalTermFreq };
}

/**
 * Merges segment files (in document order) into one index whose postings, blocks and impacts sit in
 * files under `workDir`.
 */
export function mergeSegments(segmentPaths: readonly string[], workDir: string, source: string, blockSize: number = DEFAULT_BLOCK_SIZE): IndexParts {
  const segs: Segment[] = segmentPaths.map((p) => ({ index: readIndex(p, { shared: false, skip: HEAVY }), loc: sectionLocation(p, "postings"), fd: openSync(p, "r") }));
  const heavy = heavyColumnsInFiles(workDir);
  const columns = {
    postings: heavy.postings,
    termPostingEnds: new MemoryColumn<Float64Array>(Float64Array),
    termBlockEnds: new MemoryColumn<Float64Array>(Float64Array),
    termImpacts: new MemoryColumn<Float64Array>(Float64Array),
    blockLastDoc: heavy.blockLastDoc,
    blockStart: heavy.blockStart,
    blockImpacts: heavy.blockImpacts,
    impacts: heavy.impacts,
  };
  try {
    const docs = segmentDocs(segs);
    const terms = mergeTerms(segs, docs, columns, blockSize);
    const ids = concatIds(segs, docs.numDocs);
    const index: Omit<Bm25Index, "postings" | "blockLastDoc" | "blockStart" | "blockImpactOffsets" | "impacts"> = {
      analyzer: segs[0]!.index.analyzer,
      numDocs: docs.numDocs,
      docCount: ids.docCount,
      sumTotalTermFreq: ids.sumTotalTermFreq,
      numTerms: terms.df.length,
      termBytes: terms.termBytes,
      termOffsets: terms.termOffsets,
      df: Uint32Array.from(terms.df),
      postingOffsets: withLeadingZero(columns.termPostingEnds.toArray()),
      termBlockOffsets: withLeadingZero(columns.termBlockEnds.toArray()),
      termImpactOffsets: columns.termImpacts.toArray(),
      norms: docs.norms,
      idRank: mergeIdRanks(segs.map((s) => s.index), source),
      idBytes: ids.idBytes,
      idOffsets: ids.idOffsets,
    };
    return { ...index, ...heavy.close() };
  } finally {
    heavy.close();
    for (const s of segs) closeSync(s.fd);
  }
}

/** The heavy sections of a build streamed to files under `dir` (closing is idempotent). */
export function heavyColumnsInFiles(dir: string): HeavyColumns<{ readonly [K in HeavySectionName]: FileSection }> {
  const postings = new FileBytes(join(dir, "postings.tmp"));
  const blockLastDoc = new FileColumn(join(dir, "blockLastDoc.tmp"), "u32");
  const blockStart = new FileColumn(join(dir, "blockStart.tmp"), "f64");
  const blockImpacts = new FileColumn(join(dir, "blockImpacts.tmp"), "f64");
  const impacts = new FileBytes(join(dir, "impacts.tmp"));
  return {
    postings,
    blockLastDoc,
    blockStart,
    blockImpacts,
    impacts,
    close: () => ({
      postings: postings.close(),
      blockLastDoc: blockLastDoc.close(),
      blockStart: blockStart.close(),
      blockImpactOffsets: blockImpacts.close(),
      impacts: impacts.close(),
    }),
  };
}
