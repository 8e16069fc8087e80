/**
 * The torch encode program (steps/encoding/gpu/encode.py, the GPU path of the real
 * collections) run on CPU in float32 against the ONNX path (onnxruntime-node), through the
 * engine on a model exported by cspipe's trainer (random tiny BERT, epochs 0): the same
 * embeddings within TORCH_ONNX_ATOL, the same files and meta, shard by shard; and both paths
 * refuse a model whose parity fixture was tampered with. And the mini path's promise: the torch
 * program on another CPU (qemu-user emulating a Haswell: AVX2, no AVX-512) gives the same key and
 * the same bytes, which onnxruntime cannot (its kernels follow the CPU). Needs /usr/bin/python3
 * with torch and qemu-x86_64 (CI has both: scripts/setup.sh installs python3-torch and
 * qemu-user); skipped with the reason otherwise (in CI a missing qemu is an error: emulated-cpu.ts).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, use, type OutputRef } from "../../pipeline/engine/step.ts";
import { readNpy, writeNpy } from "../../steps/lib/npy.ts";
import { encodePassages, encodeQueries } from "../../steps/dense/steps.ts";
import { encodePassagesTorchDef, encodeQueriesTorchDef, GPU_ENCODE_MODULE, verifyOnnxParityStep } from "../../steps/encoding/gpu-encode.ts";
import { pythonCommand } from "../../steps/pytrain/launch.ts";
import { maxAbsDiff, verifyOnnxParityOfModel } from "../../steps/encoding/onnx/parity.ts";
import { trainingConfig } from "../../steps/training/contract.ts";
import { ROOT, project, registry, run, tempDir } from "../engine/helpers.ts";
import { PYTHON, TEST_BERT, runTrainer } from "../training/python.ts";
import { noEmulatedCpu, pythonOnHaswell } from "../executors/emulated-cpu.ts";

/** torch (CPU, float32, length-sorted batches trimmed to their longest row) vs onnxruntime-node on the same rows. */
const TORCH_ONNX_ATOL = 1e-5;

const skip = spawnSync(PYTHON, ["-c", "import torch"]).status === 0 ? false : `no torch for ${PYTHON} (apt-get install -y python3-torch)`;
const work = tempDir("cspipe-gpu-encode-");
const FIXTURE_SOURCE = join(work, "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");
const MODEL = join(work, "model");
const TAMPERED = join(work, "tampered");

const NP = 37;
const NQ = 9;
const L = 24;
/** Rows of varied lengths ([CLS] .. [SEP], pad 0), second half of each row token type 1 for passages. */
function tokenRows(n: number, width: number, salt: number, types: boolean) {
  const ids = new Int32Array(n * width);
  const typeIds = new Int8Array(n * width);
  for (let r = 0; r < n; r++) {
    const len = r === n - 1 && !types ? 2 : 2 + ((r * 7 + salt) % (width - 1));
    for (let c = 0; c < len; c++) {
      ids[r * width + c] = c === 0 ? 101 : c === len - 1 ? 102 : 1 + ((r * 31 + c * 17 + salt) % 390);
      if (types && c >= len / 2) typeIds[r * width + c] = 1;
    }
  }
  return { ids, typeIds };
}

const fixture = <K extends string>(id: string, kind: K, write: (out: string) => void) =>
  defineStep({ id, version: 1, source: FIXTURE_SOURCE, params: z.object({}).strict(), inputs: {}, outputs: { out: dir(kind, "out") }, runtime: { type: "in-process", run: async (ctx) => write(ctx.outputs.out) } });

const writePassages = fixture("test-write-passage-tokens", "tokens:passages", (o) => {
  const { ids, typeIds } = tokenRows(NP, L, 3, true);
  writeNpy(join(o, "ids.npy"), { dtype: "int32", shape: [NP, L], data: ids });
  writeNpy(join(o, "type_ids.npy"), { dtype: "int8", shape: [NP, L], data: typeIds });
  writeFileSync(join(o, "pids.txt"), Array.from({ length: NP }, (_, i) => `doc${i}\n`).join(""));
  writeFileSync(join(o, "meta.json"), JSON.stringify({ vocabSize: 400 }));
});
const writeQueries = fixture("test-write-query-tokens", "tokens:queries", (o) => {
  const { ids } = tokenRows(NQ, 16, 5, false);
  writeNpy(join(o, "ids.npy"), { dtype: "int32", shape: [NQ, 16], data: ids });
  writeFileSync(join(o, "qids.txt"), Array.from({ length: NQ }, (_, i) => `q${i}\n`).join(""));
  writeFileSync(join(o, "meta.json"), JSON.stringify({ vocabSize: 400, specialIds: { pad: 0, cls: 101, sep: 102 } }));
});
const modelStep = (id: string, from: string) => fixture(id, "dpr:model", (o) => cpSync(from, o, { recursive: true }));
const goodModel = modelStep("test-copy-model", MODEL);
const badModel = modelStep("test-copy-tampered-model", TAMPERED);

