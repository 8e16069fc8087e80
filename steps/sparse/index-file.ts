/**
 * The BM25 index file: one binary file, loaded section by section into (Shared)ArrayBuffers so
 * worker threads can share one copy.
 *
 *   bytes 0-7   magic "CSBM25\0\n"
 *   bytes 8-11  format version (uint32 LE) = 2 (2 added the skip blocks and impacts; a version-1 file
 *               is refused with the fix: rebuild)
 *   bytes 12-15 header length H (uint32 LE)
 *   bytes 16-   header JSON (UTF-8, H bytes): analyzer, numDocs, docCount, sumTotalTermFreq, numTerms,
 *               sections [{name, type, offset, length}] (offset/length in bytes, 8-aligned)
 *   then the sections (little-endian typed-array payloads), see Bm25Index in ./index.ts.
 * k1 and b are not stored: they are query-time parameters.
 */
import { closeSync, openSync, readSync, writeSync, fstatSync } from "node:fs";
import { endianness } from "node:os";
import { InputError } from "../../pipeline/engine/errors.ts";
import { ANALYZER_ID } from "./analyzer.ts";
import type { FileSection } from "./columns.ts";
import type { Bm25Index } from "./index.ts";

export const INDEX_MAGIC = "CSBM25\0\n";
export const INDEX_VERSION = 2;

export type SectionName =
  | "termBytes"
  | "termOffsets"
  | "df"
  | "postingOffsets"
  | "postings"
  | "termBlockOffsets"
  | "termImpactOffsets"
  | "blockLastDoc"
  | "blockStart"
  | "blockImpactOffsets"
  | "impacts"
  | "norms"
  | "idRank"
  | "idBytes"
  | "idOffsets";
type SectionType = "u8" | "u32" | "f64";
const SECTIONS: readonly (readonly [SectionName, SectionType])[] = [
  ["termBytes", "u8"],
  ["termOffsets", "f64"],
  ["df", "u32"],
  ["postingOffsets", "f64"],
  ["postings", "u8"],
  ["termBlockOffsets", "f64"],
  ["termImpactOffsets", "f64"],
  ["blockLastDoc", "u32"],
  ["blockStart", "f64"],
  ["blockImpactOffsets", "f64"],
  ["impacts", "u8"],
  ["norms", "u8"],
  ["idRank", "u32"],
  ["idBytes", "u8"],
  ["idOffsets", "f64"],
];

interface Header {
  analyzer: string;
  numDocs: number;
  docCount: number;
  sumTotalTermFreq: number;
  numTerms: number;
  sections: { name: SectionName; type: SectionType; offset: number; length: number }[];
}

const CHUNK = 1 << 30;
const align8 = (n: number): number => Math.ceil(n / 8) * 8;

function checkEndianness(): void {
  if (endianness() !== "LE") throw new Error("BM25 index files are little-endian; this machine is big-endian");
}

/** An index whose sections may still sit in files (written by the segment merger). */
export type IndexParts = { readonly [K in keyof Bm25Index]: Bm25Index[K] extends ArrayBufferView ? Bm25Index[K] | FileSection : Bm25Index[K] };

const byteLength = (a: Uint8Array | Uint32Array | Float64Array | { readonly length: number }): number =>
  ArrayBuffer.isView(a) ? a.byteLength : a.length;

