/**
 * The torch dense backend on CPU (bfloat16, the GPU's program): adversarial near-ties around the
 * k-th place (a cluster of passages per query whose exact scores differ by less than bfloat16's
 * resolution, exact duplicates, passage ids out of row order) where a naive bfloat16 top k is
 * wrong, and the depth rule still returns the existing exact path's hits (brute force +
 * rescoring + merge) bit for bit; the proof rejects a depth that does not cover the cluster
 * (those queries are widened, counted in the report); the TypeScript re-check refuses a list
 * whose threshold does not clear the k-th exact score. Needs /usr/bin/python3 with torch.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { writeNpy } from "../../steps/lib/npy.ts";
import { writeFlatIPFile } from "../../steps/dense/faiss-index.ts";
import { bruteForceSearch } from "../../steps/dense/brute-force.ts";
import { indexFileRowReader, rescoreFromIndexFile } from "../../steps/dense/rescore.ts";
import { mergeShardTopK } from "../../steps/dense/merge.ts";
import { rescoreDepth, pickSearcher } from "../../steps/dense/shard-search.ts";
import { proofHolds, provenTopK, runTorchCandidates } from "../../steps/dense/torch-search.ts";
import { tempDir } from "../engine/helpers.ts";

const PY = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const skip = spawnSync(PY, ["-c", "import torch"]).status === 0 ? false : `no torch for ${PY} (apt-get install -y python3-torch)`;
const ENV = { ...process.env, CSPIPE_PYTHON: process.env.CSPIPE_PYTHON ?? PY };

const DIM = 32;
const K = 10;
const NQ = 3;
const CLUSTER = 40;
const DUPLICATES = 5;
const BULK = 300;

/** Per query a cluster of CLUSTER passages at score ~10 within 0.01 of each other, DUPLICATES exact copies of one of them, and BULK passages scoring below 2. */
function fixture() {
  const r = mulberry32(33);
  const u = () => r() * 2 - 1;
  const queries = Float32Array.from({ length: NQ * DIM }, u);
  const rows: number[][] = [];
  for (let q = 0; q < NQ; q++) {
    const qv = Array.from(queries.subarray(q * DIM, (q + 1) * DIM));
    const n2 = qv.reduce((s, v) => s + v * v, 0);
    const base = qv.map((v) => (10 * v) / n2);
    for (let i = 0; i < CLUSTER; i++) rows.push(base.map((v) => v + 2e-4 * u()));
    for (let i = 0; i < DUPLICATES; i++) rows.push([...rows[rows.length - 1 - i]!]);
  }
  for (let i = 0; i < BULK; i++) rows.push(Array.from({ length: DIM }, () => 0.05 * u()));
  // Rows interleaved so clusters are not contiguous; ids in another order than rows.
  const order = rows.map((_, i) => i).sort((a, b) => ((a * 7919) % rows.length) - ((b * 7919) % rows.length));
  const corpus = Float32Array.from(order.flatMap((i) => rows[i]!));
  const ids = order.map((_, row) => `p${String((row * 37) % order.length).padStart(4, "0")}`);
  return { corpus, queries, ids, n: order.length };
}

