/**
 * A user's passage collection, in the formats Pyserini users have (Anserini conventions):
 *
 *  - JSONL (`.jsonl`, `.json`): one object a line. The indexed text is `contents` (Anserini's
 *    JsonCollection, other fields are not indexed); without `contents`, `title` and `text` are
 *    joined with a newline as Anserini's BEIR flat collection and Pyserini's corpora do
 *    (`title\ntext`), or `text` alone. The id is `id` (a number is read as its decimal text), or
 *    BEIR's `_id`.
 *  - TSV (`.tsv`): `id<TAB>text` a line (MS MARCO's collection.tsv), taken verbatim after the
 *    first tab; or, with the header `id<TAB>text<TAB>title` (DPR's psgs_w100.tsv, TopiOCQA's
 *    full_wiki_segments.tsv), Python-csv quoting and `title\ntext` as the indexed text.
 *  - any of these gzip-compressed (`.gz`), and a directory of such files (searched recursively,
 *    files in path order; hidden files and other extensions are skipped and reported).
 * A file whose name has no known extension is sniffed: JSONL when its first character is `{`.
 * Bad records are InputErrors naming the file, the line and the field.
 */
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parseJsonLine, splitTsvRecord } from "../lib/jsonl.ts";
import { compareUtf8 } from "../eval/ranking.ts";
import type { LineBatch } from "./hashed-lines.ts";

export interface Passage {
  readonly id: string;
  /** What BM25 indexes: `contents`, or title + "\n" + text. */
  readonly text: string;
  /** The title where the record has one (dense encoders take it as a text pair), else null. */
  readonly title: string | null;
  /** The text without the title. */
  readonly body: string;
}

export type CollectionFormat = "jsonl" | "tsv";

const EXTENSIONS: readonly [string, CollectionFormat][] = [
  [".jsonl", "jsonl"],
  [".json", "jsonl"],
  [".tsv", "tsv"],
];

/** The format an extension announces (".gz" stripped), or undefined. */
export function formatOfName(name: string): CollectionFormat | undefined {
  const bare = name.toLowerCase().replace(/\.gz$/, "");
  return EXTENSIONS.find(([ext]) => bare.endsWith(ext))?.[1];
}

export interface CollectionFile {
  readonly path: string;
  /** Path relative to the collection root ("" root = the file itself: its base name). */
  readonly name: string;
}

/** The files of a collection path: the file itself, or a directory's known files in path order. */
export async function listCollection(root: string): Promise<{ files: CollectionFile[]; skipped: string[] }> {
  let s;
  try {
    s = await stat(root);
  } catch (e) {
    const missing = (e as NodeJS.ErrnoException).code === "ENOENT";
    throw new InputError(`--collection: ${missing ? "no such file or directory" : `cannot read it: ${(e as Error).message}`}.`, { file: root, fix: missing ? `check the path (relative paths start at ${process.cwd()})` : "pass a JSONL or TSV file (optionally .gz) or a directory of them" });
  }
  if (s.isFile()) return { files: [{ path: root, name: root.split(sep).pop()! }], skipped: [] };
  const files: CollectionFile[] = [];
  const skipped: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      const rel = relative(root, p).split(sep).join("/");
      if (entry.name.startsWith(".")) skipped.push(rel);
      else if (entry.isDirectory()) await walk(p);
      else if (entry.isFile() && formatOfName(entry.name) !== undefined) files.push({ path: p, name: rel });
      else skipped.push(rel);
    }
  };
  await walk(root);
  files.sort((a, b) => compareUtf8(a.name, b.name));
  if (files.length === 0) {
    throw new InputError("the collection directory holds no .jsonl, .json or .tsv file (optionally .gz)", { file: root, fix: "point --collection at the files, or name them with one of these extensions" });
  }
  return { files, skipped: skipped.sort(compareUtf8) };
}

function idOf(value: unknown, file: string, line: number): string {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  throw new InputError(`passage has no usable id (${JSON.stringify(value) ?? "missing"})`, { file, line, field: "id", fix: 'give every record a non-empty "id" (string or number)' });
}

