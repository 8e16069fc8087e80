/**
 * Same key, same bytes across CPUs (issue 29), proved by emulation on one machine: the caller's
 * environment forces another CPU's kernels (OPENBLAS_CORETYPE, ATEN_CPU_CAPABILITY; only core
 * types every x86-64 CPU with AVX2 runs), and a small DPR training through the engine must give
 * one key and one set of bytes under the pins; with the pins lifted (CSPIPE_NUMERICS=host) the
 * kernel sets compute other bytes, and each gets its own key. And on another CPU, emulated
 * (qemu-user as a Haswell: AVX2, no AVX-512): the same key and bytes as on this one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { use } from "../../pipeline/engine/step.ts";
import { cpuFacts, runsAvx2Kernels } from "../../pipeline/engine/cpu.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { diffFingerprints } from "../../pipeline/engine/fingerprint.ts";
import { PYTHON } from "../training/python.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";
import { noEmulatedCpu, pythonOnHaswell } from "./emulated-cpu.ts";
import { tinyTrainingParams, tinyTrainingStep } from "./tiny-training.ts";

/** A tiny trainer step over fixed synthetic inputs, CPU only. */
const train = tinyTrainingStep();
const params = tinyTrainingParams(3);

/** Another CPU's kernel choices, as a machine or its administrator would preset them. */
const KERNEL_SETS = {
  prescott: { OPENBLAS_CORETYPE: "Prescott", ATEN_CPU_CAPABILITY: "default" },
  haswell: { OPENBLAS_CORETYPE: "Haswell", ATEN_CPU_CAPABILITY: "avx2" },
} as const;

async function trainUnder(kernels: Record<string, string>, numerics?: "host", python = PYTHON, epochs = 3) {
  const env = { PATH: process.env.PATH, CSPIPE_PYTHON: python, ...kernels, ...(numerics ? { CSPIPE_NUMERICS: numerics } : {}) };
  const p = project(registry({ t: () => [use(train, { params: { ...params, epochs }, inputs: {} })] }), { env });
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, true, r.outcome.analysis.map(describeFailure).join("\n") + JSON.stringify("result" in r.outcome ? r.outcome.result.failures : []));
  const entry = ("result" in r.outcome ? r.outcome.result.results.get("train-tiny")?.entry : undefined)!;
  const weights = readFileSync(p.store.outputPath(entry, "model") + "/query_encoder.safetensors");
  const result = JSON.parse(readFileSync(p.store.outputPath(entry, "model") + "/result.json", "utf8")) as { numerics?: unknown };
  // The machine and the seconds are the log's (a key promises its outputs' bytes, and those differ run to run).
  const ranOn = JSON.parse(/ran on: (\{.*\})\n/.exec(readFileSync(p.store.logPath(entry.stepId, entry.key), "utf8"))?.[1] ?? "null") as { env: Record<string, string> };
  // `output`: the digest of the whole model directory (weights, ONNX files, parity fixtures, result.json, metrics.jsonl).
  return { key: entry.key, bytes: createHash("sha256").update(weights).digest("hex"), output: entry.manifest.outputs["model"]!.digest, fingerprint: await p.store.fingerprint(entry), result, ranOn };
}

test("pinned kernels: two forced kernel sets give one key and byte-identical outputs", { skip: !runsAvx2Kernels(cpuFacts()) && "not an x86-64 CPU with AVX2+FMA" }, async () => {
  const a = await trainUnder(KERNEL_SETS.prescott);
  const b = await trainUnder(KERNEL_SETS.haswell);
  assert.equal(a.key, b.key);
  assert.equal(a.bytes, b.bytes);
  // Every output file, not only the weights: one key, one digest (and so one key for every step downstream).
  assert.equal(a.output, b.output);
  // The program ran under the pins, whatever the caller's environment said.
  assert.deepEqual([a.ranOn.env.OPENBLAS_CORETYPE, a.ranOn.env.ATEN_CPU_CAPABILITY], ["Haswell", "avx2"]);
  const n = a.fingerprint.numerics as { kernels: string; blas: string; aten: string; threads: number };
  assert.equal(n.kernels, "pinned-avx2");
  assert.match(n.blas, /OpenBLAS .* Haswell /);
  assert.deepEqual([n.aten, n.threads], ["AVX2", 1]);
  // The trainer records the identity its key holds (the report reads it from result.json).
  assert.deepEqual(a.result.numerics, a.fingerprint.numerics);
});

test("another CPU (qemu-user as a Haswell, AVX2 without AVX-512): the same key and byte-identical outputs", { skip: noEmulatedCpu }, async () => {
  // One epoch (every GEMM of forward, backward and the optimizer runs): emulation is slow, and CI's budget is 20 minutes.
  const here = await trainUnder({}, undefined, PYTHON, 1);
  const there = await trainUnder({}, undefined, pythonOnHaswell(tempDir("cspipe-haswell-")), 1);
  assert.equal(there.key, here.key);
  assert.equal(there.bytes, here.bytes);
  assert.equal(there.output, here.output);
});

test("pins lifted: the kernel sets compute other bytes under other keys, and explain says why", async () => {
  const a = await trainUnder(KERNEL_SETS.prescott, "host");
  const b = await trainUnder(KERNEL_SETS.haswell, "host");
  assert.notEqual(a.bytes, b.bytes, "Prescott and Haswell kernels should sum in other orders");
  assert.notEqual(a.key, b.key);
  const why = diffFingerprints(a.fingerprint, b.fingerprint);
  assert.equal(why.length, 1);
  assert.match(why[0]!, /^computed with other numerics \(its bytes may differ\): aten NO AVX -> AVX2; blas OpenBLAS .*Prescott.* -> OpenBLAS .*Haswell.*; env\.ATEN_CPU_CAPABILITY default -> avx2; env\.OPENBLAS_CORETYPE Prescott -> Haswell$/);
  // Neither shares the pinned key.
  const pinned = await trainUnder(KERNEL_SETS.haswell);
  assert.ok(pinned.key !== a.key && pinned.key !== b.key);
});

test("a mistyped CSPIPE_NUMERICS is refused, naming the fix", async () => {
  const p = project(registry({ t: () => [use(train, { params, inputs: {} })] }), { env: { PATH: process.env.PATH, CSPIPE_PYTHON: PYTHON, CSPIPE_NUMERICS: "fast" } });
  const r = await run(p, ["t"]);
  assert.deepEqual(r.executed, []);
  assert.equal(r.outcome.analysis.map(describeFailure).join("\n"), "CSPIPE_NUMERICS: CSPIPE_NUMERICS must be 'pinned' or 'host', got 'fast'. Fix: unset it (pinned kernels, the default) or set it to 'host'");
});
