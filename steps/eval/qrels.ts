/**
 * Qrels I/O: TREC qrels (`qid 0 docid rel`) and the JSON form `{qid: {pid: rel}}`
 * (the authors' and QReCC's format, where `{"": 1}` means "this turn has no gold").
 *
 * In memory a no-gold turn is a qid with no relevant judgement (usually an empty map).
 * TREC qrels cannot hold an empty query, so the writer emits one judgement
 * `qid 0 __NO_GOLD__ 0` for it; the reader drops that docid again. trec_eval reads such a
 * line as a judged non-relevant document: the query exists and has 0 relevant passages.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { forEachLine, readJsonFile, sniffFormat } from "./line-reader.ts";
import { compareUtf8 } from "./ranking.ts";
import { writeLines } from "./trec-run.ts";
import type { Qrels } from "./types.ts";

/** Placeholder docid for a no-gold query in a TREC qrels file. */
export const NO_GOLD_DOCID = "__NO_GOLD__";

function where(file: string | undefined, extra: { line?: number; field?: string } = {}): { file?: string; line?: number; field?: string } {
  return file === undefined ? extra : { file, ...extra };
}

/** Parse one TREC qrels line; `null` for a blank line. */
export function parseTrecQrelsLine(line: string, lineNo: number, file?: string): { qid: string; docid: string; rel: number } | null {
  const trimmed = line.trim();
  if (trimmed === "") return null;
  const parts = trimmed.split(/\s+/);
  if (parts.length !== 4) {
    throw new InputError(`expected 4 fields 'qid 0 docid rel', found ${parts.length}`, { ...where(file, { line: lineNo }), fix: "write one judgement per line as 'qid 0 docid rel'" });
  }
  const [qid, , docid, relText] = parts as [string, string, string, string];
  const rel = Number(relText);
  if (!Number.isSafeInteger(rel)) {
    throw new InputError(`relevance '${relText}' is not an integer`, { ...where(file, { line: lineNo, field: "rel" }), fix: "write the relevance (4th field) as an integer, e.g. 1" });
  }
  return { qid, docid, rel };
}

export async function readTrecQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  const firstLine = new Map<string, number>();
  await forEachLine(path, (line, lineNo) => {
    const parsed = parseTrecQrelsLine(line, lineNo, path);
    if (parsed === null) return;
    let judgements = qrels.get(parsed.qid);
    if (judgements === undefined) qrels.set(parsed.qid, (judgements = new Map()));
    if (parsed.docid === NO_GOLD_DOCID) return;
    const key = `${parsed.qid}\u0000${parsed.docid}`;
    const seen = firstLine.get(key);
    if (seen !== undefined) {
      throw new InputError(`duplicate judgement for query '${parsed.qid}', document '${parsed.docid}' (first at line ${seen})`, { ...where(path, { line: lineNo }), fix: "keep one line per (qid, docid) pair" });
    }
    firstLine.set(key, lineNo);
    judgements.set(parsed.docid, parsed.rel);
  });
  return qrels;
}

/**
 * Qrels from the parsed JSON `{qid: {pid: rel}}`. The empty pid `""` (QReCC's marker of a
 * turn without gold) is dropped, leaving the qid with an empty judgement map.
 */
export function qrelsFromJson(data: unknown, file?: string): Qrels {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new InputError("qrels JSON must be an object {qid: {pid: rel}}", { ...where(file), fix: "write an object mapping each qid to an object of pid -> relevance" });
  }
  const qrels: Qrels = new Map();
  for (const [qid, judged] of Object.entries(data as Record<string, unknown>)) {
    if (judged === null || typeof judged !== "object" || Array.isArray(judged)) {
      throw new InputError(`query '${qid}' must map to an object {pid: rel}`, { ...where(file, { field: qid }), fix: 'write e.g. {"12_3": {"doc_p1": 1}}, or {"12_3": {"": 1}} for a turn without gold' });
    }
    const judgements = new Map<string, number>();
    for (const [pid, rel] of Object.entries(judged as Record<string, unknown>)) {
      if (typeof rel !== "number" || !Number.isSafeInteger(rel)) {
        throw new InputError(`relevance of '${pid}' in query '${qid}' is ${JSON.stringify(rel)}, not an integer`, { ...where(file, { field: `${qid}.${pid}` }), fix: "write relevance as an integer, e.g. 1" });
      }
      if (pid === "") continue;
      judgements.set(pid, rel);
    }
    qrels.set(qid, judgements);
  }
  return qrels;
}

/** Read qrels, detecting JSON (first non-blank character `{`) or TREC format. */
export async function readQrels(path: string): Promise<Qrels> {
  return (await sniffFormat(path)) === "json" ? qrelsFromJson(await readJsonFile(path), path) : readTrecQrels(path);
}

/** TREC qrels lines, queries and docids in UTF-8 byte order. Pure. */
export function* formatTrecQrels(qrels: Qrels): Generator<string> {
  for (const qid of [...qrels.keys()].sort(compareUtf8)) {
    if (qid === "" || /\s/.test(qid)) throw new InputError(`qid '${qid}' is empty or contains whitespace`, { field: "qid", fix: "use qids without spaces" });
    const judgements = qrels.get(qid)!;
    if (judgements.size === 0) {
      yield `${qid} 0 ${NO_GOLD_DOCID} 0`;
      continue;
    }
    for (const docid of [...judgements.keys()].sort(compareUtf8)) {
      if (docid === "" || /\s/.test(docid)) throw new InputError(`docid '${docid}' of query '${qid}' is empty or contains whitespace`, { field: "docid", fix: "use docids without spaces" });
      yield `${qid} 0 ${docid} ${judgements.get(docid)!}`;
    }
  }
}

export async function writeTrecQrels(path: string, qrels: Qrels): Promise<void> {
  await writeLines(path, formatTrecQrels(qrels));
}

/** JSON form `{qid: {pid: rel}}` with sorted keys; a no-gold query becomes `{"": 1}` as in QReCC. Pure. */
export function qrelsToJson(qrels: Qrels): Record<string, Record<string, number>> {
  const out: Record<string, Record<string, number>> = {};
  for (const qid of [...qrels.keys()].sort(compareUtf8)) {
    const judgements = qrels.get(qid)!;
    const obj: Record<string, number> = {};
    if (judgements.size === 0) obj[""] = 1;
    for (const docid of [...judgements.keys()].sort(compareUtf8)) obj[docid] = judgements.get(docid)!;
    out[qid] = obj;
  }
  return out;
}
