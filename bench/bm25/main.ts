/**
 * BM25 benchmark: cspipe (exact Lucene 8 scoring, block-max MaxScore pruning) beside Lucene 8
 * (Debian's liblucene8-java, block-max WAND), one thread each, same generated collection, same
 * queries, same run: index build (passages/s, peak memory, index size) and top-k query throughput.
 *
 *   npx tsx bench/bm25/main.ts [--passages 1000000] [--queries 1000] [--repeats 3] [--quick]
 *       [--k 100] [--warmup 1] [--segment-postings 100000000] [--ram-mb 256] [--threads 0] [--exhaustive]
 *       [--no-lucene] [--data-dir bench/out/bm25] [--keep-index] [--search-only]
 *
 * --quick: 100k passages, 300 queries, 2 repeats. The collection (collection.ts) is generated
 * once per size into --data-dir and reused. Each measurement runs in a fresh child process (a
 * JVM for Lucene), alternating cspipe and Lucene `--repeats` times; both first make `--warmup`
 * untimed passes over the queries (JIT warm-up), then one timed pass. Wall and CPU seconds are both
 * reported (on a loaded machine CPU seconds are the steadier figure). The first 20 queries' hits
 * are compared (hits scoring above the k-th score must be identical; at the k-th score Lucene
 * breaks ties by its internal doc number, cspipe by passage id).
 * --threads N adds cspipe's worker-thread search over N threads; --exhaustive adds cspipe's
 * exhaustive scorer (the pre-pruning search) for comparison. --keep-index keeps both indexes in
 * --data-dir; --search-only reuses them (no build measurement; for work on the search side).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { luceneClasspath } from "../../test/peers/lucene/peer.ts";
import { median, minimum } from "../engine/stats.ts";
import { passages, queries, writeTsv } from "./collection.ts";
import { compareHitLists, type HitList } from "./compare.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const PARAMS = { k1: 0.82, b: 0.68 };

const { values } = parseArgs({
  options: {
    passages: { type: "string" },
    queries: { type: "string" },
    repeats: { type: "string" },
    quick: { type: "boolean", default: false },
    k: { type: "string", default: "100" },
    warmup: { type: "string", default: "1" },
    "segment-postings": { type: "string", default: "100000000" },
    "ram-mb": { type: "string", default: "256" },
    threads: { type: "string", default: "0" },
    exhaustive: { type: "boolean", default: false },
    "no-lucene": { type: "boolean", default: false },
    "data-dir": { type: "string", default: join(ROOT, "bench", "out", "bm25") },
    "keep-index": { type: "boolean", default: false },
    "search-only": { type: "boolean", default: false },
  },
});
const N = Number(values.passages ?? (values.quick ? 100_000 : 1_000_000));
const NQ = Number(values.queries ?? (values.quick ? 300 : 1000));
const REPEATS = Number(values.repeats ?? (values.quick ? 2 : 3));
const K = Number(values.k);
const THREADS = Number(values.threads);

interface Json {
  [key: string]: unknown;
}

function runJson(cmd: string, args: readonly string[]): Json[] {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${(r.stderr || r.stdout).slice(-3000)}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Json);
}

const tsx = (script: string, args: readonly string[]): Json[] => runJson(process.execPath, ["--import", "tsx", join(HERE, script), ...args]);
const java = (classpath: string, args: readonly string[], heap: string): Json[] => runJson("java", [`-Xms${heap}`, `-Xmx${heap}`, "-cp", classpath, join(HERE, "LuceneBench.java"), ...args]);
const fmt = (x: number): string => (Number.isNaN(x) ? "-" : x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(2));
const mib = (kib: number): string => (Number.isNaN(kib) ? "-" : `${Math.round(kib / 1024).toLocaleString("en-US")} MiB`);
const pathBytes = (p: string): number => (statSync(p).isDirectory() ? 0 : statSync(p).size);

/** Where the two indexes are: cspipe's file and Lucene's directory (none without the peer). */
interface Indexes {
  readonly work: string;
  readonly ours: string;
  readonly theirs: string;
  readonly lucene: string | undefined;
}

interface Builds {
  readonly b: Json;
  readonly lb: Json | undefined;
}

/** Both builds, measured (cspipe then Lucene); with --search-only, the kept indexes instead (nothing measured). */
function buildIndexes(ix: Indexes, collection: string): Builds {
  if (values["search-only"]) {
    if (!existsSync(ix.ours) || (ix.lucene && !existsSync(ix.theirs))) throw new Error(`--search-only: no indexes in ${ix.work}; run once with --keep-index`);
    console.log(`reusing the indexes in ${ix.work} (no build measured)`);
    return { b: { seconds: NaN, cpuSeconds: NaN, peakRssKiB: NaN }, lb: undefined };
  }
  rmSync(ix.work, { recursive: true, force: true });
  mkdirSync(join(ix.work, "seg"), { recursive: true });
  const b = tsx("cspipe-run.ts", ["build", collection, ix.ours, values["segment-postings"], join(ix.work, "seg")])[0]!;
  console.log(`cspipe build: ${JSON.stringify(b)}`);
  let lb: Json | undefined;
  if (ix.lucene) {
    mkdirSync(ix.theirs, { recursive: true });
    lb = java(ix.lucene, ["build", collection, ix.theirs, values["ram-mb"]], "3g")[0]!;
    console.log(`lucene build: ${JSON.stringify(lb)}`);
  }
  return { b, lb };
}

