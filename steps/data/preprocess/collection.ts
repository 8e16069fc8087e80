/**
 * Streams a passage collection (one or more JSONL/TSV files, optionally .gz) into
 * `passages.parquet` with bounded memory:
 * - lines are parsed chunk by chunk and written as Arrow batches of `batchRows`;
 * - duplicate ids are found with 64-bit hashes (see id-hash.ts) and confirmed by a
 *   second pass over the source that names both lines;
 * - gold passage ids of the turns are checked for presence, and TopiOCQA gold passages
 *   known only by (title, text) are resolved to ids, during the same pass.
 * Files are read in sorted path order so the output does not depend on how a directory
 * listing was ordered.
 */
import { cancellable } from "../../lib/cancel.ts";
import { rm } from "node:fs/promises";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { parseJsonLine, readLineChunks, readTsvChunks } from "../../lib/jsonl.ts";
import { readParquetBatches, rowsToRecordBatch, writeParquetFile } from "../../lib/parquet.ts";
import type { RecordAt } from "../formats/records.ts";
import { parseOrquacBlock } from "../formats/orquac.ts";
import { parseQreccPassage } from "../formats/qrecc.ts";
import type { GoldRef } from "../formats/topiocqa.ts";
import { isTopiocqaHeader, parseTopiocqaSegment } from "../formats/topiocqa.ts";
import type { PassageRow } from "../schemas.ts";
import { passagesSchema } from "../schemas.ts";
import { hashKey, IdHashSet } from "./id-hash.ts";
import type * as arrow from "apache-arrow";

export type CollectionFormat = "qrecc-jsonl" | "orquac-jsonl" | "topiocqa-tsv";

type JsonlFormat = { kind: "jsonl"; parse: (value: unknown, at: RecordAt) => PassageRow };
type TsvFormat = { kind: "tsv"; isHeader: (fields: readonly string[]) => boolean; parse: (fields: readonly string[], at: RecordAt) => PassageRow };

/** Collection formats by name. */
export const collectionFormats: Record<CollectionFormat, JsonlFormat | TsvFormat> = {
  "qrecc-jsonl": { kind: "jsonl", parse: parseQreccPassage },
  "orquac-jsonl": { kind: "jsonl", parse: parseOrquacBlock },
  "topiocqa-tsv": { kind: "tsv", isHeader: isTopiocqaHeader, parse: parseTopiocqaSegment },
};

export interface LocatedPassage {
  readonly row: PassageRow;
  readonly at: RecordAt;
}

/** Streams parsed passages in chunks, with their file and line. */
export async function* readCollection(files: readonly string[], format: CollectionFormat, onBytes?: (file: string, done: number, total?: number) => void): AsyncGenerator<LocatedPassage[]> {
  const spec = collectionFormats[format];
  for (const file of [...files].sort()) {
    const bytes = onBytes === undefined ? undefined : (d: number, t?: number) => onBytes(file, d, t);
    if (spec.kind === "jsonl") {
      for await (const chunk of readLineChunks(file, bytes === undefined ? {} : { onBytes: bytes })) {
        const out: LocatedPassage[] = [];
        for (let i = 0; i < chunk.lines.length; i++) {
          const text = chunk.lines[i]!;
          if (text === "" || text.trim() === "") continue;
          const at = { file, line: chunk.firstLine + i };
          out.push({ row: spec.parse(parseJsonLine(text, file, at.line), at), at });
        }
        yield out;
      }
    } else {
      let first = true;
      for await (const records of readTsvChunks(file, bytes === undefined ? {} : { onBytes: bytes })) {
        const out: LocatedPassage[] = [];
        for (const rec of records) {
          if (first) {
            first = false;
            if (spec.isHeader(rec.fields)) continue;
          }
          const at = { file, line: rec.line };
          out.push({ row: spec.parse(rec.fields, at), at });
        }
        yield out;
      }
    }
  }
}

export interface CollectionOptions {
  readonly files: readonly string[];
  readonly format: CollectionFormat;
  readonly outFile: string;
  /** Gold ids to look for (presence is reported in `foundGold`). */
  readonly goldIds?: ReadonlySet<string>;
  /** Gold passages known by (title, text) only (TopiOCQA). */
  readonly goldRefs?: readonly GoldRef[];
  readonly batchRows?: number;
  readonly rowGroupRows?: number;
  readonly onProgress?: (done: number, total?: number) => void;
  /** Stops the pass (throws its reason) within a fraction of a second of being aborted. */
  readonly signal?: AbortSignal;
}

export interface CollectionResult {
  readonly passages: number;
  readonly foundGold: Set<string>;
  /** "title\ttext" of a resolved GoldRef -> passage id. */
  readonly resolvedRefs: Map<string, string>;
}

export function goldRefKey(ref: GoldRef): string {
  return `${ref.title}\t${ref.text}`;
}

