/**
 * Steps over a user's own files (`bm25` and `diagnose` commands). A file enters a cache key by its
 * content: the command hashes it (digest-cache.ts remembers digests of unchanged files) and the step
 * takes the sha256 as a param, so the key never holds a path; the path reaches the step through
 * the closure of a def made for this run (same id and version every time). The step hashes the
 * bytes it reads again and fails if they differ, so no entry can be built from other bytes.
 *
 *   index-collection-files   collection files -> bm25-index (Lucene-exact, steps/sparse)
 *   read-topics-file         topics file -> jsonl:topics ({qid, text} lines, sorted by qid)
 *   import-bm25-index        an index directory written by `bm25 index` -> bm25-index
 *   search-bm25-topics       bm25-index + jsonl:topics -> trec:run (Anserini's run conventions)
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { dir, file } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { buildIndexFile } from "../sparse/index-merge.ts";
import { searchBatchParallel } from "../sparse/parallel.ts";
import { readIndex } from "../sparse/index-file.ts";
import { Searcher, type RunRow } from "../sparse/search.ts";
import { writeLines } from "../eval/trec-run.ts";
import { parseCollection, formatOfName, type Passage } from "./collection.ts";
import { readHashedLines } from "./hashed-lines.ts";
import { locateDuplicateId } from "./duplicate-ids.ts";
import { parseTopics, type Topic } from "./topics.ts";
import { Checkpoints } from "../lib/cancel.ts";

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const fileParam = z.object({ name: z.string().min(1), sha256, size: z.number().int().nonnegative() }).strict();
export type FileParam = z.infer<typeof fileParam>;

/** Where the step finds each file named in its params (never part of the key). */
export type FileLocations = ReadonlyMap<string, string>;

function locate(locations: FileLocations, name: string): string {
  const p = locations.get(name);
  if (p === undefined) throw new Error(`no location for file '${name}'`);
  return p;
}

/** Builds a BM25 index over the passages of the collection files, in file order. */
export function indexCollectionDef(locations: FileLocations) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "index-collection-files",
    version: 1,
    source: import.meta.url,
    description: "Lucene-8-exact BM25 index (Anserini's default English analysis) over a user's collection files.",
    params: z.object({ files: z.array(fileParam).min(1), maxPostingsInMemory: z.number().int().positive().optional() }).strict(),
    inputs: {},
    outputs: { index: dir("bm25-index", "index") },
    cost: (p) => p.files.reduce((s, f) => s + f.size, 0) / 5e6,
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { files } = ctx.params;
        const total = files.reduce((s, f) => s + f.size, 0);
        let before = 0;
        let bytes = 0;
        let passages = 0;
        const perFile: { name: string; passages: number }[] = [];
        async function* docs(): AsyncGenerator<Passage> {
          for (const f of files) {
            const path = locate(locations, f.name);
            const lines = readHashedLines(path, { sha256: f.sha256, onBytes: (b) => (bytes = before + b) });
            let n = 0;
            for await (const batch of parseCollection(lines, formatOfName(path), path)) {
              for (const p of batch) yield p;
              n += batch.length;
              passages += batch.length;
              ctx.progress(bytes, total, `bytes, ${passages} passages`);
            }
            perFile.push({ name: f.name, passages: n });
            before += f.size;
          }
        }
        const stats = await buildIndexFile(docs(), join(ctx.outputs.index, "bm25.idx"), {
          source: files.length === 1 ? locate(locations, files[0]!.name) : `${files.length} collection files`,
          textOf: (d) => d.text,
          tmpDir: ctx.workDir,
          signal: ctx.signal,
          ...(ctx.params.maxPostingsInMemory !== undefined ? { maxPostingsInMemory: ctx.params.maxPostingsInMemory } : {}),
        }).catch(async (e: unknown) => {
          throw await locateDuplicateId(e, files.map((f) => ({ path: locate(locations, f.name), sha256: f.sha256 })));
        });
        if (passages === 0) {
          throw new InputError(`the collection holds no passages (${files.length} file${files.length === 1 ? "" : "s"} read)`, {
            file: locate(locations, files[0]!.name),
            fix: 'give it one passage per line: JSONL {"id", "contents"} or TSV id<TAB>text.',
          });
        }
        ctx.progress(total, total, `${passages} passages`);
        await writeFile(join(ctx.outputs.index, "stats.json"), JSON.stringify({ ...stats, files: perFile }, null, 2) + "\n");
        ctx.log(`indexed ${stats.numDocs} passages from ${files.length} file(s): ${stats.numTerms} terms, ${stats.segments} segment(s), ${stats.bytesPerPassage.toFixed(1)} bytes/passage`);
      },
    },
  });
}

/** Normalises a topics file to `{qid, text}` JSON lines sorted by qid. */
export function readTopicsDef(locations: FileLocations) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "read-topics-file",
    version: 1,
    source: import.meta.url,
    description: "Topics (TSV qid<TAB>text or JSONL) as sorted {qid, text} lines.",
    params: z.object({ file: fileParam, field: z.string().nullable().default(null) }).strict(),
    inputs: {},
    outputs: { topics: file("jsonl:topics", "topics.jsonl") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const path = locate(locations, ctx.params.file.name);
        const topics = await parseTopics(readHashedLines(path, { sha256: ctx.params.file.sha256 }), path, ctx.params.field ?? undefined);
        await writeLines(ctx.outputs.topics, topics.map((t) => JSON.stringify({ qid: t.qid, text: t.text })));
        ctx.log(`${topics.length} topics`);
      },
    },
  });
}