/** What the search repeats measured: queries per second (wall, CPU) per engine, peak RSS, and the last repeat's first hits and pruning counters. */
interface Searches {
  readonly qps: { ours: number[]; oursCpu: number[]; lucene: number[]; luceneCpu: number[]; exhaustive: number[]; exhaustiveCpu: number[] };
  readonly searchRss: { ours: number[]; lucene: number[] };
  ourHits: HitList[];
  theirHits: HitList[];
  stats: unknown;
}

/** `--repeats` rounds, each cspipe then Lucene (then cspipe's exhaustive scorer), every one in a fresh child process. */
function searchRepeats(ix: Indexes, queryFile: string): Searches {
  const s: Searches = { qps: { ours: [], oursCpu: [], lucene: [], luceneCpu: [], exhaustive: [], exhaustiveCpu: [] }, searchRss: { ours: [], lucene: [] }, ourHits: [], theirHits: [], stats: undefined };
  const args = [queryFile, String(PARAMS.k1), String(PARAMS.b), String(K), values.warmup, "1"];
  for (let r = 0; r < REPEATS; r++) {
    const o = tsx("cspipe-run.ts", ["search", ix.ours, ...args, "0"]);
    s.qps.ours.push(NQ / (o[0]!.seconds as number));
    s.qps.oursCpu.push(NQ / (o[0]!.cpuSeconds as number));
    s.ourHits = o[1]!.firstHits as HitList[];
    s.stats = o[1]!.stats;
    s.searchRss.ours.push(o[1]!.peakRssKiB as number);
    if (ix.lucene) {
      const l = java(ix.lucene, ["search", ix.theirs, ...args, "0"], "1g");
      s.qps.lucene.push(NQ / (l[0]!.seconds as number));
      s.qps.luceneCpu.push(NQ / (l[0]!.cpuSeconds as number));
      s.theirHits = l[1]!.firstHits as HitList[];
      s.searchRss.lucene.push(l[1]!.peakRssKiB as number);
    }
    if (values.exhaustive) {
      const e = tsx("cspipe-run.ts", ["search", ix.ours, ...args, "1"]);
      s.qps.exhaustive.push(NQ / (e[0]!.seconds as number));
      s.qps.exhaustiveCpu.push(NQ / (e[0]!.cpuSeconds as number));
    }
    console.log(`  search repeat ${r + 1}/${REPEATS} done`);
  }
  return s;
}

const row = (name: string, a: number, l: number | undefined, higherIsBetter: boolean): void =>
  console.log(`| ${name} | ${fmt(a)} | ${l === undefined ? "-" : fmt(l)} | ${l === undefined ? "-" : `${(higherIsBetter ? a / l : l / a).toFixed(2)}x`} |`);

/** The build rows of the table: throughput (wall, with Lucene's forceMerge, per CPU-second), peak RSS and index size. */
function buildRows({ b, lb }: Builds, oursBytes: number): void {
  row("build, passages/s (wall)", N / (b.seconds as number), lb ? N / (lb.indexSeconds as number) : undefined, true);
  row("build, passages/s (wall; Lucene incl. forceMerge(1))", N / (b.seconds as number), lb ? N / ((lb.indexSeconds as number) + (lb.forceMergeSeconds as number)) : undefined, true);
  row("build, passages per CPU-second", N / (b.cpuSeconds as number), lb ? N / (lb.indexCpuSeconds as number) : undefined, true);
  console.log(`| build, peak RSS | ${mib(b.peakRssKiB as number)} | ${lb ? mib(lb.peakRssKiB as number) : "-"} | |`);
  console.log(`| index size | ${(oursBytes / 2 ** 20).toFixed(0)} MiB | ${lb ? `${((lb.bytes as number) / 2 ** 20).toFixed(0)} MiB` : "-"} | |`);
}