/** Finds exact duplicate ids among the suspects by a second pass; throws on the first. */
async function confirmDuplicates(files: readonly string[], format: CollectionFormat, suspects: Set<bigint>): Promise<void> {
  const firstSeen = new Map<string, RecordAt>();
  for await (const chunk of readCollection(files, format)) {
    for (const { row, at } of chunk) {
      if (!suspects.has(hashKey(row.id))) continue;
      const prev = firstSeen.get(row.id);
      if (prev !== undefined) {
        throw new InputError(`duplicate passage id '${row.id}' (first at ${prev.file}:${prev.line})`, { file: at.file, line: at.line, field: "id", fix: "passage ids must be unique across the collection; remove or rename one" });
      }
      firstSeen.set(row.id, at);
    }
  }
}

/** Writes passages.parquet from the collection files; throws InputError on bad input. */
export async function preprocessCollection(options: CollectionOptions): Promise<CollectionResult> {
  const goldIds = options.goldIds ?? new Set<string>();
  const foundGold = new Set<string>();
  const refsByTitle = new Map<string, Set<string>>();
  for (const ref of options.goldRefs ?? []) {
    let texts = refsByTitle.get(ref.title);
    if (texts === undefined) refsByTitle.set(ref.title, (texts = new Set()));
    texts.add(ref.text);
  }
  const resolvedRefs = new Map<string, string>();
  const ids = new IdHashSet(1 << 20);
  const batchRows = options.batchRows ?? 65_536;
  let passages = 0;

  async function* batches(): AsyncGenerator<arrow.RecordBatch> {
    let rows: PassageRow[] = [];
    for await (const chunk of cancellable(readCollection(options.files, options.format), options.signal)) {
      for (const { row } of chunk) {
        ids.add(row.id);
        if (goldIds.has(row.id)) foundGold.add(row.id);
        if (row.title !== null && refsByTitle.size > 0 && refsByTitle.get(row.title)?.has(row.text)) {
          const key = goldRefKey({ title: row.title, text: row.text });
          if (!resolvedRefs.has(key)) resolvedRefs.set(key, row.id);
        }
        rows.push(row);
        if (rows.length >= batchRows) {
          passages += rows.length;
          yield rowsToRecordBatch(passagesSchema(), rows);
          rows = [];
          options.onProgress?.(passages);
        }
      }
    }
    if (rows.length > 0) {
      passages += rows.length;
      yield rowsToRecordBatch(passagesSchema(), rows);
      options.onProgress?.(passages);
    }
  }

  const writeOptions = options.rowGroupRows === undefined ? { batchRows } : { batchRows, rowGroupRows: options.rowGroupRows };
  await writeParquetFile(options.outFile, passagesSchema(), batches(), writeOptions);
  const suspects = ids.suspects();
  if (suspects.size > 0) {
    try {
      await confirmDuplicates(options.files, options.format, suspects);
    } catch (err) {
      await rm(options.outFile, { force: true });
      throw err;
    }
  }
  return { passages, foundGold, resolvedRefs };
}

export interface GoldScan {
  readonly passages: number;
  readonly foundGold: Set<string>;
  /** "title\ttext" of a resolved GoldRef -> passage id. */
  readonly resolvedRefs: Map<string, string>;
}

/**
 * Reads a passages.parquet written by `preprocessCollection` back (ids only, plus titles
 * and texts when gold references must be resolved) and reports which gold ids it holds and
 * which (title, text) references resolve, with the same first-match rule as the collection
 * pass. Turn preprocessing runs apart from the collection, so only the table is needed.
 */
export async function scanPassagesForGold(passagesFile: string, goldIds: ReadonlySet<string>, goldRefs: readonly GoldRef[] = [], signal?: AbortSignal): Promise<GoldScan> {
  const refsByTitle = new Map<string, Set<string>>();
  for (const ref of goldRefs) {
    let texts = refsByTitle.get(ref.title);
    if (texts === undefined) refsByTitle.set(ref.title, (texts = new Set()));
    texts.add(ref.text);
  }
  const foundGold = new Set<string>();
  const resolvedRefs = new Map<string, string>();
  const columns = refsByTitle.size > 0 ? ["id", "title", "text"] : ["id"];
  let passages = 0;
  for await (const batch of cancellable(readParquetBatches(passagesFile, { columns }), signal)) {
    const ids = batch.getChild("id")!;
    const titles = refsByTitle.size > 0 ? batch.getChild("title") : null;
    const texts = refsByTitle.size > 0 ? batch.getChild("text") : null;
    for (let r = 0; r < batch.numRows; r++) {
      const id = ids.get(r) as string;
      if (goldIds.has(id)) foundGold.add(id);
      if (titles !== null && texts !== null) {
        const title = titles.get(r) as string | null;
        if (title !== null && refsByTitle.get(title)?.has(texts.get(r) as string)) {
          const key = goldRefKey({ title, text: texts.get(r) as string });
          if (!resolvedRefs.has(key)) resolvedRefs.set(key, id);
        }
      }
    }
    passages += batch.numRows;
  }
  return { passages, foundGold, resolvedRefs };
}
