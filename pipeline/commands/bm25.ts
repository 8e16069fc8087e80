/**
 * `bm25 index` and `bm25 search`: Lucene-exact BM25 on a user's own collection, with Pyserini's
 * command-line shape and Anserini's run format.
 *
 *   bm25 index --collection <file|dir> --index <dir>
 *   bm25 search --index <dir> --topics <file> --output <run.trec> [--hits 1000] [--k1 0.9 --b 0.4]
 *               [--runtag Anserini] [--topic-field <name>] [--threads N]
 *
 * Both run as cached steps in the store (steps/files/steps.ts): files enter the keys by content
 * (sha256, remembered per unchanged file), so a rerun on unchanged files is a cache hit that only
 * copies the result out. `--index <dir>` receives bm25.idx, stats.json and cspipe-index.json (what
 * it was built from); it is replaced whole, and only if it is empty or an earlier cspipe index.
 * Exit codes: 0 ok, 1 a step failed, 2 bad usage or bad input (file:line, field and fix).
 */
import { InvalidArgumentError, type Command } from "commander";
import type { StepRunIO } from "./run-steps.ts";
import type { AnyStep } from "../engine/step.ts";

/** What `bm25 index` writes beside the index, and `bm25 search` reads. */
export interface IndexManifest {
  readonly format: "cspipe-bm25-index/1";
  readonly analyzer: string;
  readonly collection: readonly { readonly name: string; readonly sha256: string; readonly size: number }[];
  readonly index: { readonly file: "bm25.idx"; readonly sha256: string; readonly size: number };
  readonly store: { readonly root: string; readonly step: string; readonly key: string };
}

export const INDEX_MANIFEST = "cspipe-index.json";

interface CommonFlags {
  store?: string;
  json: boolean;
  verbose: boolean;
}

function positive(name: string, integer: boolean): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (!(n > 0) || (integer && !Number.isInteger(n))) throw new InvalidArgumentError(`${name} must be a positive ${integer ? "integer" : "number"}`);
    return n;
  };
}

export function registerBm25Command(program: Command, io: StepRunIO, setExitCode: (code: number) => void): void {
  const bm25 = program.command("bm25").description("BM25 (Lucene 8 exact, Anserini's English analyzer) on your own collection: index, then search");
  const guard = (fn: () => Promise<number>) => async (): Promise<void> => {
    try {
      setExitCode(await fn());
    } catch (e) {
      const { InputError } = await import("../engine/errors.ts");
      if (!(e instanceof InputError)) throw e;
      io.stderr.write(`error: ${e.message}\n`);
      setExitCode(2);
    }
  };
  bm25
    .command("index")
    .description("index a collection: JSONL {id, contents} or {id, title, text}, TSV id<TAB>text, a directory of them, gzip")
    .requiredOption("--collection <path>", "a .jsonl/.json/.tsv file (optionally .gz) or a directory of them")
    .requiredOption("--index <dir>", "directory that receives the index (replaced whole)")
    .option("--max-postings-in-memory <n>", "postings held in memory before a segment is written to disk (default 100M, ~400 MB)", positive("--max-postings-in-memory", true))
    .option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)")
    .option("--json", "JSON event lines on stderr", false)
    .option("--verbose", "print cache hits and step logs", false)
    .action((flags: CommonFlags & { collection: string; index: string; maxPostingsInMemory?: number }) => guard(() => indexCommand(io, flags))());
  bm25
    .command("search")
    .description("search an index with topics (TSV qid<TAB>text or JSONL); write a TREC run")
    .requiredOption("--index <dir>", "directory written by 'bm25 index'")
    .requiredOption("--topics <file>", "topics: TSV qid<TAB>text, or JSONL {qid|id, query|title|text|question|contents} (optionally .gz)")
    .requiredOption("--output <file>", "TREC run to write: 'qid Q0 docid rank score tag'")
    .option("--hits <k>", "hits per topic", positive("--hits", true), 1000)
    .option("--k1 <k1>", "BM25 k1 (Pyserini's default 0.9; the paper's QReCC runs use 0.82)", positive("--k1", false), 0.9)
    .option("--b <b>", "BM25 b (Pyserini's default 0.4; QReCC 0.68)", (v: string) => Number(v), 0.4)
    .option("--runtag <tag>", "run tag, the sixth column", "Anserini")
    .option("--topic-field <name>", "JSONL topics: the field holding the query text")
    .option("--threads <n>", "search threads (results do not depend on it)", positive("--threads", true), 2)
    .option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)")
    .option("--json", "JSON event lines on stderr", false)
    .option("--verbose", "print cache hits and step logs", false)
    .action((flags: CommonFlags & { index: string; topics: string; output: string; hits: number; k1: number; b: number; runtag: string; topicField?: string; threads: number }) =>
      guard(() => searchCommand(io, flags))(),
    );
}

