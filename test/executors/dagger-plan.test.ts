/**
 * The Dagger executor's plan without an engine: what a representative job and the real
 * train-dpr step map to (image, pip layer, caches, env, mounts, argv, outputs), the runtime
 * checks, and the GPU policy that decides whether a GPU is requested.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import type { ContainerRuntime } from "../../pipeline/engine/step.ts";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { DaggerExecutor } from "../../pipeline/executors/dagger.ts";
import { planDaggerJob, outputsRoot, runtimeProblems } from "../../pipeline/executors/dagger/plan.ts";
import { daggerGpuVerdict } from "../../pipeline/executors/dagger/gpu.ts";
import { ARGV, IMAGE, makeJob, runtime } from "./dagger-fixtures.ts";

test("plan: image, pip layer, skeleton, caches, env, secrets by name, GPU, read-only mounts, mapped argv", () => {
  const root = "/r";
  const plan = planDaggerJob(makeJob(root), { gpuAvailable: true });
  assert.deepEqual(plan.ops, [
    { op: "from", image: IMAGE },
    { op: "mount-cache", path: "/root/.cache/pip", volume: "cspipe-pip" },
    { op: "env", name: "PIP_BREAK_SYSTEM_PACKAGES", value: "1" },
    { op: "env", name: "PIP_CACHE_DIR", value: "/root/.cache/pip" },
    { op: "env", name: "PIP_DISABLE_PIP_VERSION_CHECK", value: "1" },
    { op: "env", name: "PIP_NO_INPUT", value: "1" },
    { op: "env", name: "PIP_PROGRESS_BAR", value: "off" },
    { op: "env", name: "PIP_ROOT_USER_ACTION", value: "ignore" },
    { op: "exec", argv: ["python3", "-m", "pip", "install", "numpy==1.26.4", "torch==2.2.0"] },
    { op: "exec", argv: ["mkdir", "-p", "/cspipe/out", "/cspipe/out/index", "/cspipe/out/runs", "/cspipe/work"] },
    { op: "mount-cache", path: "/root/.cache/huggingface", volume: "cspipe-huggingface" },
    { op: "env", name: "HF_HOME", value: "/root/.cache/huggingface" },
    { op: "mount-cache", path: "/root/.cache/torch", volume: "cspipe-torch" },
    { op: "env", name: "TORCH_HOME", value: "/root/.cache/torch" },
    { op: "env", name: "ATEN_CPU_CAPABILITY", value: "avx2" },
    { op: "env", name: "CSPIPE_DEVICE_HINT", value: "cuda-required" },
    { op: "env", name: "CSPIPE_NUMERICS_IDENTITY", value: '{"device":"cuda"}' },
    { op: "env", name: "CSPIPE_THREADS", value: "4" },
    { op: "env", name: "DNNL_MAX_CPU_ISA", value: "AVX2" },
    { op: "env", name: "HF_HUB_OFFLINE", value: "1" },
    { op: "env", name: "MALLOC_MMAP_THRESHOLD_", value: "33554432" },
    { op: "env", name: "MALLOC_TOP_PAD_", value: "67108864" },
    { op: "env", name: "MALLOC_TRIM_THRESHOLD_", value: "268435456" },
    { op: "env", name: "MKL_CBWR", value: "AVX2" },
    { op: "env", name: "MKL_ENABLE_INSTRUCTIONS", value: "AVX2" },
    { op: "env", name: "MKL_NUM_THREADS", value: "4" },
    { op: "env", name: "OMP_NUM_THREADS", value: "4" },
    { op: "env", name: "ONEDNN_MAX_CPU_ISA", value: "AVX2" },
    { op: "env", name: "OPENBLAS_CORETYPE", value: "Haswell" },
    { op: "env", name: "OPENBLAS_NUM_THREADS", value: "4" },
    { op: "env", name: "PYTHONUNBUFFERED", value: "1" },
    { op: "secret", name: "HF_TOKEN" },
    { op: "gpus", devices: ["0"] },
    { op: "mount-dir", path: "/cspipe/in/passages", host: "/r/store/prep/outputs/passages", readOnly: true },
    { op: "mount-file", path: "/cspipe/in/queries/queries.parquet", host: "/r/store/q/outputs/queries.parquet" },
    { op: "mount-file", path: "/cspipe/params.json", host: "/r/staging/work/params.json" },
    { op: "mount-dir", path: "/cspipe/src", host: "/repo", readOnly: true, exclude: ["node_modules/", "artifacts/", "dist/", "report/", ".git/", "**/__pycache__/", "**/.pytest_cache/"] },
    { op: "workdir", path: "/cspipe/work" },
    { op: "exec", argv: ARGV(root) },
  ]);
  assert.deepEqual(plan.argv, ARGV(root));
  assert.deepEqual(plan.archive, { argv: ["tar", "-C", "/cspipe/out", "-cf", "/cspipe/outputs.tar", "."], path: "/cspipe/outputs.tar" });
  assert.deepEqual(plan.outputs, [
    { name: "index", rel: "index", host: "/r/staging/outputs/index", dir: true },
    { name: "run", rel: "runs/run.trec", host: "/r/staging/outputs/runs/run.trec", dir: false },
  ]);
  assert.equal(plan.gpu, true);
});

