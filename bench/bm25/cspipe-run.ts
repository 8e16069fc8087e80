/**
 * cspipe's side of bench/bm25, run in a child process per measurement (so each build starts from a
 * fresh heap and reports its own peak memory, like the Lucene peer's JVM):
 *
 *   build  <collection.tsv> <index> <segmentPostings> <tmpDir>      one JSON line
 *   search <index> <queries.tsv> <k1> <b> <k> <warmup> <repeats> <exhaustive 0|1>
 *          one JSON line per timed pass, then {"firstHits": ...}
 *   parallel <index> <queries.tsv> <k1> <b> <k> <threads>           one JSON line (searchBatchParallel)
 */
import { cpuUsage, resourceUsage } from "node:process";
import { readFileSync } from "node:fs";
import { readIndex } from "../../steps/sparse/index-file.ts";
import { buildIndexFile } from "../../steps/sparse/index-merge.ts";
import { searchBatchParallel } from "../../steps/sparse/parallel.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { readTsv } from "./collection.ts";

const cpuSeconds = (): number => {
  const u = cpuUsage();
  return (u.user + u.system) / 1e6;
};

function readQueries(path: string): { qid: string; text: string }[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const tab = l.indexOf("\t");
      return { qid: l.slice(0, tab), text: l.slice(tab + 1) };
    });
}

async function main(argv: string[]): Promise<void> {
  const [mode, ...a] = argv;
  if (mode === "build") {
    const [tsv, index, segmentPostings, tmpDir] = a as [string, string, string, string];
    const t0 = performance.now();
    const c0 = cpuSeconds();
    const r = await buildIndexFile(readTsv(tsv), index, { maxPostingsInMemory: Number(segmentPostings), tmpDir });
    console.log(JSON.stringify({ ...r, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSeconds() - c0, peakRssKiB: resourceUsage().maxRSS }));
  } else if (mode === "search") {
    const [index, queriesFile, k1, b, k, warmup, repeats, exhaustive] = a as [string, string, string, string, string, string, string, string];
    const qs = readQueries(queriesFile);
    const t = performance.now();
    const loaded = readIndex(index, { shared: false });
    const loadSeconds = (performance.now() - t) / 1000;
    const s = new Searcher(loaded, { k1: Number(k1), b: Number(b) });
    const run = exhaustive === "1" ? (q: string) => s.searchExhaustive(q, Number(k)) : (q: string) => s.search(q, Number(k));
    const firstHits: unknown[] = [];
    for (let pass = 0; pass < Number(warmup) + Number(repeats); pass++) {
      const t0 = performance.now();
      const c0 = cpuSeconds();
      let hits = 0;
      qs.forEach((q, i) => {
        const h = run(q.text);
        hits += h.length;
        if (pass === 0 && i < 20) firstHits.push([q.qid, ...h.map((x) => [x.pid, x.score])]);
      });
      if (pass >= Number(warmup)) {
        console.log(JSON.stringify({ pass: pass - Number(warmup), queries: qs.length, seconds: (performance.now() - t0) / 1000, cpuSeconds: cpuSeconds() - c0, hits }));
      }
    }
    console.log(JSON.stringify({ firstHits, loadSeconds, stats: s.stats ?? null, peakRssKiB: resourceUsage().maxRSS }));
  } else if (mode === "parallel") {
    const [index, queriesFile, k1, b, k, threads] = a as [string, string, string, string, string, string];
    const qs = readQueries(queriesFile);
    const t0 = performance.now();
    let firstAt = 0;
    let firstQueries = 0;
    let rows = 0;
    for await (const batch of searchBatchParallel(index, qs, {
      k1: Number(k1),
      b: Number(b),
      k: Number(k),
      threads: Number(threads),
      batchSize: 32,
      onProgress: (d) => {
        if (firstAt === 0) {
          firstAt = performance.now();
          firstQueries = d;
        }
      },
    })) rows += batch.length;
    const t1 = performance.now();
    console.log(JSON.stringify({ queries: qs.length, rows, seconds: (t1 - t0) / 1000, steadyQps: (qs.length - firstQueries) / ((t1 - firstAt) / 1000), startupSeconds: (firstAt - t0) / 1000 }));
  } else {
    throw new Error(`unknown mode ${mode} (build | search | parallel)`);
  }
}

await main(process.argv.slice(2));