async function indexCommand(io: StepRunIO, flags: CommonFlags & { collection: string; index: string; maxPostingsInMemory?: number }): Promise<number> {
  const { resolve } = await import("node:path");
  const { openProject, runProjectSteps } = await import("./run-steps.ts");
  const { listCollection } = await import("../../steps/files/collection.ts");
  const { digestFiles } = await import("../../steps/files/digest-cache.ts");
  const { collectionIndex, fileParam } = await import("../definitions/user-files.ts");
  const { ANALYZER_ID } = await import("../../steps/sparse/analyzer.ts");
  const collection = resolve(flags.collection);
  const indexDir = resolve(flags.index);
  (await import("./paths.ts")).checkOutputDir(indexDir, "--index");
  await checkReplaceable(indexDir);
  let steps: AnyStep[] = [];
  const project = await openProject(io, flags.store, () => steps, "bm25-index");
  const { files, skipped } = await listCollection(collection);
  if (skipped.length > 0) io.stderr.write(`skipped ${skipped.length} file(s) that are not .jsonl/.json/.tsv(.gz): ${skipped.slice(0, 5).join(", ")}${skipped.length > 5 ? ", ..." : ""}\n`);
  const ids = await digestFiles(files.map((f) => f.path), project.store.scratchDir("user-file-digests"), hashNotice(io));
  const userFiles = files.map((f, i) => ({ name: f.name, sha256: ids[i]!.sha256, size: ids[i]!.size, path: f.path }));
  const step = collectionIndex(userFiles, flags.maxPostingsInMemory);
  steps = [step];
  const r = await runProjectSteps(project, io, { target: "bm25-index", json: flags.json, verbose: flags.verbose, ...(flags.store !== undefined ? { store: flags.store } : {}) });
  if (r.exitCode !== 0) return r.exitCode;
  const entry = r.entries.get(step.name)!;
  const manifest: Omit<IndexManifest, "index"> = {
    format: "cspipe-bm25-index/1",
    analyzer: ANALYZER_ID,
    collection: userFiles.map(fileParam),
    store: { root: project.store.root, step: entry.stepId, key: entry.key },
  };
  const digestCache = project.store.scratchDir("user-file-digests");
  const stats = (await upToDate(indexDir, entry.key, digestCache)) ?? (await publishIndex(project.store.outputPath(entry, "index"), indexDir, manifest, digestCache));
  io.stdout.write(`indexed ${stats.numDocs} passages (${stats.numTerms} terms) from ${files.length} file(s) into ${indexDir} (step key ${entry.key.slice(0, 12)})\n`);
  return 0;
}

async function searchCommand(
  io: StepRunIO,
  flags: CommonFlags & { index: string; topics: string; output: string; hits: number; k1: number; b: number; runtag: string; topicField?: string; threads: number },
): Promise<number> {
  const { resolve, join, basename } = await import("node:path");
  const { existsSync, readdirSync } = await import("node:fs");
  const { InputError } = await import("../engine/errors.ts");
  const { openProject, runProjectSteps } = await import("./run-steps.ts");
  const { digestFiles } = await import("../../steps/files/digest-cache.ts");
  const { SEARCH_PARAMS } = await import("../../steps/files/steps.ts");
  const { bm25Search } = await import("../definitions/user-files.ts");
  const paths = await import("./paths.ts");
  const output = resolve(flags.output);
  paths.checkOutputFile(output, "--output");
  const indexDir = resolve(flags.index);
  paths.checkInputDir(indexDir, "--index");
  const idx = join(indexDir, "bm25.idx");
  if (!existsSync(idx)) {
    const lucene = existsSync(indexDir) && readdirSync(indexDir).some((n) => n.startsWith("segments_"));
    throw new InputError(lucene ? "this is a Lucene index (Pyserini/Anserini); cspipe searches its own index format" : "not a cspipe BM25 index (no bm25.idx)", {
      file: indexDir,
      fix: "build the index with 'bm25 index --collection <files> --index <dir>'",
    });
  }
  const params = SEARCH_PARAMS.safeParse({ k: flags.hits, k1: flags.k1, b: flags.b, tag: flags.runtag });
  if (!params.success) throw new InputError(params.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), { field: "options", fix: "check --hits, --k1, --b (0..1) and --runtag (no spaces)" });
  const topicsPath = resolve(flags.topics);
  (await import("../../steps/lib/text.ts")).checkInputFile(topicsPath, "--topics");
  let steps: AnyStep[] = [];
  const project = await openProject(io, flags.store, () => steps, "bm25-search");
  const [indexId, topicsId] = await digestFiles([idx, topicsPath], project.store.scratchDir("user-file-digests"), hashNotice(io));
  const search = bm25Search({
    index: { name: "bm25.idx", sha256: indexId!.sha256, size: indexId!.size, path: idx },
    topics: { name: basename(topicsPath), sha256: topicsId!.sha256, size: topicsId!.size, path: topicsPath },
    topicField: flags.topicField ?? null,
    search: params.data,
    threads: flags.threads,
  });
  steps = [search];
  const r = await runProjectSteps(project, io, { target: "bm25-search", json: flags.json, verbose: flags.verbose });
  if (r.exitCode !== 0) return r.exitCode;
  const entry = r.entries.get(search.name)!;
  await copyAtomically(project.store.outputPath(entry, "run"), output);
  const { statSync } = await import("node:fs");
  if (statSync(output).size === 0) io.stderr.write(`warning: the run is empty: no topic matched any passage of the index (topics of stop words only, or the wrong index?)\n`);
  io.stdout.write(`wrote ${output} (k1=${params.data.k1}, b=${params.data.b}, ${params.data.k} hits per topic; step key ${entry.key.slice(0, 12)})\n`);
  return 0;
}

