/**
 * Where downloaded bytes go. A sink keeps a running sha256 over everything it holds, so a
 * resumed transfer only hashes the new bytes plus (once) the prefix already on disk.
 *
 * - `FileSink`: appends to `<dest>/.partial/<file>`; survives process restarts.
 * - `HashSink`: keeps nothing but the digest and the byte count (for `lock --update`).
 */
import { createHash, type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, stat, mkdir, truncate, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";

export interface Digest {
  readonly sha256: string;
  readonly size: number;
}

export interface TransferSink {
  /** Bytes already held (where a resumed transfer continues). */
  readonly offset: number;
  append(chunk: Uint8Array): Promise<void>;
  /** Drop everything held (the server ignored our Range request, or the prefix is bad). */
  reset(): Promise<void>;
  /** Flush and return the digest of everything held. The sink is unusable afterwards. */
  finish(): Promise<Digest>;
  /** Release resources without finishing (the transfer failed; a FileSink keeps its bytes). */
  abandon(): Promise<void>;
}

/** Streaming sha256 and size of a file (never loads it whole). */
export async function hashFile(path: string, onProgress?: (done: number, total?: number) => void): Promise<Digest> {
  const total = (await stat(path)).size;
  const hash = createHash("sha256");
  let done = 0;
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path, { highWaterMark: 1 << 20 });
    stream.on("data", (chunk) => {
      const buf = chunk as Buffer;
      hash.update(buf);
      done += buf.length;
      onProgress?.(done, total);
    });
    stream.on("error", reject);
    stream.on("end", () => resolve());
  });
  return { sha256: hash.digest("hex"), size: done };
}

async function hashPrefix(path: string, hash: Hash): Promise<number> {
  let n = 0;
  await new Promise<void>((resolve, reject) => {
    const stream = createReadStream(path, { highWaterMark: 1 << 20 });
    stream.on("data", (chunk) => {
      const buf = chunk as Buffer;
      hash.update(buf);
      n += buf.length;
    });
    stream.on("error", reject);
    stream.on("end", () => resolve());
  });
  return n;
}

export class HashSink implements TransferSink {
  private hash = createHash("sha256");
  private size = 0;
  get offset(): number {
    return this.size;
  }
  async append(chunk: Uint8Array): Promise<void> {
    this.hash.update(chunk);
    this.size += chunk.length;
  }
  async reset(): Promise<void> {
    this.hash = createHash("sha256");
    this.size = 0;
  }
  async finish(): Promise<Digest> {
    return { sha256: this.hash.digest("hex"), size: this.size };
  }
  async abandon(): Promise<void> {}
}

export class FileSink implements TransferSink {
  private hash: Hash = createHash("sha256");
  private size = 0;
  private fh: FileHandle | undefined;

  private constructor(readonly path: string) {}

  /** Open (or create) the partial file and hash the bytes it already holds. */
  static async open(path: string): Promise<FileSink> {
    await mkdir(dirname(path), { recursive: true });
    const sink = new FileSink(path);
    let existing = 0;
    try {
      existing = (await stat(path)).size;
    } catch {
      existing = 0;
    }
    if (existing > 0) sink.size = await hashPrefix(path, sink.hash);
    sink.fh = await open(path, "a");
    return sink;
  }

  get offset(): number {
    return this.size;
  }

  async append(chunk: Uint8Array): Promise<void> {
    if (!this.fh) throw new Error(`FileSink(${this.path}) is closed`);
    let written = 0;
    while (written < chunk.length) {
      const r = await this.fh.write(chunk, written, chunk.length - written);
      written += r.bytesWritten;
    }
    this.hash.update(chunk);
    this.size += chunk.length;
  }

  async reset(): Promise<void> {
    await this.fh?.close();
    await truncate(this.path, 0);
    this.fh = await open(this.path, "a");
    this.hash = createHash("sha256");
    this.size = 0;
  }

  async finish(): Promise<Digest> {
    await this.fh?.sync();
    await this.fh?.close();
    this.fh = undefined;
    return { sha256: this.hash.digest("hex"), size: this.size };
  }

  async abandon(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
  }
}