test("plan: no pip layer without pins, no sources mount without {src}, gpu 'all', no GPU when the engine has none", () => {
  const job = makeJob("/r", { runtime: { type: "container", image: IMAGE, argv: ["cat", "{in:queries}"], gpu: { count: "all", required: false } }, secrets: {} });
  const withGpu = planDaggerJob(job, { gpuAvailable: true });
  assert.ok(!withGpu.ops.some((o) => o.op === "exec" && o.argv[0] === "python3"));
  assert.ok(!withGpu.ops.some((o) => o.op === "mount-dir" && o.path === "/cspipe/src"));
  assert.deepEqual(withGpu.ops.find((o) => o.op === "gpus"), { op: "gpus", devices: "all" });
  const noGpu = planDaggerJob(job, { gpuAvailable: false });
  assert.equal(noGpu.gpu, false);
  assert.ok(!noGpu.ops.some((o) => o.op === "gpus"));
  const two = planDaggerJob(makeJob("/r", { runtime: { ...runtime, gpu: { count: 2, required: true } } }), { gpuAvailable: true });
  assert.deepEqual(two.ops.find((o) => o.op === "gpus"), { op: "gpus", devices: ["0", "1"] });
});

test("plan: outputs root is the common ancestor; a single file output keeps its name", () => {
  assert.equal(outputsRoot(["/s/outputs/run.trec"]), "/s/outputs");
  assert.equal(outputsRoot(["/s/outputs/a/x.bin", "/s/outputs/a/y.bin"]), "/s/outputs/a");
  assert.equal(outputsRoot(["/s/outputs/a/x.bin", "/s/outputs/b/c/y.bin", "/s/outputs/index"]), "/s/outputs");
  assert.equal(outputsRoot(["/s/outputs/ab/x", "/s/outputs/a/y"]), "/s/outputs");
});

test("plan: unpinned pip requirements and bad GPU counts are named; pip options pass", () => {
  assert.deepEqual(runtimeProblems({ ...runtime, pip: ["numpy==1.26.4", "torch", "transformers>=4", "--extra-index-url=https://download.pytorch.org/whl/cpu", "faiss-cpu[fast]==1.7.4"] }), [
    "pip requirement 'torch' is not pinned: write it as name==version (e.g. numpy==1.26.4)",
    "pip requirement 'transformers>=4' is not pinned: write it as name==version (e.g. numpy==1.26.4)",
  ]);
  assert.deepEqual(runtimeProblems({ ...runtime, gpu: { count: 0, required: true } }), ['gpu.count must be a positive integer or "all", got 0']);
});

test("plan: CSPIPE_DAGGER_CACHE=0 adds a nonce so Dagger cannot reuse an earlier exec", () => {
  const plan = planDaggerJob(makeJob("/r"), { gpuAvailable: true, cacheBuster: "n0nce" });
  assert.ok(plan.ops.some((o) => o.op === "env" && o.name === "CSPIPE_DAGGER_NONCE" && o.value === "n0nce"));
});

test("plan: the real train-dpr container step maps to the pinned PyTorch image, a GPU, read-only inputs and the trainer's argv", async () => {
  const { trainDprDef, TRAINING_IMAGE } = await import("../../steps/training/steps.ts");
  const def = trainDprDef(true);
  assert.equal(def.runtime.type, "container");
  const rt = def.runtime as ContainerRuntime;
  const root = "/r";
  const job = makeJob(root, {
    runtime: rt,
    secrets: {},
    env: {},
    inputs: {
      examples: { path: `${root}/store/ex/outputs/examples`, dir: true },
      passages: { path: `${root}/store/tok/outputs/tokens`, dir: true },
      init: { path: `${root}/store/theta0/outputs/model`, dir: true },
    },
    outputs: { model: { path: `${root}/staging/outputs/model`, dir: true } },
  });
  const plan = planDaggerJob(job, { gpuAvailable: true });
  assert.deepEqual(plan.ops[0], { op: "from", image: TRAINING_IMAGE });
  assert.ok(plan.ops.some((o) => o.op === "gpus"));
  for (const [input, host] of [["examples", "ex/outputs/examples"], ["passages", "tok/outputs/tokens"], ["init", "theta0/outputs/model"]]) {
    assert.ok(plan.ops.some((o) => o.op === "mount-dir" && (o as { path: string }).path === `/cspipe/in/${input}` && (o as { host: string }).host === `${root}/store/${host}` && (o as { readOnly?: boolean }).readOnly === true), input);
  }
  assert.deepEqual(plan.argv, [
    "python3", "/cspipe/src/steps", "training.dpr.train", "--config", "/cspipe/params.json", "--out", "/cspipe/out/model",
    "--inputs", "/cspipe/in/examples", "--passages", "/cspipe/in/passages", "--init-from", "/cspipe/in/init",
  ]);
  assert.deepEqual(plan.outputs, [{ name: "model", rel: "model", host: `${root}/staging/outputs/model`, dir: true }]);
});


