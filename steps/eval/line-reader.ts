/**
 * Small shared helpers of the file adapters: stream a text file line by line, detect
 * JSON vs line formats, parse JSON with a located error.
 */
import { createReadStream } from "node:fs";
import { open, readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { InputError } from "../../pipeline/engine/errors.ts";

/** Call `onLine(line, lineNo)` for every line of a UTF-8 text file, 1-based, streaming. */
export async function forEachLine(path: string, onLine: (line: string, lineNo: number) => void): Promise<number> {
  const rl = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of rl) {
    lineNo++;
    onLine(line, lineNo);
  }
  return lineNo;
}

/** "json" if the first non-blank character of the file is `{`, else "trec". Empty files are "trec". */
export async function sniffFormat(path: string): Promise<"json" | "trec"> {
  const handle = await open(path, "r");
  try {
    const buf = Buffer.alloc(4096);
    let offset = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, offset);
      if (bytesRead === 0) return "trec";
      for (let i = 0; i < bytesRead; i++) {
        const c = buf[i]!;
        if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xef || c === 0xbb || c === 0xbf) continue; // blanks, UTF-8 BOM
        return c === 0x7b ? "json" : "trec";
      }
      offset += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/** JSON.parse with an InputError that names the file and, when Node reports a position, the line. */
export function parseJsonText(text: string, file?: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(message);
    const where: { file?: string; line?: number } = {};
    if (file !== undefined) where.file = file;
    if (pos !== null) {
      const at = Number(pos[1]);
      let line = 1;
      for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
      where.line = line;
    }
    throw new InputError(`invalid JSON: ${message}`, { ...where, fix: "repair the JSON (it must be one object {qid: {pid: value}})" });
  }
}

export async function readJsonFile(path: string): Promise<unknown> {
  return parseJsonText(await readFile(path, "utf8"), path);
}