/** Copies `bm25.idx` of an index directory into the store, checking its sha256 on the way. */
export function importIndexDef(locations: FileLocations) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "import-bm25-index",
    version: 1,
    source: import.meta.url,
    description: "A BM25 index directory written by `bm25 index`, brought into the store by content.",
    params: z.object({ file: fileParam }).strict(),
    inputs: {},
    outputs: { index: dir("bm25-index", "index") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { file: f } = ctx.params;
        const from = locate(locations, f.name);
        const h = createHash("sha256");
        const out = createWriteStream(join(ctx.outputs.index, "bm25.idx"));
        let done = 0;
        for await (const chunk of createReadStream(from, { highWaterMark: 1 << 22 })) {
          h.update(chunk as Buffer);
          done += (chunk as Buffer).length;
          if (!out.write(chunk)) await once(out, "drain");
          ctx.progress(done, f.size, "bytes");
        }
        out.end();
        await once(out, "finish");
        const got = h.digest("hex");
        if (got !== f.sha256) throw new InputError(`changed after it was hashed (sha256 ${got}, expected ${f.sha256})`, { file: from, fix: "leave the index unchanged while the search runs, then rerun" });
      },
    },
  });
}

/** Up to this many queries, searching in this thread beats starting workers (~1 s each). */
export const IN_THREAD_TOPICS = 256;

/** The same rows as searchBatchParallel, computed in this thread, in batches. */
export async function* inThread(indexPath: string, topics: readonly Topic[], opts: { k: number; k1: number; b: number; onProgress: (done: number, total?: number) => void; signal?: AbortSignal }): AsyncGenerator<RunRow[]> {
  const searcher = new Searcher(readIndex(indexPath), { k1: opts.k1, b: opts.b });
  const cp = new Checkpoints(opts.signal);
  for (let i = 0; i < topics.length; i += 64) {
    await cp.pass();
    const rows: RunRow[] = [];
    for (const t of topics.slice(i, i + 64)) searcher.search(t.text, opts.k).forEach((h, r) => rows.push({ qid: t.qid, pid: h.pid, rank: r + 1, score: h.score }));
    opts.onProgress(Math.min(topics.length, i + 64), topics.length);
    yield rows;
  }
}

export const SEARCH_PARAMS = z
  .object({
    /** Hits per topic (Pyserini's --hits, default 1000). */
    k: z.number().int().positive().default(1000),
    k1: z.number().positive().default(0.9),
    b: z.number().min(0).max(1).default(0.4),
    /** Run tag, the sixth column (Anserini's default runtag). */
    tag: z.string().regex(/^\S+$/, "a run tag cannot contain whitespace").default("Anserini"),
  })
  .strict();

/** Top-k BM25 for every topic; `threads` (not part of the key: results do not depend on it). */
export function searchTopicsDef(threads: number) {
  return defineStepWith({ threads }, {
    id: "search-bm25-topics",
    version: 1,
    source: import.meta.url,
    description: "Top-k BM25 (Lucene-exact) for every topic, as a TREC run with Anserini's conventions.",
    params: SEARCH_PARAMS,
    inputs: { index: "bm25-index", topics: "jsonl:topics" },
    outputs: { run: file("trec:run", "run.trec") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { k, k1, b, tag } = ctx.params;
        const topics = (await readFile(ctx.inputs.topics, "utf8"))
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l) as Topic);
        // Streamed: a run of 1000 hits for 100k topics does not fit in a string array.
        const out = createWriteStream(ctx.outputs.run, { encoding: "utf8" });
        const indexPath = join(ctx.inputs.index, "bm25.idx");
        // Worker threads cost ~1 s each to start: a few hundred topics are faster in this thread.
        const opts = { k, k1, b, onProgress: (done: number, total?: number) => ctx.progress(done, total, "topics"), signal: ctx.signal };
        const rows = topics.length <= IN_THREAD_TOPICS || threads === 1 ? inThread(indexPath, topics, opts) : searchBatchParallel(indexPath, topics, { ...opts, threads, total: topics.length });
        let hits = 0;
        for await (const batch of rows) {
          // Anserini's RunOutputWriter: "%s Q0 %s %d %f %s" (six decimals; float32 scores make Java's
          // half-up rounding of the shortest decimal and toFixed's exact rounding agree).
          let text = "";
          for (const r of batch) text += `${r.qid} Q0 ${r.pid} ${r.rank} ${r.score.toFixed(6)} ${tag}\n`;
          hits += batch.length;
          if (!out.write(text)) await once(out, "drain");
        }
        out.end();
        await once(out, "finish");
        ctx.log(`${topics.length} topics, ${hits} hits (k=${k}, k1=${k1}, b=${b})`);
      },
    },
  });
}
