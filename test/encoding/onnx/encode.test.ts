/**
 * onnxruntime-node vs torch on tiny encoders exported in the test (needs /usr/bin/python3 with
 * torch, Debian python3-torch; skipped with the reason otherwise).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { readNpy, writeNpy } from "../../../steps/lib/npy.ts";
import { encodeNpyFile, encodeRows } from "../../../steps/encoding/onnx/encode.ts";
import { openEncoder } from "../../../steps/encoding/onnx/session.ts";
import { tokenMatrixFromNpy } from "../../../steps/encoding/onnx/batch.ts";
import { splitRows } from "../../../steps/encoding/onnx/shards.ts";
import { tempDir } from "../../tmp.ts";

const PY = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("./tiny_encoder.py", import.meta.url));
const torchCheck = spawnSync(PY, ["-c", "import torch"], { encoding: "utf8" });
const skip = torchCheck.status === 0 ? false : `no torch for ${PY} (apt-get install -y python3-torch): ${(torchCheck.stderr ?? torchCheck.error?.message ?? "").trim().split("\n").at(-1)}`;

const N = 23;
const L = 12;
const VOCAB = 50;
let dir = "";

function py(args: string[]): void {
  execFileSync(PY, [SCRIPT, ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, OMP_NUM_THREADS: "1" } });
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

const MODELS = {
  meanpool: ["--kind", "meanpool", "--vocab", String(VOCAB), "--hidden", "8", "--seed", "1"],
  bert: ["--kind", "bert", "--vocab", String(VOCAB), "--hidden", "16", "--layers", "2", "--heads", "2", "--max-len", "64", "--seed", "2"],
};

before(() => {
  if (skip !== false) return;
  dir = tempDir("cspipe-onnx-test-");
  // Deterministic ids: row r has real length 1 + (r * 5) % L, then padding 0; no row is empty.
  const ids = new Int32Array(N * L);
  const types = new Int8Array(N * L);
  for (let r = 0; r < N; r++) {
    const len = 1 + ((r * 5) % L);
    for (let j = 0; j < len; j++) {
      ids[r * L + j] = 1 + ((r * 31 + j * 17) % (VOCAB - 1));
      types[r * L + j] = j >= len / 2 ? 1 : 0;
    }
  }
  writeNpy(join(dir, "ids.npy"), { dtype: "int32", shape: [N, L], data: ids });
  writeNpy(join(dir, "types.npy"), { dtype: "int8", shape: [N, L], data: types });
  for (const [name, args] of Object.entries(MODELS)) {
    py(["export", "--out", join(dir, `${name}.onnx`), ...args, "--ids", join(dir, "ids.npy"), "--types", join(dir, "types.npy"), "--ref", join(dir, `${name}.ref.npy`)]);
  }
});

after(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

for (const name of Object.keys(MODELS)) {
  test(`${name}: onnxruntime-node embeddings match torch (max abs diff < 1e-5)`, { skip }, async (t) => {
    const ref = readNpy(join(dir, `${name}.ref.npy`));
    const progress: number[] = [];
    const r = await encodeNpyFile({
      model: join(dir, `${name}.onnx`),
      ids: join(dir, "ids.npy"),
      types: join(dir, "types.npy"),
      out: join(dir, `${name}.out.npy`),
      batchSize: 5,
      intraOpThreads: 1,
      providers: "auto",
      onProgress: (d) => progress.push(d),
    });
    t.diagnostic(`providers: ${r.providers.join(",")} (${r.reason})`);
    assert.equal(r.rows, N);
    assert.equal(r.dim, ref.shape[1]);
    assert.deepEqual(progress, [5, 10, 15, 20, 23]);
    const out = readNpy(join(dir, `${name}.out.npy`));
    assert.equal(out.dtype, "float32");
    assert.deepEqual(out.shape, [N, ref.shape[1]]);
    const diff = maxAbsDiff(out.data as Float32Array, ref.data as Float32Array);
    t.diagnostic(`max abs diff vs torch: ${diff}`);
    assert.ok(diff < 1e-5, `max abs diff ${diff}`);
  });

  test(`${name}: batch trimming and batch size do not change the embeddings; shards concatenate`, { skip }, async (t) => {
    const tokens = tokenMatrixFromNpy(readNpy(join(dir, "ids.npy")), readNpy(join(dir, "types.npy")));
    const enc = await openEncoder(join(dir, `${name}.onnx`), { intraOpThreads: 1 });
    try {
      const all = { start: 0, end: N };
      const trimmed = await encodeRows(enc.session, tokens, all, { batchSize: 4 });
      const untrimmed = await encodeRows(enc.session, tokens, all, { batchSize: 4, trim: false });
      const single = await encodeRows(enc.session, tokens, all, { batchSize: 1 });
      const dTrim = maxAbsDiff(trimmed.data, untrimmed.data);
      const dBatch = maxAbsDiff(trimmed.data, single.data);
      t.diagnostic(`trimmed vs untrimmed max abs diff ${dTrim}; batch 4 vs 1: ${dBatch}`);
      // Masked positions contribute exact zeros; only float summation order may differ.
      assert.ok(dTrim <= 1e-6, `trim changed embeddings by ${dTrim}`);
      assert.ok(dBatch <= 1e-6, `batch size changed embeddings by ${dBatch}`);
      const parts = [];
      for (const range of splitRows(N, 3)) parts.push(await encodeRows(enc.session, tokens, range, { batchSize: 4 }));
      assert.deepEqual(parts.map((p) => p.rows), [8, 8, 7]);
      const joined = new Float32Array(trimmed.data.length);
      let off = 0;
      for (const p of parts) {
        joined.set(p.data, off);
        off += p.data.length;
      }
      assert.ok(maxAbsDiff(joined, trimmed.data) <= 1e-6);
      await assert.rejects(encodeRows(enc.session, tokens, { start: 20, end: 30 }), /row range \[20, 30\) is outside \[0, 23\)/);
    } finally {
      await enc.session.release();
    }
  });
}

test("a model that breaks the contract is rejected with the file name", { skip }, async () => {
  const bad = join(dir, "bad.onnx");
  execFileSync(
    PY,
    [
      "-c",
      "import torch,sys\nclass M(torch.nn.Module):\n  def forward(self, x): return x * 2\n" +
        "torch.onnx.export(M(), (torch.ones(1,2),), sys.argv[1], input_names=['x'], output_names=['y'], opset_version=14)",
      bad,
    ],
    { stdio: "ignore" },
  );
  await assert.rejects(openEncoder(bad), /bad.onnx: model inputs \[x\] \/ outputs \[y\] do not follow the encoder contract/);
  await assert.rejects(openEncoder(join(dir, "missing.onnx")), /missing.onnx: ONNX model not found/);
});
