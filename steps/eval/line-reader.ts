/**
 * Small shared helpers of the file adapters: read a text file line by line, detect JSON vs line
 * formats, read a JSON file. They go through the project's one reader of users' text files
 * (steps/lib/jsonl.ts and steps/lib/json-text.ts): strict UTF-8 (a bad byte is an error naming
 * its offset and line, never a silent U+FFFD), and JSON errors with their line and column.
 */
import { open } from "node:fs/promises";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readLineChunks } from "../lib/jsonl.ts";
import { readJsonText } from "../lib/json-text.ts";

/** Call `onLine(line, lineNo)` for every line of a UTF-8 text file, 1-based, streaming; returns the number of lines. */
export async function forEachLine(path: string, onLine: (line: string, lineNo: number) => void): Promise<number> {
  let lines = 0;
  for await (const chunk of readLineChunks(path, { skipBlank: false })) {
    chunk.lines.forEach((line, i) => onLine(line, chunk.firstLine + i));
    lines = chunk.firstLine + chunk.lines.length - 1;
  }
  return lines;
}

/** "json" if the first non-blank character of the file is `{`, else "trec". Empty files are "trec". */
export async function sniffFormat(path: string): Promise<"json" | "trec"> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (e) {
    throw new InputError(`cannot read the file: ${(e as Error).message}`, { file: path, fix: "check the path" });
  }
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

/** A JSON file's value (it must be one object {qid: ...}); errors name the file, the line and the column. */
export async function readJsonFile(path: string): Promise<unknown> {
  return readJsonText(path, "repair the JSON (it must be one object {qid: {pid: value}})").value;
}