/** Writes the index; returns the file size in bytes. */
export function writeIndex(index: IndexParts, path: string): number {
  checkEndianness();
  const sections: Header["sections"] = [];
  const header: Header = {
    analyzer: index.analyzer,
    numDocs: index.numDocs,
    docCount: index.docCount,
    sumTotalTermFreq: index.sumTotalTermFreq,
    numTerms: index.numTerms,
    sections,
  };
  // Offsets depend on the header length, which depends on the offsets' digits: reserve room.
  let headerBytes = new Uint8Array(0);
  for (let pass = 0; pass < 3; pass++) {
    sections.length = 0;
    let offset = align8(16 + headerBytes.length + 64);
    for (const [name, type] of SECTIONS) {
      const length = byteLength(index[name]);
      sections.push({ name, type, offset, length });
      offset = align8(offset + length);
    }
    headerBytes = new TextEncoder().encode(JSON.stringify(header));
  }
  const first = sections[0]!.offset;
  if (16 + headerBytes.length > first) throw new Error("index header did not fit its reserved space");
  const pre = new Uint8Array(first);
  pre.set(new TextEncoder().encode(INDEX_MAGIC), 0);
  const dv = new DataView(pre.buffer);
  dv.setUint32(8, INDEX_VERSION, true);
  dv.setUint32(12, headerBytes.length, true);
  pre.set(headerBytes, 16);
  const fd = openSync(path, "w");
  try {
    writeAll(fd, pre, 0);
    for (const s of sections) {
      const a = index[s.name];
      if (ArrayBuffer.isView(a)) writeAll(fd, new Uint8Array(a.buffer, a.byteOffset, a.byteLength), s.offset);
      else copyFile(a.file, a.length, fd, s.offset);
    }
    const end = sections[sections.length - 1]!;
    const size = align8(end.offset + end.length);
    if (size > end.offset + end.length) writeAll(fd, new Uint8Array(size - end.offset - end.length), end.offset + end.length);
    return size;
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) {
    done += writeSync(fd, bytes, done, Math.min(CHUNK, bytes.length - done), position + done);
  }
}

function copyFile(file: string, length: number, fd: number, position: number): void {
  const src = openSync(file, "r");
  try {
    const buf = new Uint8Array(Math.min(length, 1 << 26));
    for (let done = 0; done < length; ) {
      const n = Math.min(buf.length, length - done);
      readAll(src, buf.subarray(0, n), done);
      writeAll(fd, buf.subarray(0, n), position + done);
      done += n;
    }
  } finally {
    closeSync(src);
  }
}

function readAll(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const n = readSync(fd, into, done, Math.min(CHUNK, into.length - done), position + done);
    if (n === 0) throw new Error("unexpected end of file");
    done += n;
  }
}

export interface ReadOptions {
  /** Back the arrays with SharedArrayBuffers (default true), so workers can share them. */
  readonly shared?: boolean;
  /** Sections left on disk (empty arrays; see `sectionLocation`), e.g. the postings for the segment merger. */
  readonly skip?: readonly SectionName[];
}

/** Where a section sits in an index file. */
export function sectionLocation(path: string, name: SectionName): { offset: number; length: number } {
  const s = readHeader(path).header.sections.find((x) => x.name === name);
  if (!s) throw new InputError(`section ${name} missing`, { file: path, fix: "rebuild the index" });
  return { offset: s.offset, length: s.length };
}

function readHeader(path: string): { header: Header; size: number } {
  const fd = openSync(path, "r");
  try {
    return readHeaderFd(fd, path);
  } finally {
    closeSync(fd);
  }
}