const ONNX = { batchSize: 4, provider: "cpu", threads: 1 } as const;

const TORCH = { batchSize: 5, maxTokens: 64, dtype: "fp16" } as const; // fp16 on CUDA only: float32 here

function encodings(model: OutputRef<"dpr:model">, tag: string) {
  const tokP = use(writePassages, { inputs: {} }).out.out;
  const tokQ = use(writeQueries, { inputs: {} }).out.out;
  const parity = use(verifyOnnxParityStep, { name: `verify-${tag}`, inputs: { model } }).out.report;
  // Both shards through ONNX, the second (rows [19, 37)) through torch too: one python start less.
  const steps = [
    ...[0, 1].map((shard) => use(encodePassages, { name: `onnx-p-${tag}-${shard}`, params: { shard, shards: 2, ...ONNX }, inputs: { model, tokens: tokP } })),
    use(encodePassagesTorchDef(false), { name: `torch-p-${tag}-1`, params: { shard: 1, shards: 2, ...TORCH }, inputs: { model, tokens: tokP, parity } }),
  ];
  return [
    ...steps,
    use(encodeQueries, { name: `onnx-q-${tag}`, params: ONNX, inputs: { model, tokens: tokQ } }),
    use(encodeQueriesTorchDef(false), { name: `torch-q-${tag}`, params: TORCH, inputs: { model, tokens: tokQ, parity } }),
  ];
}

const targets = { good: () => encodings(use(goodModel, { inputs: {} }).out.out, "good"), bad: () => encodings(use(badModel, { inputs: {} }).out.out, "bad") };
const p = project(registry(targets));
let good: Awaited<ReturnType<typeof run>>;
let bad: Awaited<ReturnType<typeof run>>;
const outDir = (step: string): string => {
  const r = "result" in good.outcome ? good.outcome.result : undefined;
  const entry = r?.results.get(step)?.entry;
  assert.ok(entry, `${step} produced no entry`);
  return p.store.outputPath(entry, "embeddings");
};

before(async () => {
  if (skip !== false) return;
  const cfg = join(work, "cfg.json");
  writeFileSync(cfg, JSON.stringify(trainingConfig({ epochs: 0, seed: 5, init: { kind: "random", bert_config: TEST_BERT } })));
  const t = runTrainer(["--config", cfg, "--out", MODEL]);
  assert.equal(t.status, 0, t.stderr);
  cpSync(MODEL, TAMPERED, { recursive: true });
  // One fixture value moved by 0.01: the ONNX file and the weights are intact, both checks must still fail.
  const fx = join(TAMPERED, "parity", "passage_encoder", "embedding.npy");
  const a = readNpy(fx);
  (a.data as Float32Array)[3]! += 0.01;
  writeNpy(fx, { dtype: "float32", shape: a.shape, data: a.data as Float32Array });
  good = await run(p, ["good"]);
  bad = await run(p, ["bad"], { failureMode: "continue" });
});
after(() => rmSync(work, { recursive: true, force: true }));

const emb = (d: string) => {
  const a = readNpy(join(d, "embeddings.npy"));
  assert.equal(a.dtype, "float32");
  return { shape: a.shape, data: a.data as Float32Array };
};

test("the torch program on CPU (float32) gives the ONNX path's embeddings, files and meta for a shard", { skip }, () => {
  assert.deepEqual(good.events.flatMap((e) => (e.type === "failed" ? [e.failure] : [])), []);
  for (const shard of [1]) {
    const [onnx, torch] = [outDir(`onnx-p-good-${shard}`), outDir(`torch-p-good-${shard}`)];
    const [a, b] = [emb(onnx), emb(torch)];
    assert.deepEqual(b.shape, a.shape);
    assert.equal(a.shape[1], TEST_BERT.hidden_size);
    const diff = maxAbsDiff(b.data, a.data);
    assert.ok(diff < TORCH_ONNX_ATOL, `shard ${shard}: max abs diff ${diff}`);
    for (const f of ["pids.txt", "meta.json"]) assert.equal(readFileSync(join(torch, f), "utf8"), readFileSync(join(onnx, f), "utf8"), `shard ${shard} ${f}`);
  }
  assert.deepEqual(JSON.parse(readFileSync(join(outDir("torch-p-good-1"), "meta.json"), "utf8")), { format: "cspipe/embeddings@1", kind: "passages", shard: 1, shards: 2, start: 19, end: 37, rows: 18, dim: 64 });
});

test("the parity report holds the verdict, not the CPU-dependent differences (it is an input of every torch encode step)", { skip }, () => {
  const r = "result" in good.outcome ? good.outcome.result : undefined;
  const entry = r?.results.get("verify-good")?.entry;
  assert.ok(entry);
  const rows = (encoder: string) => readNpy(join(MODEL, "parity", encoder, "input_ids.npy")).shape[0];
  assert.deepEqual(JSON.parse(readFileSync(p.store.outputPath(entry, "report"), "utf8")), {
    atol: 1e-4,
    checks: ["query_encoder", "passage_encoder"].map((encoder) => ({ encoder, rows: rows(encoder), passed: true })),
  });
});