/** The search rows of the table: q/s (median, min, per CPU-second), the per-repeat ratios, peak RSS, the exhaustive scorer and the worker threads. */
function searchRows(s: Searches, lucene: string | undefined, parallel: Json | undefined): void {
  const { qps } = s;
  row(`search top-${K}, q/s, 1 thread (median of ${REPEATS})`, median(qps.ours), lucene ? median(qps.lucene) : undefined, true);
  row(`search top-${K}, q/s, 1 thread (min of ${REPEATS})`, minimum(qps.ours), lucene ? minimum(qps.lucene) : undefined, true);
  row(`search top-${K}, queries per CPU-second (median)`, median(qps.oursCpu), lucene ? median(qps.luceneCpu) : undefined, true);
  if (lucene) {
    // each repeat runs the two children back to back: a ratio within a repeat shares most of the machine's load
    const pairs = (a: number[], l: number[]): string => {
      const r = a.map((x, i) => x / l[i]!);
      return `${median(r).toFixed(2)}x (${r.map((x) => x.toFixed(2)).join(", ")})`;
    };
    console.log(`| search, median of the per-repeat ratios: wall; per CPU-second | | | ${pairs(qps.ours, qps.lucene)}; ${pairs(qps.oursCpu, qps.luceneCpu)} |`);
  }
  // the search child's whole process: the index read into memory (cspipe) or mapped (Lucene's pages
  // touched count), the JIT, and cspipe's term bitsets
  console.log(`| search, peak RSS (median) | ${mib(median(s.searchRss.ours))} | ${lucene ? mib(median(s.searchRss.lucene)) : "-"} | |`);
  if (values.exhaustive) console.log(`| cspipe exhaustive scorer, q/s (median; per CPU-s) | ${fmt(median(qps.exhaustive))} (${fmt(median(qps.exhaustiveCpu))}) | | pruned/exhaustive ${(median(qps.ours) / median(qps.exhaustive)).toFixed(2)}x |`);
  if (parallel) console.log(`| cspipe ${THREADS} worker threads, q/s steady (whole run incl. start-up) | ${fmt(parallel.steadyQps as number)} (${fmt(NQ / (parallel.seconds as number))}) | | |`);
}

/** The table, the pruning counters, and the first queries' hits against Lucene's (exit code 1 when they differ). */
function report(ix: Indexes, builds: Builds, s: Searches, parallel: Json | undefined): void {
  const oursBytes = statSync(ix.ours).size;
  console.log("\n| measure | cspipe | Lucene 8 | cspipe / Lucene |");
  console.log("|---|---:|---:|---:|");
  buildRows(builds, oursBytes);
  searchRows(s, ix.lucene, parallel);
  console.log(`\ncspipe pruning counters (all passes of the last repeat): ${JSON.stringify(s.stats)}`);
  if (ix.lucene) {
    const c = compareHitLists(s.ourHits, s.theirHits);
    console.log(`hits vs Lucene on the first ${s.ourHits.length} queries: ${c.identical} identical lists, ${c.agreeAboveKth} agree above the k-th score, max |score diff| ${c.maxDiff}${c.problems.length ? `; DIFFER: ${c.problems.slice(0, 3).join("; ")}` : ""}`);
    if (c.problems.length > 0) process.exitCode = 1;
  }
}

async function main(): Promise<void> {
  const peer = values["no-lucene"] ? { missing: "--no-lucene" } : luceneClasspath();
  const lucene = "classpath" in peer ? peer.classpath : undefined;
  console.log(
    `BM25 bench: ${N.toLocaleString("en-US")} generated passages, ${NQ} queries (3-12 words), top-${K}, k1=${PARAMS.k1} b=${PARAMS.b}, ` +
      `${REPEATS} repeats, node ${process.version}, ${availableParallelism()} cores; Lucene peer: ${lucene ? "8 (liblucene8-java), 1 thread" : `unavailable (${"missing" in peer ? peer.missing : ""})`}`,
  );
  const dataDir = resolve(values["data-dir"]);
  const collection = join(dataDir, `collection-${N}.tsv`);
  const queryFile = join(dataDir, `queries-${NQ}.tsv`);
  const t = performance.now();
  await writeTsv(collection, passages(N));
  await writeTsv(queryFile, queries(NQ).map((q) => ({ id: q.qid, text: q.text })));
  console.log(`collection ${collection} (${(pathBytes(collection) / 2 ** 20).toFixed(0)} MiB, ready in ${((performance.now() - t) / 1000).toFixed(1)} s, untimed)`);

  const keep = values["keep-index"] || values["search-only"];
  const work = keep ? join(dataDir, `indexes-${N}`) : mkdtempSync(join(tmpdir(), "cspipe-bench-bm25-"));
  const ix: Indexes = { work, ours: join(work, "cspipe.bm25"), theirs: join(work, "lucene"), lucene };
  try {
    const builds = buildIndexes(ix, collection);
    const s = searchRepeats(ix, queryFile);
    const parallel = THREADS > 0 ? tsx("cspipe-run.ts", ["parallel", ix.ours, queryFile, String(PARAMS.k1), String(PARAMS.b), String(K), String(THREADS)])[0] : undefined;
    report(ix, builds, s, parallel);
    writeFileSync(join(dataDir, `last-run-${N}.json`), JSON.stringify({ date: new Date().toISOString(), N, NQ, K, build: { cspipe: builds.b, lucene: builds.lb }, qps: s.qps, searchRss: s.searchRss, parallel }, null, 1));
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
    else console.log(`indexes kept in ${work}`);
  }
  if (!existsSync(collection)) throw new Error("collection vanished");
}

await main();