/** bfloat16 rounding (nearest, ties to even) of a float32 value. */
const f32 = new Float32Array(1);
const bits = new Uint32Array(f32.buffer);
function bf16(x: number): number {
  f32[0] = x;
  const b = bits[0]!;
  bits[0] = ((b + 0x7fff + ((b >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32[0]!;
}

test("near-ties: a naive bfloat16 top k is wrong; the proven depth gives the exact path's hits bit for bit and widens every query", { skip }, () => {
  const { corpus, queries, ids, n } = fixture();
  const dir = tempDir("cspipe-torch-search-");
  try {
    const indexFile = join(dir, "index.faiss");
    writeFlatIPFile(indexFile, corpus, DIM);
    writeNpy(join(dir, "q.npy"), { dtype: "float32", shape: [NQ, DIM], data: queries });
    // The existing exact path: brute force at rescoreDepth(k), rescoring, merge.
    const exact = mergeShardTopK([{ topk: rescoreFromIndexFile(bruteForceSearch(corpus, queries, DIM, rescoreDepth(K)), queries, DIM, indexFile), ids }], K);

    // A naive bfloat16 top k (bf16 inputs, bf16 output, ties by row) misses some of the exact top k.
    const naiveWrong = Array.from({ length: NQ }, (_, q) => {
      const s = Array.from({ length: n }, (_, row) => bf16(Array.from({ length: DIM }, (_, d) => bf16(corpus[row * DIM + d]!) * bf16(queries[q * DIM + d]!)).reduce((a, b) => a + b, 0)));
      const top = new Set(s.map((v, row) => [v, row] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]).slice(0, K).map(([, row]) => ids[row]));
      return exact[q]!.some((h) => !top.has(String(h.id)));
    });
    assert.deepEqual(naiveWrong, [true, true, true]);

    const c = runTorchCandidates(indexFile, join(dir, "q.npy"), K, { outDir: join(dir, "out"), dtype: "bfloat16", env: ENV });
    assert.equal(c.report.dtype, "bfloat16");
    // Depth 2k = 20 and 40 stop inside the 45 near-tied rows: the proof fails, 80 passes.
    assert.deepEqual({ widened: c.report.widened, float32: c.report.float32, depths: c.report.depths }, { widened: 3, float32: 0, depths: { "80": 3 } });
    const { topk, failures } = provenTopK(c, queries, DIM, K, rescoreDepth(K), indexFileRowReader(indexFile, DIM));
    assert.deepEqual(failures, []);
    const got = mergeShardTopK([{ topk, ids }], K);
    assert.deepEqual(got, exact);
    // Duplicates tie exactly and are ordered by id.
    assert.ok(exact.some((list) => list.some((h, j) => j > 0 && h.score === list[j - 1]!.score)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the bound holds on random data: |bfloat16 score - exact| <= eps for every pair (bound.py against torch's own matmul)", { skip }, () => {
  const code = [
    "import torch",
    "from dense.gpu.bound import query_eps",
    "g = torch.Generator().manual_seed(5)",
    "x = torch.randn(2000, 96, generator=g) * 3; q = torch.randn(16, 96, generator=g)",
    "low = (q.bfloat16() @ x.bfloat16().t()).double(); ex = q.double() @ x.double().t()",
    "e = query_eps(96, 'bfloat16', True, float(x.double().norm(dim=1).max()), float(x.double().abs().sum(dim=1).max()), q.double().norm(dim=1).tolist(), q.double().abs().sum(dim=1).tolist())",
    "ratio = float(((low - ex).abs() / torch.tensor(e, dtype=torch.float64).unsqueeze(1)).max())",
    "print(ratio)",
  ].join("\n");
  const r = spawnSync(PY, ["-c", code], { encoding: "utf8", env: { ...process.env, PYTHONPATH: fileURLToPath(new URL("../../steps", import.meta.url)), OMP_NUM_THREADS: "1" } });
  assert.equal(r.status, 0, r.stderr);
  const ratio = Number(r.stdout.trim());
  assert.ok(ratio > 0 && ratio <= 1, `max |error| / eps = ${ratio}`);
});

test("the TypeScript re-check: threshold + eps must stay below the k-th exact score (equality fails; every row a candidate passes)", () => {
  assert.equal(proofHolds(9.5, 0.25, 10), true);
  assert.equal(proofHolds(9.5, 0.25, 9.75), false);
  assert.equal(proofHolds(9.5, 0.5, 9.75), false);
  assert.equal(proofHolds(-Infinity, 1e30, -5), true);
  // Two queries of 2-d rows [1,0],[0,1],[1,1]; query 1's threshold is above its 2nd exact score.
  const rows = new Float32Array([1, 0, 0, 1, 1, 1]);
  const read = (want: Int32Array, visit: (i: number, data: Float32Array, offset: number) => void) => want.forEach((row, i) => visit(i, rows, row * 2));
  const c = { offsets: [0, 2, 4], rows: Int32Array.from([2, 0, 2, 1]), threshold: Float32Array.from([0.5, 1.75]), eps: Float32Array.from([0.25, 0.25]), report: {} as never };
  const { topk, failures } = provenTopK(c, new Float32Array([1, 0, 0, 2]), 2, 2, 3, read);
  assert.deepEqual(failures, [{ query: 1, threshold: 1.75, eps: 0.25, kth: 2 }]);
  assert.deepEqual(Array.from(topk.rows), [0, 2, -1, 1, 2, -1]);
  assert.deepEqual(Array.from(topk.scores), [1, 1, -Infinity, 2, 2, -Infinity]);
});

test("auto takes torch only with a GPU slot this process can use; torch can be asked for anywhere", () => {
  assert.deepEqual(pickSearcher("auto", undefined).searcher, "flat");
  assert.deepEqual(pickSearcher("auto", []).searcher, "flat");
  assert.deepEqual(pickSearcher("auto", [1]), { searcher: "torch", reason: "auto: the step holds GPU slot(s) 1" });
  assert.deepEqual(pickSearcher("auto", [1], () => "no CUDA here"), { searcher: "flat", reason: "auto: GPU slot held but no CUDA here" });
  assert.deepEqual(pickSearcher("faiss", [0]).searcher, "flat");
  assert.deepEqual(pickSearcher("torch", undefined).searcher, "torch");
});