function hashNotice(io: StepRunIO): (path: string, done: number, total: number) => void {
  const announced = new Set<string>();
  return (path, _done, total) => {
    if (announced.has(path) || total < 64 << 20) return;
    announced.add(path);
    io.stderr.write(`hashing ${path} (${(total / 2 ** 20).toFixed(0)} MiB; remembered while the file is unchanged)\n`);
  };
}

/** An index directory may be replaced if it does not exist, is empty, or holds an earlier cspipe index. */
async function checkReplaceable(dir: string): Promise<void> {
  const { readdir, stat } = await import("node:fs/promises");
  const { InputError } = await import("../engine/errors.ts");
  const s = await stat(dir).catch(() => undefined);
  if (s === undefined) return;
  if (!s.isDirectory()) throw new InputError("exists and is not a directory", { file: dir, field: "--index", fix: "name a new directory" });
  const names = await readdir(dir);
  if (names.length > 0 && !names.includes(INDEX_MANIFEST)) {
    throw new InputError(`is not empty and holds no ${INDEX_MANIFEST} (not an index written by cspipe): refusing to replace it`, { file: dir, field: "--index", fix: "name a new or empty directory" });
  }
}

/** The stats of `dir` when it already holds the index of entry `key`, unchanged since it was written. */
async function upToDate(dir: string, key: string, digestCache: string): Promise<{ numDocs: number; numTerms: number } | undefined> {
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { digestFiles } = await import("../../steps/files/digest-cache.ts");
  try {
    const m = JSON.parse(await readFile(join(dir, INDEX_MANIFEST), "utf8")) as IndexManifest;
    if (m.store.key !== key) return undefined;
    const [id] = await digestFiles([join(dir, "bm25.idx")], digestCache);
    if (id?.sha256 !== m.index.sha256) return undefined;
    return JSON.parse(await readFile(join(dir, "stats.json"), "utf8")) as { numDocs: number; numTerms: number };
  } catch {
    return undefined;
  }
}

/** Copy the store's index into `dir` (a sibling temp dir renamed over it), with the manifest. */
async function publishIndex(from: string, dir: string, manifest: Omit<IndexManifest, "index">, digestCache: string): Promise<{ numDocs: number; numTerms: number }> {
  const { mkdir, readFile, rename, rm, writeFile, copyFile, stat } = await import("node:fs/promises");
  const { join, dirname, basename } = await import("node:path");
  const { constants } = await import("node:fs");
  const { hashFile, rememberDigest } = await import("../../steps/files/digest-cache.ts");
  const suffix = `${process.pid}-${Date.now()}`;
  const tmp = join(dirname(dir), `.${basename(dir)}.tmp-${suffix}`);
  const old = join(dirname(dir), `.${basename(dir)}.old-${suffix}`);
  await mkdir(tmp, { recursive: true });
  try {
    await copyFile(join(from, "bm25.idx"), join(tmp, "bm25.idx"), constants.COPYFILE_FICLONE);
    await copyFile(join(from, "stats.json"), join(tmp, "stats.json"));
    const size = (await stat(join(tmp, "bm25.idx"))).size;
    const sha256 = await hashFile(join(tmp, "bm25.idx"));
    const full: IndexManifest = { ...manifest, index: { file: "bm25.idx", sha256, size } };
    await writeFile(join(tmp, INDEX_MANIFEST), JSON.stringify(full, null, 2) + "\n");
    const existing = await stat(dir).catch(() => undefined);
    if (existing !== undefined) await rename(dir, old);
    await rename(tmp, dir);
    await rememberDigest(join(dir, "bm25.idx"), sha256, digestCache);
    return JSON.parse(await readFile(join(dir, "stats.json"), "utf8")) as { numDocs: number; numTerms: number };
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
}

async function copyAtomically(from: string, to: string): Promise<void> {
  const { copyFile, mkdir, rename, rm } = await import("node:fs/promises");
  const { dirname } = await import("node:path");
  await mkdir(dirname(to), { recursive: true });
  const tmp = `${to}.tmp-${process.pid}`;
  try {
    await copyFile(from, tmp);
    await rename(tmp, to);
  } finally {
    await rm(tmp, { force: true });
  }
}
