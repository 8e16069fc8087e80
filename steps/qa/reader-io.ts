/** Reading and writing reader examples (`examples.jsonl`, one ReaderExample per line). */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readJsonl } from "../lib/jsonl.ts";
import type { ReaderExample } from "./reader-data.ts";

export async function readReaderExamples(file: string): Promise<ReaderExample[]> {
  const out: ReaderExample[] = [];
  for await (const { value, line } of readJsonl(file)) {
    const v = value as Partial<ReaderExample>;
    if (typeof v.qid !== "string" || !Array.isArray(v.passages) || !Array.isArray(v.answers)) {
      throw new InputError("not a reader example (needs qid, answers, passages)", { file, line, fix: "write it with the build-reader-data step" });
    }
    out.push(v as ReaderExample);
  }
  return out;
}

export async function writeJsonLines(file: string, rows: Iterable<unknown>): Promise<void> {
  const ws = createWriteStream(file);
  for (const r of rows) if (!ws.write(JSON.stringify(r) + "\n")) await once(ws, "drain");
  ws.end();
  await once(ws, "finish");
}
