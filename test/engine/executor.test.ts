import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { LocalExecutor } from "../../pipeline/executors/local.ts";
import { createExecutor } from "../../pipeline/executors/index.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";

const gpuStep = defineStep({
  id: "train-on-gpu",
  version: 1,
  source: import.meta.url,
  params: z.object({}),
  inputs: {},
  outputs: { model: file("checkpoint", "model.bin") },
  runtime: { type: "container", image: `x@sha256:${"e".repeat(64)}`, argv: ["python3", "train.py"], gpu: { count: 1, required: true } },
});

test("a GPU step on a host without GPUs fails at planning time, unless CPU is allowed", async () => {
  const cpuOnly = { ok: true, detail: "ok", version: "3.11.2", modules: { torch: "2.3.1" }, errors: {}, files: [], torch: { version: "2.3.1", cuda: null, devices: 0, names: [] } };
  const ex = new LocalExecutor({ env: {}, prober: (python) => ({ ...cpuOnly, python }) });
  const step = use(gpuStep, { inputs: {} });
  const failures = await ex.check([step], {});
  assert.deepEqual(failures, [{ reason: "gpu-unavailable", step: "train-on-gpu", detail: "torch 2.3.1 at python3 (a CPU-only build: torch.version.cuda is None) sees no CUDA device; install a CUDA build of torch, or point CSPIPE_PYTHON at an interpreter that has one" }]);
  assert.match(describeFailure(failures[0]!), /--allow-cpu/);
  assert.deepEqual(await ex.check([step], { allowCpu: true }), []);
});

test("--executor dagger outside a Dagger session fails fast with how to start one", async () => {
  const r = await createExecutor("dagger", {});
  assert.ok("reason" in r);
  assert.equal(r.reason, "executor-unavailable");
  assert.match(describeFailure(r), /dagger run \.\/cspipe run/);
});

test("--executor auto picks local outside a Dagger session", async () => {
  const r = await createExecutor("auto", {});
  assert.ok(!("reason" in r));
  assert.equal(r.name, "local");
});
