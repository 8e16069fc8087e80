/**
 * BM25 benchmark: index build (passages/s, bytes/passage) and top-100 query throughput on a
 * synthetic Zipfian collection, with wink-bm25-text-search and minisearch measured in the same run.
 *
 *   npx tsx bench/bm25/bm25.ts [--passages 100000] [--queries 2000] [--peer-queries 200] [--threads 2]
 *                              [--segment-postings 100000000] [--no-peers]
 *
 * Peers use a trivial tokenizer (lower-case, split on non-alphanumerics: no stemming, no stop
 * words), so they do less analysis work than cspipe's Lucene-faithful analyzer. minisearch has no
 * top-k: it returns every match and we keep the first 100.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import MiniSearch from "minisearch";
// @ts-expect-error: wink-bm25-text-search ships no type declarations
import winkBm25 from "wink-bm25-text-search";
import { readIndex } from "../../steps/sparse/index-file.ts";
import { buildIndexFile } from "../../steps/sparse/index-merge.ts";
import { searchBatchParallel } from "../../steps/sparse/parallel.ts";
import { Searcher } from "../../steps/sparse/search.ts";
import { mulberry32 as rng } from "../../steps/lib/prng.ts";

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const PASSAGES = arg("passages", 100_000);
const QUERIES = arg("queries", 2000);
const THREADS = arg("threads", 2);
/** Peers answer far fewer queries per second; their rate is measured on the first N queries. */
const PEER_QUERIES = arg("peer-queries", 200);
const PEERS = !process.argv.includes("--no-peers");
/** Postings per in-memory segment (segments are merged on disk); default: the library default. */
const SEGMENT_POSTINGS = arg("segment-postings", 100_000_000);
const K = 100;
const PARAMS = { k1: 0.82, b: 0.68 };