const hostGpu = () => ({ ok: true, detail: "GPU 0: NVIDIA A100" });
const hostNoGpu = () => ({ ok: false, detail: "no NVIDIA GPU is visible on this host (nvidia-smi -L failed)" });

test("gpu policy: CSPIPE_DAGGER_GPU wins, a remote engine needs it, a local engine needs a GPU and Dagger's GPU support", () => {
  assert.equal(daggerGpuVerdict({ CSPIPE_DAGGER_GPU: "1" }, hostNoGpu).ok, true);
  assert.equal(daggerGpuVerdict({ CSPIPE_DAGGER_GPU: "0", _EXPERIMENTAL_DAGGER_GPU_SUPPORT: "1" }, hostGpu).ok, false);
  assert.deepEqual(daggerGpuVerdict({ CSPIPE_DAGGER_GPU: "maybe" }, hostGpu), { ok: false, detail: "CSPIPE_DAGGER_GPU='maybe' is neither 1 nor 0" });
  const remote = daggerGpuVerdict({ _EXPERIMENTAL_DAGGER_RUNNER_HOST: "tcp://gpu-box:1234" }, hostGpu);
  assert.equal(remote.ok, false);
  assert.match(remote.detail, /remote \(tcp:\/\/gpu-box:1234\).*CSPIPE_DAGGER_GPU=1/);
  assert.match(daggerGpuVerdict({}, hostNoGpu).detail, /^the Dagger engine runs on this host and no NVIDIA GPU is visible/);
  assert.match(daggerGpuVerdict({}, hostGpu).detail, /_EXPERIMENTAL_DAGGER_GPU_SUPPORT is unset/);
  assert.deepEqual(daggerGpuVerdict({ _EXPERIMENTAL_DAGGER_GPU_SUPPORT: "1" }, hostGpu), { ok: true, detail: "GPU 0: NVIDIA A100" });
});

const gpuDef = defineStep({
  id: "train-on-gpu",
  version: 1,
  source: import.meta.url,
  params: z.object({}),
  inputs: {},
  outputs: { model: file("checkpoint", "model.bin") },
  runtime: { type: "container", image: IMAGE, argv: ["python3", "train.py", "{out:model}"], gpu: { count: 1, required: true } },
});
const loose = defineStep({
  id: "embed-maybe-gpu",
  version: 1,
  source: import.meta.url,
  params: z.object({}),
  inputs: {},
  outputs: { emb: file("embeddings", "emb.npy") },
  runtime: { type: "container", image: IMAGE, argv: ["python3", "embed.py"], gpu: { count: 1, required: false }, pip: ["numpy"] },
});

test("check: a required GPU on a GPU-less engine fails at planning time unless --allow-cpu; unpinned pip fails", async () => {
  const ex = new DaggerExecutor({ env: {}, hostGpuProbe: hostNoGpu });
  const failures = await ex.check([use(gpuDef, { inputs: {} }), use(loose, { inputs: {} })], {});
  assert.deepEqual(failures, [
    { reason: "invalid-source", step: "embed-maybe-gpu", detail: "pip requirement 'numpy' is not pinned: write it as name==version (e.g. numpy==1.26.4)" },
    { reason: "gpu-unavailable", step: "train-on-gpu", detail: "the Dagger engine runs on this host and no NVIDIA GPU is visible on this host (nvidia-smi -L failed)" },
  ]);
  assert.match(describeFailure(failures[1]!), /--allow-cpu/);
  assert.deepEqual(await ex.check([use(gpuDef, { inputs: {} })], { allowCpu: true }), []);
  assert.deepEqual(await new DaggerExecutor({ env: { CSPIPE_DAGGER_GPU: "1" }, hostGpuProbe: hostNoGpu }).check([use(gpuDef, { inputs: {} })], {}), []);
});
