/** Checks of the Python training core through `train.py --selftest` (exact, hand-computed numbers). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runTrainer, selftest, writeSyntheticInputs } from "./python.ts";
import { tempDir } from "../tmp.ts";

test("in-batch NLL matches a hand-computed batch (2 queries, 2 positives, 1 hard negative each)", () => {
  // q1=(1,0), q2=(0,1); columns [p1=(2,0), p2=(0,1), n1=(1,1), n2=(0,0)].
  // scores q1: [2,0,1,0] -> loss1 = ln(e^2 + e + 2) - 2 = 0.493812...
  // scores q2: [0,1,1,0] -> loss2 = ln(2 + 2e) - 1      = 1.006409...
  const r = selftest<{ loss: number; scores: number[][] }>("loss", { q: [[1, 0], [0, 1]], p: [[2, 0], [0, 1], [1, 1], [0, 0]] });
  assert.deepEqual(r.scores, [[2, 0, 1, 0], [0, 1, 1, 0]]);
  const e = Math.E;
  const expected = (Math.log(e * e + e + 2) - 2 + Math.log(2 + 2 * e) - 1) / 2;
  assert.ok(Math.abs(r.loss - expected) < 1e-6, `${r.loss} vs ${expected}`);
  assert.ok(Math.abs(r.loss - 0.750111) < 1e-5);
});

test("a column holding another gold passage of the same query is masked out of the softmax", () => {
  // Both queries share gold passage 7 (one conversation), so each query's positive column is
  // masked for the other: q1 row [2, -inf, 1, 0] -> loss1 = ln(e^2 + e + 1) - 2 = 0.407606...;
  // q2 row [-inf, 1, 1, 0] -> loss2 = ln(2e + 1) - 1 = 0.862000...; mean 0.634803...
  const r = selftest<{ loss: number }>("loss", {
    q: [[1, 0], [0, 1]],
    p: [[2, 0], [0, 1], [1, 1], [0, 0]],
    pids: [7, 7, 3, 4],
    gold: [[7], [7]],
  });
  const e = Math.E;
  const expected = (Math.log(e * e + e + 1) - 2 + Math.log(2 * e + 1) - 1) / 2;
  assert.ok(Math.abs(r.loss - expected) < 1e-6, `${r.loss} vs ${expected}`);
});

test("sampled hard negatives never include a gold passage; empty lists fall back to random non-gold passages", () => {
  const r = selftest<{ samples: number[][]; fallbacks: number }>("negatives", {
    rows: [[5, 1, -1, 3, 9], [-1, -1], [2, 4, 4]],
    pos: [1, 2, 0],
    gold: [[9, -1], [-1, -1], [4, -1]],
    n: 1,
    n_passages: 6,
    seed: 3,
    draws: 50,
  });
  const gold = [new Set([1, 9]), new Set([2]), new Set([0, 4])];
  r.samples.forEach((s, k) => {
    const i = k % 3;
    assert.equal(s.length, 1);
    assert.ok(!gold[i]!.has(s[0]!), `example ${i} sampled gold ${s[0]}`);
    if (i === 0) assert.ok([5, 3].includes(s[0]!));
    if (i === 2) assert.equal(s[0], 2);
  });
  assert.equal(r.fallbacks, 50); // only example 1 (no mined negatives) falls back, once per draw
});

test("n hard negatives per example: distinct picks, fallback fills the shortfall", () => {
  const r = selftest<{ samples: number[][]; fallbacks: number }>("negatives", {
    rows: [[3, 4, 5], [7]],
    pos: [0, 1],
    n: 2,
    n_passages: 10,
    seed: 1,
    draws: 10,
  });
  for (const [k, s] of r.samples.entries()) {
    assert.equal(new Set(s).size, 2);
    if (k % 2 === 1) assert.ok(s.includes(7) && !s.includes(1));
  }
  assert.equal(r.fallbacks, 10);
});

test("HF-named safetensors round-trip: question_encoder.bert_model. prefix, same outputs", () => {
  const r = selftest<{ max_abs_diff: number; prefix: string; loaded: number; ignored: string[]; unexpected: string[]; source: string }>("roundtrip", {
    prefix: "question_encoder.bert_model.",
    dtype: "F32",
    seed: 3,
  });
  assert.equal(r.prefix, "question_encoder.bert_model.");
  assert.equal(r.loaded, 5 + 16 * 2); // embeddings (3 tables + LayerNorm) + 16 tensors per layer
  assert.equal(r.max_abs_diff, 0);
  assert.deepEqual(r.unexpected, []);
  // The report (written into a model's outputs) names the file, not where this store keeps it (a temporary directory here).
  assert.equal(r.source, "model.safetensors");
  assert.deepEqual(r.ignored.sort(), ["question_encoder.bert_model.embeddings.position_ids", "question_encoder.bert_model.pooler.dense.bias", "question_encoder.bert_model.pooler.dense.weight"]);
});

test("original-DPR prefix is detected and float16 weights decode to float32", () => {
  const r = selftest<{ max_abs_diff: number; prefix: string }>("roundtrip", { prefix: "question_model.", dtype: "F16", seed: 4 });
  assert.equal(r.prefix, "question_model.");
  assert.ok(r.max_abs_diff > 0 && r.max_abs_diff < 5e-3, String(r.max_abs_diff)); // fp16 rounding only
});

test("safetensors BF16 and F16 bit patterns decode exactly", () => {
  // BF16 0x3F80 = 1.0, 0xC040 = -3.0, 0x4049 = 3.140625; F16 0x3C00 = 1.0, 0x3555 = 0.333251953125
  assert.deepEqual(selftest<{ values: number[] }>("decode", { dtype: "BF16", bits: [0x3f80, 0xc040, 0x4049] }).values, [1, -3, 3.140625]);
  assert.deepEqual(selftest<{ values: number[] }>("decode", { dtype: "F16", bits: [0x3c00, 0x3555] }).values, [1, 0.333251953125]);
});

test("missing encoder weights fail loudly with names and a fix", () => {
  const r = selftest<{ error: string | null }>("load-error", { layers_in_file: 1, layers_in_model: 2 });
  assert.match(r.error ?? "", /^ckpt\.bin: 16 encoder weights missing under prefix 'question_model\.'.*encoder\.layer\.1\..*Fix: /);
});

test("bad input exits 2 with one line naming the missing file and its expected shape", () => {
  const dir = tempDir("cspipe-train-bad-");
  writeSyntheticInputs(join(dir, "in"));
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify({ init: { kind: "random" } }));
  const r = runTrainer(["--config", cfg, "--inputs", join(dir, "missing"), "--out", join(dir, "out")]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\nerror: \S*missing: input directory not found\n$/);
  writeFileSync(cfg, JSON.stringify({ init: { kind: "random" }, epoch: 3 }));
  const r2 = runTrainer(["--config", cfg, "--inputs", join(dir, "in"), "--out", join(dir, "out")]);
  assert.equal(r2.status, 2);
  assert.match(r2.stderr, /cfg\.json: field 'epoch': unknown key\(s\) epoch Fix: valid keys: /);
});

test("input .npy files (pytrain/npy_inputs.py, every trainer and reader): missing, optional, not integer, unreadable, wrong dimensions, each one line naming the file", () => {
  const want = "int32 [N] ids";
  const r = selftest<({ shape: number[] | null } | { error: string })[]>("batch", [
    ["npy-input", { write: "int32", int: true, expected: want }],
    ["npy-input", { write: null, int: true, expected: want, required: false }],
    ["npy-input", { write: null, int: true, expected: want }],
    ["npy-input", { write: "float32", int: true, expected: want }],
    ["npy-input", { write: "garbage", int: true, expected: want }],
    ["npy-input", { write: null, int: false }],
    ["npy-input", { write: "int8", int: false, ndim: 3 }],
    ["npy-input", { write: "garbage", int: false, ndim: 2 }],
  ]);
  assert.deepEqual(r.slice(0, 4), [
    { shape: [2, 3] },
    { shape: null },
    { error: "<dir>/x.npy: missing input file, expected int32 [N] ids Fix: write it" },
    { error: "<dir>/x.npy: dtype float32 is not an integer type; expected int32 [N] ids" },
  ]);
  assert.match((r[4] as { error: string }).error, /^<dir>\/x\.npy: not a readable \.npy \(.+\); expected int32 \[N\] ids$/);
  assert.deepEqual(r.slice(5, 7), [{ error: "<dir>/x.npy: missing input file Fix: write it" }, { error: "<dir>/x.npy: has 2 dimensions, expected 3" }]);
  assert.match((r[7] as { error: string }).error, /^<dir>\/x\.npy: not a readable \.npy \(.+\)$/);
});

test("deterministic mode is strict (no warn-only fallback to non-deterministic kernels); the attention scale rule survives an unreadable builtin signature", () => {
  // warn_only let fused attention keep its atomic-add backward on an H200 (torch 2.11), and an
  // unreadable signature of scaled_dot_product_attention stopped every trainer there.
  const r = selftest<{ deterministic: boolean; warn_only: boolean; cublas_workspace: string; takes_scale: Record<string, boolean> }>("run-rules", { versions: ["2.11.0+cu130", "2.1.0", "2.0.1", "1.13.0a0"] });
  assert.deepEqual(r, { deterministic: true, warn_only: false, cublas_workspace: ":4096:8", takes_scale: { "2.11.0+cu130": true, "2.1.0": true, "2.0.1": false, "1.13.0a0": false } });
});