/** 50k pronounceable words; word i drawn with probability ~ 1 / (i + 1)^1.07 (Zipf). */
function makeVocabulary(r: () => number): { words: string[]; cdf: Float64Array } {
  const syll = ["ka", "to", "ri", "men", "sa", "lo", "ver", "ing", "tion", "al", "es", "pre", "con", "st", "ed", "ly", "ou", "an", "er", "mi"];
  const words: string[] = ["the", "of", "and", "a", "to", "in", "is", "was", "for", "on", "that", "with", "as", "by", "it"];
  const seen = new Set(words);
  while (words.length < 50_000) {
    let w = "";
    const n = 1 + Math.floor(r() * 4);
    for (let i = 0; i < n; i++) w += syll[Math.floor(r() * syll.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  const cdf = new Float64Array(words.length);
  let sum = 0;
  for (let i = 0; i < words.length; i++) cdf[i] = sum += 1 / (i + 1) ** 1.07;
  for (let i = 0; i < words.length; i++) cdf[i]! /= sum;
  return { words, cdf };
}

function sampler(v: { words: string[]; cdf: Float64Array }, r: () => number): () => string {
  return () => {
    const u = r();
    let lo = 0;
    let hi = v.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (v.cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return v.words[lo]!;
  };
}

function* passages(n: number): Generator<{ id: string; text: string }> {
  const r = rng(1);
  const word = sampler(makeVocabulary(rng(7)), r);
  for (let i = 0; i < n; i++) {
    const len = 40 + Math.floor(r() * 120); // QReCC-like passages: ~100 words
    const w: string[] = [];
    for (let j = 0; j < len; j++) w.push(word());
    if (r() < 0.3) w.push("Paris's", "3.5", "U.S.A.");
    yield { id: `doc${i}`, text: w.join(" ") + "." };
  }
}

function queries(n: number): { qid: string; text: string }[] {
  const r = rng(2);
  const word = sampler(makeVocabulary(rng(7)), r);
  return Array.from({ length: n }, (_, i) => ({ qid: `q${i}`, text: Array.from({ length: 3 + Math.floor(r() * 10) }, word).join(" ") }));
}

const simpleTokens = (s: string): string[] => s.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
const fmt = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString("en-US") : x.toFixed(2));
const rssMiB = (): number => Math.round(process.memoryUsage().rss / 2 ** 20);

interface Row {
  system: string;
  buildPerSec: number;
  qPerSec: number;
  note: string;
}

async function main(): Promise<void> {
  console.log(`BM25 bench: ${PASSAGES.toLocaleString("en-US")} passages, ${QUERIES} queries, top-${K}, k1=${PARAMS.k1} b=${PARAMS.b}, node ${process.version}`);
  const qs = queries(QUERIES);
  const rows: Row[] = [];

  // --- cspipe
  global.gc?.();
  const rss0 = rssMiB();
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-"));
  const path = join(dir, "bench.bm25");
  let t = performance.now();
  const built = await buildIndexFile(passages(PASSAGES), path, { maxPostingsInMemory: SEGMENT_POSTINGS, tmpDir: dir });
  const buildSec = (performance.now() - t) / 1000;
  const bytes = built.bytes;
  const buildRss = rssMiB() - rss0;
  t = performance.now();
  const loaded = readIndex(path);
  const readSec = (performance.now() - t) / 1000;
  const searcher = new Searcher(loaded, PARAMS);
  t = performance.now();
  let hits = 0;
  for (const q of qs) hits += searcher.search(q.text, K).length;
  const q1 = QUERIES / ((performance.now() - t) / 1000);
  t = performance.now();
  let parRows = 0;
  let firstAt = 0;
  let firstQueries = 0;
  for await (const b of searchBatchParallel(path, qs, { ...PARAMS, k: K, threads: THREADS, batchSize: 32, onProgress: (d) => {
    if (firstAt === 0) {
      firstAt = performance.now();
      firstQueries = d;
    }
  } })) parRows += b.length;
  const tEnd = performance.now();
  const qPar = QUERIES / ((tEnd - t) / 1000); // wall time including worker start-up (tsx compile)
  const qSteady = (QUERIES - firstQueries) / ((tEnd - firstAt) / 1000); // after the first batch came back
  const startup = (firstAt - t) / 1000;
  if (parRows !== hits) throw new Error(`parallel rows ${parRows} != serial ${hits}`);
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `cspipe: build+write ${buildSec.toFixed(1)} s (${built.segments} segment(s)), ${(bytes / PASSAGES).toFixed(1)} bytes/passage on disk ` +
      `(${(bytes / 2 ** 20).toFixed(1)} MiB, ${built.numTerms.toLocaleString("en-US")} terms, ${(loaded.postings.length / 2 ** 20).toFixed(1)} MiB postings), ` +
      `RSS +${buildRss} MiB after build, load ${readSec.toFixed(2)} s\n` +
      `cspipe search top-${K}: 1 thread ${fmt(q1)} q/s; ${THREADS} worker threads ${fmt(qSteady)} q/s steady (${fmt(qSteady / THREADS)} q/s per thread), ` +
      `${fmt(qPar)} q/s over the whole run including ${startup.toFixed(2)} s until the first batch returned (worker start-up)`,
  );
  rows.push({ system: "cspipe (Lucene-faithful analyzer)", buildPerSec: PASSAGES / buildSec, qPerSec: q1, note: "exact Lucene 8 BM25, top-k heap" });

  if (PEERS) {
    // --- wink-bm25-text-search
    {
      t = performance.now();
      const engine = winkBm25();
      engine.defineConfig({ fldWeights: { text: 1 }, bm25Params: { k1: PARAMS.k1, b: PARAMS.b } });
      engine.definePrepTasks([simpleTokens]);
      for (const p of passages(PASSAGES)) engine.addDoc({ text: p.text }, p.id);
      engine.consolidate();
      const bs = (performance.now() - t) / 1000;
      t = performance.now();
      for (const q of qs.slice(0, PEER_QUERIES)) engine.search(q.text, K);
      const qps = Math.min(PEER_QUERIES, QUERIES) / ((performance.now() - t) / 1000);
      rows.push({ system: "wink-bm25-text-search", buildPerSec: PASSAGES / bs, qPerSec: qps, note: "BM25F, simple tokenizer" });
    }
    // --- minisearch
    {
      t = performance.now();
      const ms = new MiniSearch<{ id: string; text: string }>({ fields: ["text"], tokenize: simpleTokens, searchOptions: { bm25: { k: PARAMS.k1, b: PARAMS.b, d: 0 } } });
      for (const p of passages(PASSAGES)) ms.add(p);
      const bs = (performance.now() - t) / 1000;
      t = performance.now();
      for (const q of qs.slice(0, PEER_QUERIES)) ms.search(q.text).slice(0, K);
      const qps = Math.min(PEER_QUERIES, QUERIES) / ((performance.now() - t) / 1000);
      rows.push({ system: "minisearch", buildPerSec: PASSAGES / bs, qPerSec: qps, note: "BM25+ (d=0), returns all matches" });
    }
  }

  const base = rows[0]!;
  console.log("\n| system | build passages/s | queries/s (1 thread, top-100) | cspipe build ratio | cspipe query ratio | note |");
  console.log("|---|---:|---:|---:|---:|---|");
  for (const r of rows) {
    console.log(`| ${r.system} | ${fmt(r.buildPerSec)} | ${fmt(r.qPerSec)} | ${(base.buildPerSec / r.buildPerSec).toFixed(2)}x | ${(base.qPerSec / r.qPerSec).toFixed(2)}x | ${r.note} |`);
  }
}

await main();