/** The passage of one JSONL record. */
export function passageFromJson(value: unknown, file: string, line: number): Passage {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InputError("a collection line must be one JSON object", { file, line, fix: 'write one {"id": ..., "contents": ...} object per line (JSONL); a JSON array file must be converted' });
  }
  const r = value as Record<string, unknown>;
  const id = idOf(r.id ?? r._id, file, line);
  const str = (field: string): string | undefined => {
    const v = r[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string") throw new InputError(`passage '${id}': '${field}' is ${typeof v}, not a string`, { file, line, field, fix: `write '${field}' as a string` });
    return v;
  };
  const contents = str("contents");
  if (contents !== undefined) return { id, text: contents, title: null, body: contents };
  const text = str("text");
  if (text === undefined) throw new InputError(`passage '${id}' has no text`, { file, line, field: "contents", fix: 'give every record "contents", or "title" and "text", or "text"' });
  const title = str("title");
  return { id, text: title === undefined ? text : `${title}\n${text}`, title: title ?? null, body: text };
}

/** Passages of one file's line batches, in file order. */
export async function* parseCollection(batches: AsyncIterable<LineBatch>, format: CollectionFormat | undefined, file: string): AsyncGenerator<Passage[]> {
  let fmt = format;
  let tsvHeader: "none" | "id-text" | "id-text-title" | undefined;
  let pending: { text: string; line: number } | undefined;
  for await (const batch of batches) {
    const out: Passage[] = [];
    for (let i = 0; i < batch.lines.length; i++) {
      const text = batch.lines[i]!;
      const line = batch.firstLine + i;
      if (pending === undefined && text.trim() === "") continue;
      fmt ??= text.trimStart().startsWith("{") ? "jsonl" : "tsv";
      if (fmt === "jsonl") {
        out.push(passageFromJson(parseJsonLine(text, file, line, "each line must be one complete JSON object (JSONL)"), file, line));
        continue;
      }
      if (tsvHeader === undefined) {
        const head = text.split("\t").map((f) => f.trim().toLowerCase());
        tsvHeader = head.join("\t") === "id\ttext\ttitle" ? "id-text-title" : head.join("\t") === "id\ttext" ? "id-text" : "none";
        if (tsvHeader !== "none") continue;
      }
      if (tsvHeader === "id-text-title") {
        // DPR-style: Python csv quoting, a quoted field may span lines.
        const joined = pending === undefined ? text : `${pending.text}\n${text}`;
        const start = pending?.line ?? line;
        const fields = splitTsvRecord(joined);
        if (fields === undefined) {
          pending = { text: joined, line: start };
          continue;
        }
        pending = undefined;
        if (fields.length !== 3) throw new InputError(`expected 3 tab-separated fields (id, text, title), found ${fields.length}`, { file, line: start, fix: "write id<TAB>text<TAB>title per line, as the header says" });
        out.push({ id: idOf(fields[0]!, file, start), text: `${fields[2]!}\n${fields[1]!}`, title: fields[2]!, body: fields[1]! });
        continue;
      }
      const tab = text.indexOf("\t");
      if (tab < 0) throw new InputError("expected 'id<TAB>text', found no tab", { file, line, fix: "separate the id from the passage text with one tab" });
      const body = text.slice(tab + 1);
      if (body.includes("\t")) {
        throw new InputError(`expected 2 tab-separated fields (id, text), found ${body.split("\t").length + 1}`, { file, line, fix: "a TSV collection is id<TAB>text; for DPR-style files with a title column start the file with the header id<TAB>text<TAB>title" });
      }
      out.push({ id: idOf(text.slice(0, tab), file, line), text: body, title: null, body });
    }
    if (out.length > 0) yield out;
  }
  if (pending !== undefined) throw new InputError("unterminated quoted field", { file, line: pending.line, fix: 'close the quote, or escape a literal quote as ""' });
}