test("queries: the same embeddings, qids, empty_qids (a [CLS] [SEP] row) and meta", { skip }, () => {
  const [onnx, torch] = [outDir("onnx-q-good"), outDir("torch-q-good")];
  const diff = maxAbsDiff(emb(torch).data, emb(onnx).data);
  assert.ok(diff < TORCH_ONNX_ATOL, `max abs diff ${diff}`);
  for (const f of ["qids.txt", "empty_qids.txt", "meta.json"]) assert.equal(readFileSync(join(torch, f), "utf8"), readFileSync(join(onnx, f), "utf8"), f);
  assert.equal(readFileSync(join(torch, "empty_qids.txt"), "utf8"), `q${NQ - 1}\n`);
});

test("a tampered parity fixture stops the ONNX encode step, the parity check and so every torch encode step of the model", { skip }, () => {
  const failures = bad.events.flatMap((e) => (e.type === "failed" ? [e.failure] : []));
  const failed = failures.map((f) => f.step).sort();
  assert.deepEqual(failed, ["onnx-p-bad-0", "onnx-p-bad-1", "verify-bad"]);
  const started = bad.executed;
  assert.ok(!started.some((s) => s.startsWith("torch-p-bad")), `no torch encode may start: ${started.join(", ")}`);
  assert.ok(started.includes("onnx-q-bad"), "the query encoder's fixture is intact: its step runs");
  const msg = JSON.stringify(failures);
  assert.match(msg, /passage_encoder\.onnx differs from the torch model it was exported from: max abs diff 0\.0100 on the parity fixture \(tolerance 0\.0001\)/);
});

test("the torch program itself refuses weights that do not reproduce the fixture", { skip }, () => {
  const out = join(work, "direct");
  const params = join(work, "params.json");
  writeFileSync(params, JSON.stringify({ shard: 0, shards: 1 }));
  const tokens = join(work, "tok");
  mkdirSync(tokens, { recursive: true });
  const { ids, typeIds } = tokenRows(4, L, 1, true);
  writeNpy(join(tokens, "ids.npy"), { dtype: "int32", shape: [4, L], data: ids });
  writeNpy(join(tokens, "type_ids.npy"), { dtype: "int8", shape: [4, L], data: typeIds });
  writeFileSync(join(tokens, "pids.txt"), "a\nb\nc\nd\n");
  writeFileSync(join(tokens, "meta.json"), "{}");
  const r = spawnSync(PYTHON, pythonCommand(ROOT, GPU_ENCODE_MODULE, ["--role", "passages", "--params", params, "--model", TAMPERED, "--tokens", tokens, "--out", out]), { encoding: "utf8" });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /error: .*passage_encoder\.safetensors: .*the loaded passage_encoder differs from the exported model's fixture by 0\.01 /);
});

test("a model without fixtures: refused by default, encoded with a note under parity 'if-present' (a user's ONNX files)", { skip }, async () => {
  const bare = join(work, "bare");
  mkdirSync(bare, { recursive: true });
  cpSync(join(MODEL, "passage_encoder.onnx"), join(bare, "passage_encoder.onnx"));
  const opts = { providers: "cpu", intraOpThreads: 1 } as const;
  await assert.rejects(verifyOnnxParityOfModel(bare, "passage_encoder", opts), /the model has no ONNX parity fixtures for passage_encoder/);
  const c = await verifyOnnxParityOfModel(bare, "passage_encoder", opts, 1e-4, "if-present");
  assert.equal(c.maxAbsDiff, undefined);
  assert.match(c.note, /unverified \(parity: if-present\)/);
  const ok = await verifyOnnxParityOfModel(MODEL, "passage_encoder", opts, 1e-4, "if-present");
  assert.ok(ok.maxAbsDiff !== undefined && ok.maxAbsDiff < 1e-4, ok.note);
});

test("another CPU (qemu-user as a Haswell, AVX2 without AVX-512): the torch encode steps get the same keys and bytes", { skip: skip || noEmulatedCpu }, async () => {
  // The executor starts the program through CSPIPE_PYTHON: here an interpreter on the emulated CPU.
  const emulated = project(registry(targets), { env: { CSPIPE_PYTHON: pythonOnHaswell(work) } });
  const other = await run(emulated, ["good"]);
  assert.deepEqual(other.events.flatMap((e) => (e.type === "failed" ? [e.failure] : [])), []);
  for (const step of ["torch-p-good-1", "torch-q-good"]) {
    const [a, b] = [good, other].map((r) => ("result" in r.outcome ? r.outcome.result.results.get(step)?.entry : undefined)!);
    assert.equal(b!.key, a!.key, `${step}: one key on both CPUs`);
    const sha = (proj: typeof p, e: typeof a) => createHash("sha256").update(readFileSync(join(proj.store.outputPath(e!, "embeddings"), "embeddings.npy"))).digest("hex");
    assert.equal(sha(emulated, b), sha(p, a), `${step}: the same bytes on both CPUs`);
  }
});
