/**
 * TREC run files: `qid Q0 docid rank score tag`, whitespace separated, one hit a line.
 *
 * Reading streams the file (readline) and checks every line: exactly six fields, an
 * integer rank, a finite score; a (qid, docid) pair seen twice is an error naming both
 * lines (trec_eval rejects duplicates too). Blank lines are skipped. The rank column is
 * kept but never used for scoring (trec_eval re-sorts by score, see ranking.ts).
 *
 * Writing emits queries in UTF-8 byte order of qid and hits in (-score, docid ascending)
 * order with ranks 1..n, scores in JavaScript's shortest round-trip form.
 */
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { rename, rm } from "node:fs/promises";
import { InputError } from "../../pipeline/engine/errors.ts";
import { forEachLine } from "./line-reader.ts";
import { compareUtf8, orderForWriting } from "./ranking.ts";
import type { Hit, Run } from "./types.ts";

export interface TrecRunLine {
  readonly qid: string;
  readonly docid: string;
  readonly rank: number;
  readonly score: number;
  readonly tag: string;
}

const FIELDS = /\s+/;

function loc(file: string | undefined, line: number, field?: string): { file?: string; line: number; field?: string } {
  const out: { file?: string; line: number; field?: string } = { line };
  if (file !== undefined) out.file = file;
  if (field !== undefined) out.field = field;
  return out;
}

/** Parse one line; `null` for a blank line. Throws InputError naming file:line. */
export function parseTrecRunLine(line: string, lineNo: number, file?: string): TrecRunLine | null {
  const trimmed = line.trim();
  if (trimmed === "") return null;
  const parts = trimmed.split(FIELDS);
  if (parts.length !== 6) {
    throw new InputError(`expected 6 fields 'qid Q0 docid rank score tag', found ${parts.length}`, { ...loc(file, lineNo), fix: "write one hit per line as 'qid Q0 docid rank score tag'" });
  }
  const [qid, , docid, rankText, scoreText, tag] = parts as [string, string, string, string, string, string];
  const rank = Number(rankText);
  if (!Number.isSafeInteger(rank)) {
    throw new InputError(`rank '${rankText}' is not an integer`, { ...loc(file, lineNo, "rank"), fix: "write the rank (4th field) as an integer" });
  }
  const score = Number(scoreText);
  if (scoreText === "" || !Number.isFinite(score)) {
    throw new InputError(`score '${scoreText}' is not a finite number`, { ...loc(file, lineNo, "score"), fix: "write the score (5th field) as a decimal number" });
  }
  return { qid, docid, rank, score, tag };
}

/** Incrementally builds a Run from parsed lines, detecting duplicate (qid, docid) pairs. */
export class RunBuilder {
  private readonly run: Run = new Map();
  private readonly lines = new Map<string, number[]>();

  constructor(private readonly file?: string) {}

  add(qid: string, hit: Hit, lineNo: number): void {
    let hits = this.run.get(qid);
    let lines = this.lines.get(qid);
    if (hits === undefined || lines === undefined) {
      hits = [];
      lines = [];
      this.run.set(qid, hits);
      this.lines.set(qid, lines);
    }
    hits.push(hit);
    lines.push(lineNo);
  }

  /** The run, after checking duplicates (sorting docids per query: O(n log n), no per-hit Set). */
  finish(): Run {
    for (const [qid, hits] of this.run) {
      const lines = this.lines.get(qid)!;
      const idx = hits.map((_, i) => i).sort((a, b) => compareUtf8(hits[a]!.docid, hits[b]!.docid) || lines[a]! - lines[b]!);
      for (let i = 1; i < idx.length; i++) {
        const a = idx[i - 1]!;
        const b = idx[i]!;
        if (hits[a]!.docid === hits[b]!.docid) {
          throw new InputError(`duplicate hit: query '${qid}' lists document '${hits[b]!.docid}' again (first at line ${lines[a]})`, {
            ...loc(this.file, lines[b]!),
            fix: "keep one line per (qid, docid) pair",
          });
        }
      }
    }
    this.lines.clear();
    return this.run;
  }
}

export interface ReadRunOptions {
  /** Called every 100k lines and at the end with the number of lines read. */
  readonly onProgress?: (done: number, total?: number) => void;
}

/** Read a TREC run file, streaming. */
export async function readTrecRun(path: string, options: ReadRunOptions = {}): Promise<Run> {
  const builder = new RunBuilder(path);
  const total = await forEachLine(path, (line, lineNo) => {
    const parsed = parseTrecRunLine(line, lineNo, path);
    if (parsed !== null) builder.add(parsed.qid, { docid: parsed.docid, score: parsed.score, rank: parsed.rank }, lineNo);
    if (options.onProgress !== undefined && lineNo % 100_000 === 0) options.onProgress(lineNo);
  });
  options.onProgress?.(total, total);
  return builder.finish();
}

function checkToken(value: string, what: string, qid?: string): void {
  if (value === "" || /\s/.test(value)) {
    throw new InputError(`${what} '${value}'${qid !== undefined ? ` (query '${qid}')` : ""} is empty or contains whitespace and cannot be written to a TREC file`, {
      field: what,
      fix: `use ${what}s without spaces`,
    });
  }
}

export interface FormatRunOptions {
  /** Keep only the top `depth` hits per query (after ordering). */
  readonly depth?: number;
}

/** The lines of a TREC run (without newlines), deterministic order. Pure. */
export function* formatTrecRun(run: Run, tag: string, options: FormatRunOptions = {}): Generator<string> {
  checkToken(tag, "tag");
  for (const qid of [...run.keys()].sort(compareUtf8)) {
    checkToken(qid, "qid");
    const hits = orderForWriting(run.get(qid)!);
    const n = options.depth === undefined ? hits.length : Math.min(options.depth, hits.length);
    for (let i = 0; i < n; i++) {
      const hit = hits[i]!;
      checkToken(hit.docid, "docid", qid);
      if (!Number.isFinite(hit.score)) throw new InputError(`score ${hit.score} of '${hit.docid}' (query '${qid}') is not finite`, { field: "score", fix: "produce finite scores" });
      yield `${qid} Q0 ${hit.docid} ${i + 1} ${Object.is(hit.score, -0) ? 0 : hit.score} ${tag}`;
    }
  }
}

/**
 * Write lines to `path` through a stream (honouring backpressure) via a temporary file
 * renamed into place: if producing a line throws, no partial file is left at `path`.
 */
export async function writeLines(path: string, lines: Iterable<string>): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  const out = createWriteStream(tmp, { encoding: "utf8" });
  try {
    let buffer = "";
    for (const line of lines) {
      buffer += line + "\n";
      if (buffer.length >= 1 << 16) {
        if (!out.write(buffer)) await once(out, "drain");
        buffer = "";
      }
    }
    out.end(buffer);
    await once(out, "finish");
  } catch (err) {
    out.destroy();
    await rm(tmp, { force: true });
    throw err;
  }
  await rename(tmp, path);
}

export async function writeTrecRun(path: string, run: Run, tag: string, options: FormatRunOptions = {}): Promise<void> {
  await writeLines(path, formatTrecRun(run, tag, options));
}
