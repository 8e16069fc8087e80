/**
 * Dense flat inner-product search: faiss-node (three ways to load vectors) vs Python faiss
 * (Debian python3-faiss, same libfaiss 1.7.3) vs the TypeScript brute force, same data, same run.
 *
 *   npx tsx bench/dense/search.ts                # 50k x 768, 100 queries, k 100
 *   npx tsx bench/dense/search.ts --n 200000     # the full-size run
 *   options: --n N --dim D --nq Q --k K --add-rows R (rows timed for faiss-node's add(), default 20000)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { faissAvailability } from "../../steps/dense/backend.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { buildFlatIP } from "../../steps/dense/faiss-index.ts";
import type { FaissLoadMethod } from "../../steps/dense/faiss-index.ts";
import { writeNpy } from "../../steps/lib/npy.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";

const { values } = parseArgs({
  options: {
    n: { type: "string", default: "50000" },
    dim: { type: "string", default: "768" },
    nq: { type: "string", default: "100" },
    k: { type: "string", default: "100" },
    "add-rows": { type: "string", default: "20000" },
  },
});
const n = Number(values.n);
const dim = Number(values.dim);
const nq = Number(values.nq);
const k = Number(values.k);
const addRows = Math.min(n, Number(values["add-rows"]));

function randomMatrix(rows: number, seed: number): Float32Array {
  const next = mulberry32(seed);
  const out = new Float32Array(rows * dim);
  for (let i = 0; i < out.length; i++) out[i] = next() - 0.5;
  return out;
}

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, (performance.now() - t0) / 1000];
}

const fmt = (s: number) => `${s.toFixed(3)} s`;
console.log(`dense search bench: ${n} x ${dim} corpus, ${nq} queries, k=${k}, ${process.env.OMP_NUM_THREADS ?? "default"} OpenMP threads`);
const corpus = randomMatrix(n, 1);
const queries = randomMatrix(nq, 2);
const rows: [string, number | undefined, number | undefined, string][] = [];

// Python faiss peer.
const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-dense-"));
let pyTop1: number[] | undefined;
try {
  writeNpy(join(dir, "corpus.npy"), { dtype: "float32", shape: [n, dim], data: corpus });
  writeNpy(join(dir, "queries.npy"), { dtype: "float32", shape: [nq, dim], data: queries });
  const peer = fileURLToPath(new URL("./faiss_peer.py", import.meta.url));
  const r = spawnSync("/usr/bin/python3", [peer, join(dir, "corpus.npy"), join(dir, "queries.npy"), String(k)], { encoding: "utf8" });
  if (r.status === 0) {
    const j = JSON.parse(r.stdout) as { add_s: number; search_s: number; threads: number; faiss: string; top1: number[] };
    pyTop1 = j.top1;
    rows.push(["python faiss IndexFlatIP", j.add_s, j.search_s, `faiss ${j.faiss}, ${j.threads} threads (add from numpy)`]);
  } else {
    rows.push(["python faiss IndexFlatIP", undefined, undefined, `unavailable: ${r.stderr.trim().split("\n").at(-1)}`]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// faiss-node.
const avail = faissAvailability();
let faissTop1: number[] | undefined;
if (avail.available) {
  for (const method of ["read-file", "from-buffer"] as FaissLoadMethod[]) {
    const [ix, tBuild] = time(() => buildFlatIP(corpus, dim, { backend: "faiss", faissMethod: method }));
    const [res, tSearch] = time(() => ix.search(queries, k));
    faissTop1 = Array.from({ length: nq }, (_, q) => res.rows[q * k]!);
    rows.push([`faiss-node (${method})`, tBuild, tSearch, "build includes the NaN check and the TS-written index file"]);
  }
  const [, tAdd] = time(() => buildFlatIP(corpus.subarray(0, addRows * dim), dim, { backend: "faiss", faissMethod: "add", addChunkRows: 10000 }));
  rows.push([`faiss-node (add(), plain arrays)`, (tAdd * n) / addRows, undefined, `timed on ${addRows} rows, scaled to ${n}`]);
} else {
  rows.push(["faiss-node", undefined, undefined, avail.reason]);
}

// TypeScript brute force (single thread).
const [bf, tBf] = time(() => bruteForceSearch(corpus, queries, dim, k));
rows.push(["TypeScript brute force", undefined, tBf, "1 thread, float64 accumulation"]);
const bfTop1 = Array.from({ length: nq }, (_, q) => bf.rows[q * k]!);

const py = rows[0]!;
console.log("");
console.log(`| engine | build/add | search ${nq} q | add vs python | search vs python | note |`);
console.log("|---|---|---|---|---|---|");
for (const [name, add, search, note] of rows) {
  const ra = add !== undefined && py[1] !== undefined && add > 0 ? `${(add / py[1]).toFixed(1)}x` : "";
  const rs = search !== undefined && py[2] !== undefined ? `${(search / py[2]).toFixed(1)}x` : "";
  console.log(`| ${name} | ${add !== undefined ? fmt(add) : "-"} | ${search !== undefined ? fmt(search) : "-"} | ${ra} | ${rs} | ${note} |`);
}
const agree = (a?: number[]) => (a === undefined ? "n/a" : `${a.filter((x, i) => x === bfTop1[i]).length}/${nq}`);
console.log(`\ntop-1 agreement with the brute force: faiss-node ${agree(faissTop1)}, python faiss ${agree(pyTop1)}`);
