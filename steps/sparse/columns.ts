/**
 * Append-only columns for the index builder and the segment merger: numbers or bytes pushed one
 * at a time, held either in memory (fixed-size chunks, no giant reallocations; `toArray()` at the
 * end) or streamed to a file (little-endian, buffered; the index writer copies the file into its
 * section). The merger streams every column proportional to the postings to disk, so its memory
 * does not grow with the collection's postings.
 */
import { closeSync, openSync, writeSync } from "node:fs";

/** A section whose bytes sit in a file (written by a FileColumn), copied by writeIndex. */
export interface FileSection {
  readonly file: string;
  readonly length: number;
}

export interface NumberColumn {
  push(v: number): void;
  readonly length: number;
}

export interface ByteColumn {
  byte(v: number): void;
  varint(v: number): void;
  /** Appends bytes[0 .. n). */
  bytes(bytes: Uint8Array, n: number): void;
  /** Bytes written so far. */
  readonly length: number;
}

/** `out` (as long as all of them) filled with the full chunks, then the first `pos` values of the current one. */
function joinChunks<A extends Uint8Array | Uint32Array | Float64Array>(out: A, chunks: readonly A[], cur: A, pos: number): A {
  let i = 0;
  for (const c of chunks) {
    out.set(c, i);
    i += c.length;
  }
  out.set(cur.subarray(0, pos), i);
  return out;
}

/** Byte strings one after the other, with the offset of each and the end (offsets[i]..offsets[i + 1] is parts[i]). */
export function concatParts(parts: readonly Uint8Array[]): { bytes: Uint8Array; offsets: Float64Array } {
  const offsets = new Float64Array(parts.length + 1);
  for (let i = 0; i < parts.length; i++) offsets[i + 1] = offsets[i]! + parts[i]!.length;
  const bytes = new Uint8Array(offsets[parts.length]!);
  for (let i = 0; i < parts.length; i++) bytes.set(parts[i]!, offsets[i]!);
  return { bytes, offsets };
}

const CHUNK = 1 << 16;

type TypedCtor = Uint32ArrayConstructor | Float64ArrayConstructor;

/** Numbers in memory, in chunks of 64k values. */
export class MemoryColumn<T extends Uint32Array | Float64Array> implements NumberColumn {
  private readonly chunks: T[] = [];
  private cur: T;
  private pos = 0;
  length = 0;
  constructor(private readonly ctor: TypedCtor) {
    this.cur = new ctor(CHUNK) as T;
  }
  push(v: number): void {
    if (this.pos === CHUNK) {
      this.chunks.push(this.cur);
      this.cur = new this.ctor(CHUNK) as T;
      this.pos = 0;
    }
    this.cur[this.pos++] = v;
    this.length++;
  }
  toArray(): T {
    return joinChunks(new this.ctor(this.length) as T, this.chunks, this.cur, this.pos);
  }
}

export function writeVarintTo(buf: Uint8Array, pos: number, v: number): number {
  while (v >= 128) {
    buf[pos++] = (v % 128) | 128;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

const BYTE_CHUNK = 1 << 20;

/** Bytes in memory (chunks of 1 MiB). */
export class MemoryBytes implements ByteColumn {
  private readonly chunks: Uint8Array[] = [];
  private cur = new Uint8Array(BYTE_CHUNK);
  private pos = 0;
  private done = 0;
  get length(): number {
    return this.done + this.pos;
  }
  private room(n: number): void {
    if (this.pos + n > BYTE_CHUNK) {
      this.chunks.push(this.cur.subarray(0, this.pos));
      this.done += this.pos;
      this.cur = new Uint8Array(BYTE_CHUNK);
      this.pos = 0;
    }
  }
  byte(v: number): void {
    this.room(1);
    this.cur[this.pos++] = v;
  }
  varint(v: number): void {
    this.room(10);
    this.pos = writeVarintTo(this.cur, this.pos, v);
  }
  bytes(bytes: Uint8Array, n: number): void {
    for (let i = 0; i < n; ) {
      if (this.pos === BYTE_CHUNK) this.room(1);
      const k = Math.min(n - i, BYTE_CHUNK - this.pos);
      this.cur.set(bytes.subarray(i, i + k), this.pos);
      this.pos += k;
      i += k;
    }
  }
  toArray(): Uint8Array {
    return joinChunks(new Uint8Array(this.length), this.chunks, this.cur, this.pos);
  }
}

/** Buffered sequential writer of one file. */
export class FileBytes implements ByteColumn {
  private readonly fd: number;
  private readonly buf = new Uint8Array(1 << 20);
  private readonly view = new DataView(this.buf.buffer);
  private pos = 0;
  private written = 0;
  private closed = false;
  constructor(readonly file: string) {
    this.fd = openSync(file, "w");
  }
  get length(): number {
    return this.written + this.pos;
  }
  private room(n: number): void {
    if (this.pos + n > this.buf.length) this.flush();
  }
  byte(v: number): void {
    this.room(1);
    this.buf[this.pos++] = v;
  }
  varint(v: number): void {
    this.room(10);
    this.pos = writeVarintTo(this.buf, this.pos, v);
  }
  bytes(bytes: Uint8Array, n: number): void {
    for (let i = 0; i < n; ) {
      if (this.pos === this.buf.length) this.flush();
      const k = Math.min(n - i, this.buf.length - this.pos);
      this.buf.set(bytes.subarray(i, i + k), this.pos);
      this.pos += k;
      i += k;
    }
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }
  f64(v: number): void {
    this.room(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }
  private flush(): void {
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, this.buf, off, this.pos - off);
    this.written += this.pos;
    this.pos = 0;
  }
  /** Flushes and closes; the section to copy. Idempotent. */
  close(): FileSection {
    if (!this.closed) {
      this.flush();
      closeSync(this.fd);
      this.closed = true;
    }
    return { file: this.file, length: this.written };
  }
}

/** Numbers streamed to a file as little-endian uint32 or float64. */
export class FileColumn implements NumberColumn {
  private readonly out: FileBytes;
  length = 0;
  constructor(
    file: string,
    private readonly type: "u32" | "f64",
  ) {
    this.out = new FileBytes(file);
  }
  push(v: number): void {
    if (this.type === "u32") this.out.u32(v);
    else this.out.f64(v);
    this.length++;
  }
  close(): FileSection {
    return this.out.close();
  }
}
