/**
 * Runs in the authors' JSON form `{qid: {pid: score}}`, and `readRun`, which accepts
 * either that or a TREC run file.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { readJsonFile, sniffFormat } from "./line-reader.ts";
import { compareUtf8, orderForWriting } from "./ranking.ts";
import { readTrecRun } from "./trec-run.ts";
import type { ReadRunOptions } from "./trec-run.ts";
import type { Hit, Run } from "./types.ts";

/**
 * Run from parsed JSON. Hits of each query are put in (-score, docid ascending) order
 * (JSON object order carries no meaning). An empty pid or a non-finite score is an error.
 */
export function runFromJson(data: unknown, file?: string): Run {
  const base = file === undefined ? {} : { file };
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new InputError("run JSON must be an object {qid: {pid: score}}", { ...base, fix: "write an object mapping each qid to an object of pid -> score" });
  }
  const run: Run = new Map();
  for (const [qid, scored] of Object.entries(data as Record<string, unknown>)) {
    if (scored === null || typeof scored !== "object" || Array.isArray(scored)) {
      throw new InputError(`query '${qid}' must map to an object {pid: score}`, { ...base, field: qid, fix: 'write e.g. {"12_3": {"doc_p1": 12.5}}' });
    }
    const hits: Hit[] = [];
    for (const [pid, score] of Object.entries(scored as Record<string, unknown>)) {
      if (pid === "") throw new InputError(`query '${qid}' has an empty pid`, { ...base, field: qid, fix: "remove the empty pid from the run" });
      if (typeof score !== "number" || !Number.isFinite(score)) {
        throw new InputError(`score of '${pid}' in query '${qid}' is ${JSON.stringify(score)}, not a finite number`, { ...base, field: `${qid}.${pid}`, fix: "write scores as numbers" });
      }
      hits.push({ docid: pid, score });
    }
    run.set(qid, orderForWriting(hits));
  }
  return run;
}

/** JSON form `{qid: {pid: score}}`, queries in byte order, hits in (-score, docid) order. Pure. */
export function runToJson(run: Run): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const qid of [...run.keys()].sort(compareUtf8)) {
    const obj: Record<string, number> = {};
    for (const hit of orderForWriting(run.get(qid)!)) obj[hit.docid] = hit.score;
    out[qid] = obj;
  }
  return out;
}

/** Read a run, detecting JSON (first non-blank character `{`) or TREC format. */
export async function readRun(path: string, options: ReadRunOptions = {}): Promise<Run> {
  return (await sniffFormat(path)) === "json" ? runFromJson(await readJsonFile(path), path) : readTrecRun(path, options);
}
