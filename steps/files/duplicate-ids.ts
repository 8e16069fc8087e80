/**
 * A duplicate passage id in a user's collection, located by file and line. The index builder
 * (steps/sparse/ids.ts) finds duplicates after sorting and knows only the documents' ordinals
 * ("documents 1 and 6"), since it keeps no line per passage; on that error the collection is read
 * a second time up to the later ordinal to name both places, as the datasets' preprocessing does
 * ("duplicate passage id 'd1' (first at a.tsv:1)", at b.jsonl:3).
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { parseCollection, formatOfName } from "./collection.ts";
import { readHashedLines, type LineBatch } from "./hashed-lines.ts";

export interface CollectionSource {
  readonly path: string;
  readonly sha256: string;
}

interface Place {
  readonly file: string;
  readonly line: number;
}

const DUPLICATE = /^duplicate passage id '(.*)' \(documents (\d+) and (\d+)\)$/s;

/** File and line of the passages numbered `ordinals` (1-based, in file order). */
async function locatePassages(files: readonly CollectionSource[], ordinals: readonly number[]): Promise<Map<number, Place>> {
  const found = new Map<number, Place>();
  const last = Math.max(...ordinals);
  let n = 0;
  for (const f of files) {
    let line = 0;
    // One line per batch, so each passage the parser yields is the one of the line just read.
    async function* oneByOne(): AsyncGenerator<LineBatch> {
      for await (const batch of readHashedLines(f.path, { sha256: f.sha256 })) {
        for (let i = 0; i < batch.lines.length; i++) {
          line = batch.firstLine + i;
          yield { lines: [batch.lines[i]!], firstLine: line };
        }
      }
    }
    for await (const passages of parseCollection(oneByOne(), formatOfName(f.path), f.path)) {
      for (let k = 0; k < passages.length; k++) {
        n++;
        if (ordinals.includes(n)) found.set(n, { file: f.path, line });
        if (n >= last) return found;
      }
    }
  }
  return found;
}

/** `error` restated at the file and line of both passages when it is the index builder's duplicate id; otherwise `error` itself. */
export async function locateDuplicateId(error: unknown, files: readonly CollectionSource[]): Promise<unknown> {
  const m = error instanceof InputError ? DUPLICATE.exec(error.detail) : null;
  if (m === null) return error;
  const [a, b] = [Number(m[2]), Number(m[3])].sort((x, y) => x - y) as [number, number];
  const places = await locatePassages(files, [a, b]);
  const first = places.get(a);
  const second = places.get(b);
  if (first === undefined || second === undefined) return error;
  return new InputError(`duplicate passage id '${m[1]}' (first at ${first.file}:${first.line})`, {
    file: second.file,
    line: second.line,
    field: "id",
    fix: "passage ids must be unique across the collection; remove or rename one",
  });
}