/** Loads an index written by writeIndex. Throws InputError for a file that is not one. */
export function readIndex(path: string, opts: ReadOptions = {}): Bm25Index {
  checkEndianness();
  const shared = opts.shared ?? true;
  const fd = openSync(path, "r");
  try {
    const { header, size } = readHeaderFd(fd, path);
    const arrays: Partial<Record<SectionName, Uint8Array | Uint32Array | Float64Array>> = {};
    for (const s of header.sections) {
      if (s.offset + s.length > size) throw new InputError(`section ${s.name} runs past the end of the file (truncated?)`, { file: path, fix: "rebuild the index" });
      if (opts.skip?.includes(s.name)) {
        arrays[s.name] = s.type === "u8" ? new Uint8Array(0) : s.type === "u32" ? new Uint32Array(0) : new Float64Array(0);
        continue;
      }
      const buf = shared ? new SharedArrayBuffer(s.length) : new ArrayBuffer(s.length);
      readAll(fd, new Uint8Array(buf), s.offset);
      arrays[s.name] = s.type === "u8" ? new Uint8Array(buf) : s.type === "u32" ? new Uint32Array(buf) : new Float64Array(buf);
    }
    const get = <T>(name: SectionName): T => {
      const a = arrays[name];
      if (!a) throw new InputError(`section ${name} missing`, { file: path, fix: "rebuild the index" });
      return a as T;
    };
    const index: Bm25Index = {
      analyzer: header.analyzer,
      numDocs: header.numDocs,
      docCount: header.docCount,
      sumTotalTermFreq: header.sumTotalTermFreq,
      numTerms: header.numTerms,
      termBytes: get("termBytes"),
      termOffsets: get("termOffsets"),
      df: get("df"),
      postingOffsets: get("postingOffsets"),
      postings: get("postings"),
      termBlockOffsets: get("termBlockOffsets"),
      termImpactOffsets: get("termImpactOffsets"),
      blockLastDoc: get("blockLastDoc"),
      blockStart: get("blockStart"),
      blockImpactOffsets: get("blockImpactOffsets"),
      impacts: get("impacts"),
      norms: get("norms"),
      idRank: get("idRank"),
      idBytes: get("idBytes"),
      idOffsets: get("idOffsets"),
    };
    checkShape(index, path, opts.skip ?? []);
    return index;
  } finally {
    closeSync(fd);
  }
}

/** Section lengths must agree with the header's counts (a damaged file fails here, not deep in a search). */
function checkShape(x: Bm25Index, path: string, skipped: readonly SectionName[]): void {
  const numBlocks = x.blockLastDoc.length;
  const expected: [SectionName, number, number][] = [
    ["termOffsets", x.termOffsets.length, x.numTerms + 1],
    ["df", x.df.length, x.numTerms],
    ["postingOffsets", x.postingOffsets.length, x.numTerms + 1],
    ["termBlockOffsets", x.termBlockOffsets.length, x.numTerms + 1],
    ["termImpactOffsets", x.termImpactOffsets.length, x.numTerms],
    ["blockStart", x.blockStart.length, numBlocks + 1],
    ["blockImpactOffsets", x.blockImpactOffsets.length, numBlocks],
    ["norms", x.norms.length, x.numDocs],
    ["idRank", x.idRank.length, x.numDocs],
    ["idOffsets", x.idOffsets.length, x.numDocs + 1],
  ];
  for (const [name, actual, want] of expected) {
    if (skipped.includes(name) || (name === "blockStart" || name === "blockImpactOffsets") && skipped.includes("blockLastDoc")) continue;
    if (actual !== want) throw new InputError(`section ${name} has ${actual} entries, the header implies ${want} (damaged file?)`, { file: path, fix: "rebuild the index" });
  }
}

function readHeaderFd(fd: number, path: string): { header: Header; size: number } {
  const size = fstatSync(fd).size;
  const pre = new Uint8Array(16);
  if (size < 16) throw new InputError("not a cspipe BM25 index (file too short)", { file: path, fix: "rebuild the index with build-bm25-index" });
  readAll(fd, pre, 0);
  if (new TextDecoder().decode(pre.subarray(0, 8)) !== INDEX_MAGIC) {
    throw new InputError("not a cspipe BM25 index (bad magic)", { file: path, fix: "pass the file written by writeIndex / build-bm25-index" });
  }
  const dv = new DataView(pre.buffer);
  const version = dv.getUint32(8, true);
  if (version !== INDEX_VERSION) {
    throw new InputError(`BM25 index format version ${version}, this code reads version ${INDEX_VERSION}`, { file: path, fix: "rebuild the index with this version of cspipe" });
  }
  const hb = new Uint8Array(dv.getUint32(12, true));
  readAll(fd, hb, 16);
  const header = JSON.parse(new TextDecoder().decode(hb)) as Header;
  if (header.analyzer !== ANALYZER_ID) {
    throw new InputError(`index analyzer '${header.analyzer}' differs from this code's '${ANALYZER_ID}'`, { file: path, field: "analyzer", fix: "rebuild the index: query terms would not match the indexed terms" });
  }
  return { header, size };
}
