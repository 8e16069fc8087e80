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
  const ours = join(work, "cspipe.bm25");
  const theirs = join(work, "lucene");
  try {
    // --- build: cspipe then Lucene
    let b: Json = { seconds: NaN, cpuSeconds: NaN, peakRssKiB: NaN };
    let lb: Json | undefined;
    if (values["search-only"]) {
      if (!existsSync(ours) || (lucene && !existsSync(theirs))) throw new Error(`--search-only: no indexes in ${work}; run once with --keep-index`);
      console.log(`reusing the indexes in ${work} (no build measured)`);
    } else {
      rmSync(work, { recursive: true, force: true });
      mkdirSync(join(work, "seg"), { recursive: true });
      b = tsx("cspipe-run.ts", ["build", collection, ours, values["segment-postings"], join(work, "seg")])[0]!;
      console.log(`cspipe build: ${JSON.stringify(b)}`);
      if (lucene) {
        mkdirSync(theirs, { recursive: true });
        lb = java(lucene, ["build", collection, theirs, values["ram-mb"]], "3g")[0]!;
        console.log(`lucene build: ${JSON.stringify(lb)}`);
      }
    }

    // --- search, alternating
    const qps = { ours: [] as number[], oursCpu: [] as number[], lucene: [] as number[], luceneCpu: [] as number[], exhaustive: [] as number[], exhaustiveCpu: [] as number[] };
    let ourHits: HitList[] = [];
    let theirHits: HitList[] = [];
    let stats: unknown;
    const searchRss = { ours: [] as number[], lucene: [] as number[] };
    const args = [queryFile, String(PARAMS.k1), String(PARAMS.b), String(K), values.warmup, "1"];
    for (let r = 0; r < REPEATS; r++) {
      const o = tsx("cspipe-run.ts", ["search", ours, ...args, "0"]);
      qps.ours.push(NQ / (o[0]!.seconds as number));
      qps.oursCpu.push(NQ / (o[0]!.cpuSeconds as number));
      ourHits = o[1]!.firstHits as HitList[];
      stats = o[1]!.stats;
      searchRss.ours.push(o[1]!.peakRssKiB as number);
      if (lucene) {
        const l = java(lucene, ["search", theirs, ...args, "0"], "1g");
        qps.lucene.push(NQ / (l[0]!.seconds as number));
        qps.luceneCpu.push(NQ / (l[0]!.cpuSeconds as number));
        theirHits = l[1]!.firstHits as HitList[];
        searchRss.lucene.push(l[1]!.peakRssKiB as number);
      }
      if (values.exhaustive) {
        const e = tsx("cspipe-run.ts", ["search", ours, ...args, "1"]);
        qps.exhaustive.push(NQ / (e[0]!.seconds as number));
        qps.exhaustiveCpu.push(NQ / (e[0]!.cpuSeconds as number));
      }
      console.log(`  search repeat ${r + 1}/${REPEATS} done`);
    }
    let parallel: Json | undefined;
    if (THREADS > 0) parallel = tsx("cspipe-run.ts", ["parallel", ours, queryFile, String(PARAMS.k1), String(PARAMS.b), String(K), String(THREADS)])[0];

    // --- report
    const oursBytes = statSync(ours).size;
    console.log("\n| measure | cspipe | Lucene 8 | cspipe / Lucene |");
    console.log("|---|---:|---:|---:|");
    const row = (name: string, a: number, l: number | undefined, higherIsBetter: boolean) =>
      console.log(`| ${name} | ${fmt(a)} | ${l === undefined ? "-" : fmt(l)} | ${l === undefined ? "-" : `${(higherIsBetter ? a / l : l / a).toFixed(2)}x`} |`);
    row("build, passages/s (wall)", N / (b.seconds as number), lb ? N / (lb.indexSeconds as number) : undefined, true);
    row("build, passages/s (wall; Lucene incl. forceMerge(1))", N / (b.seconds as number), lb ? N / ((lb.indexSeconds as number) + (lb.forceMergeSeconds as number)) : undefined, true);
    row("build, passages per CPU-second", N / (b.cpuSeconds as number), lb ? N / (lb.indexCpuSeconds as number) : undefined, true);
    console.log(`| build, peak RSS | ${mib(b.peakRssKiB as number)} | ${lb ? mib(lb.peakRssKiB as number) : "-"} | |`);
    console.log(`| index size | ${(oursBytes / 2 ** 20).toFixed(0)} MiB | ${lb ? `${((lb.bytes as number) / 2 ** 20).toFixed(0)} MiB` : "-"} | |`);
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
    console.log(`| search, peak RSS (median) | ${mib(median(searchRss.ours))} | ${lucene ? mib(median(searchRss.lucene)) : "-"} | |`);
    if (values.exhaustive) console.log(`| cspipe exhaustive scorer, q/s (median; per CPU-s) | ${fmt(median(qps.exhaustive))} (${fmt(median(qps.exhaustiveCpu))}) | | pruned/exhaustive ${(median(qps.ours) / median(qps.exhaustive)).toFixed(2)}x |`);
    if (parallel) console.log(`| cspipe ${THREADS} worker threads, q/s steady (whole run incl. start-up) | ${fmt(parallel.steadyQps as number)} (${fmt(NQ / (parallel.seconds as number))}) | | |`);
    console.log(`\ncspipe pruning counters (all passes of the last repeat): ${JSON.stringify(stats)}`);
    if (lucene) {
      const c = compareHitLists(ourHits, theirHits);
      console.log(`hits vs Lucene on the first ${ourHits.length} queries: ${c.identical} identical lists, ${c.agreeAboveKth} agree above the k-th score, max |score diff| ${c.maxDiff}${c.problems.length ? `; DIFFER: ${c.problems.slice(0, 3).join("; ")}` : ""}`);
      if (c.problems.length > 0) process.exitCode = 1;
    }
    writeFileSync(join(dataDir, `last-run-${N}.json`), JSON.stringify({ date: new Date().toISOString(), N, NQ, K, build: { cspipe: b, lucene: lb }, qps, searchRss, parallel }, null, 1));
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
    else console.log(`indexes kept in ${work}`);
  }
  if (!existsSync(collection)) throw new Error("collection vanished");
}

await main();
