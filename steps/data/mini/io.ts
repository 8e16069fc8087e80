/**
 * Thin file adapters: a line sink that respects stream backpressure (awaits 'drain'),
 * and whole-file JSON writing. The only I/O in the mini generator.
 */
import { createWriteStream } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { once } from "node:events";
import { dirname } from "node:path";
import type { WriteStream } from "node:fs";

const CHUNK_CHARS = 1 << 16;

export class LineSink {
  private buffer: string[] = [];
  private bufferedChars = 0;

  private constructor(private readonly stream: WriteStream) {}

  static async open(path: string): Promise<LineSink> {
    await mkdir(dirname(path), { recursive: true });
    const stream = createWriteStream(path, { encoding: "utf8" });
    await once(stream, "open");
    return new LineSink(stream);
  }

  /** Appends `line` + "\n"; resolves once the stream can take more. */
  async writeLine(line: string): Promise<void> {
    this.buffer.push(line, "\n");
    this.bufferedChars += line.length + 1;
    if (this.bufferedChars >= CHUNK_CHARS) await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const chunk = this.buffer.join("");
    this.buffer = [];
    this.bufferedChars = 0;
    if (!this.stream.write(chunk)) await once(this.stream, "drain");
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await once(this.stream, "finish");
  }
}

export async function writeText(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text, "utf8");
}

/** A JSON array, one element per line block, `indent` spaces per level (the SCAI files use 4). */
export function jsonArrayText(items: readonly unknown[], indent: number): string {
  return `${JSON.stringify(items, null, indent)}\n`;
}
