/**
 * GPU enforcement with one probe: a step that requires a GPU is refused at planning when the
 * torch of the interpreter it would run with sees no CUDA device (here: Debian's CPU-only
 * python3-torch), nothing runs, and --allow-cpu is the explicit way past; the program itself
 * refuses at once under the same rule (CSPIPE_DEVICE_HINT=cuda-required).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type ContainerRuntime } from "../../pipeline/engine/step.ts";
import { LocalExecutor } from "../../pipeline/executors/local.ts";
import { torchCudaOf } from "../../pipeline/executors/torch-probe.ts";
import { parseProbe, type InterpreterFacts } from "../../pipeline/executors/numerics/probe.ts";
import { deviceHint, visibleDevices } from "../../pipeline/executors/gpu-env.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";
import { PYTHON, program, writeSyntheticInputs } from "../training/python.ts";
import { TRAINER_MODULE } from "../../steps/training/contract.ts";
import { trainingConfig } from "../../steps/training/contract.ts";
import { spawnSync } from "node:child_process";

const IMAGE = `x@sha256:${"e".repeat(64)}`;
const gpuTrain = defineStep({
  id: "train-on-gpu",
  version: 1,
  source: import.meta.url,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { model: file("checkpoint", "model.txt") },
  runtime: { type: "container", image: IMAGE, argv: ["python3", "-c", "open('{out:model}', 'w').write('trained')"], pythonModules: ["torch"], gpu: { count: 1, required: true } },
});
// CUDA hidden: the premise (a torch that sees no GPU) must hold on a GPU machine too.
const env = { CSPIPE_PYTHON: PYTHON, PATH: process.env.PATH, CUDA_VISIBLE_DEVICES: "" };

/** The probe's JSON line for a torch of `version`, built for `cuda`, seeing `names`. */
const answer = (version: string, cuda: string | null, names: string[]): string =>
  JSON.stringify({ python: "3.11.2", executable: "/usr/bin/python3.11", machine: "x86_64", modules: { torch: version }, errors: {}, files: [], torch: { version, cuda, devices: names.length, names } });

test("the probe's answer: CPU-only build, CUDA build without devices, devices, no torch", () => {
  const ok = { status: 0, stderr: "" };
  const verdict = (stdout: string, visible?: string) => torchCudaOf(parseProbe("/py", { ...ok, stdout }), visible);
  const cpu = verdict(answer("1.13.0", null, []) + "\n");
  assert.equal(cpu.devices, 0);
  assert.match(cpu.detail, /^torch 1\.13\.0 at \/py \(a CPU-only build: torch\.version\.cuda is None\) sees no CUDA device; install a CUDA build/);
  const hidden = verdict(answer("2.3.1", "12.1", []), "");
  assert.match(hidden.detail, /\(built for CUDA 12\.1\) sees no CUDA device \(CUDA_VISIBLE_DEVICES=""\)/);
  const two = verdict(`noise\n${answer("2.3.1", "12.1", ["H100", "H100"])}`);
  assert.deepEqual([two.devices, two.detail], [2, "torch 2.3.1 at /py sees 2 CUDA device(s): H100, H100"]);
  const noTorch = JSON.stringify({ python: "3.11.2", modules: {}, errors: { torch: "ModuleNotFoundError: No module named 'torch'" }, files: [] });
  assert.match(verdict(noTorch).detail, /cannot import torch \(ModuleNotFoundError: No module named 'torch'\)/);
  assert.match(torchCudaOf(parseProbe("/py", { status: null, stdout: "", stderr: "", error: "ENOENT" }), undefined).detail, /not runnable \(ENOENT\)/);
});

test("a GPU-required step is refused at planning when its interpreter's torch is CPU-only; --allow-cpu lets it through", async () => {
  const ex = new LocalExecutor({ env });
  const step = use(gpuTrain, { inputs: {} });
  const failures = await ex.check([step], {});
  assert.equal(failures.length, 1);
  assert.equal(failures[0]!.reason, "gpu-unavailable");
  const message = describeFailure(failures[0]!);
  assert.match(message, new RegExp(`^train-on-gpu: requests a GPU but torch \\S+ at ${PYTHON} \\(.*\\) sees no CUDA device`));
  assert.match(message, /--allow-cpu/);
  assert.deepEqual(await ex.check([step], { allowCpu: true }), []);
  assert.deepEqual(await ex.gpuDevices([step]), { count: 0, detail: (failures[0] as { detail: string }).detail });
  // A probe that sees a device lets it through, and counts the devices for --gpus.
  const fourGpus: InterpreterFacts = parseProbe(PYTHON, { status: 0, stderr: "", stdout: answer("2.3.1", "12.1", ["H100", "H100", "H100", "H100"]) });
  const gpuBox = new LocalExecutor({ env, prober: () => fourGpus });
  assert.deepEqual(await gpuBox.check([step], {}), []);
  assert.deepEqual(await gpuBox.gpuDevices([step]), { count: 4, detail: `torch 2.3.1 at ${PYTHON} sees 4 CUDA device(s): H100, H100, H100, H100` });
});

test("an executor asks for a module list's interpreter once, whichever question (checks, GPU count, numerics) and however many steps", async () => {
  const asked: string[][] = [];
  const oneGpu: InterpreterFacts = parseProbe(PYTHON, { status: 0, stderr: "", stdout: answer("2.3.1", "12.1", ["H100"]) });
  const ex = new LocalExecutor({ env, prober: (_python, modules) => (asked.push([...modules]), oneGpu) });
  const steps = [use(gpuTrain, { name: "a", inputs: {} }), use(gpuTrain, { name: "b", inputs: {} })];
  assert.deepEqual(await ex.check(steps, {}), []);
  assert.equal((await ex.gpuDevices(steps)).count, 1);
  const rt = gpuTrain.runtime as ContainerRuntime;
  assert.deepEqual(ex.numerics(rt), ex.numerics(rt));
  assert.deepEqual(asked, [["torch"]]);
});

test("run: the refusal comes before anything executes, as an analysis failure (exit code 2 in the CLI)", async () => {
  const p = project(registry({ t: () => [use(gpuTrain, { inputs: {} })] }), { env });
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, false);
  assert.equal(r.outcome.analysis.length, 1);
  assert.equal(r.outcome.analysis[0]!.reason, "gpu-unavailable");
  assert.deepEqual(r.executed, []);
});

test("the program refuses at once too: a GPU-required step's trainer does not fall back to CPU", () => {
  const dir = tempDir("cspipe-gpu-hint-");
  writeSyntheticInputs(join(dir, "in"));
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify(trainingConfig({ epochs: 1, init: { kind: "random" } })));
  const r = spawnSync(PYTHON, program(TRAINER_MODULE, ["--config", cfg, "--inputs", join(dir, "in"), "--out", join(dir, "out")]), { encoding: "utf8", env: { ...process.env, CSPIPE_DEVICE_HINT: "cuda-required", CUDA_VISIBLE_DEVICES: "" } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /error: field 'device': a GPU is required but torch \S+ at \S+ \(.*\) sees no CUDA device.* Fix: .*--allow-cpu/);
});

test("what a step's program is told: the device hint and its own devices", () => {
  const rt = (required: boolean) => ({ type: "container" as const, image: IMAGE, argv: ["python3"], gpu: { count: 1, required } });
  assert.equal(deviceHint(rt(true), {}), "cuda-required");
  assert.equal(deviceHint(rt(true), { allowCpu: true }), "cpu-allowed");
  assert.equal(deviceHint(rt(false), {}), "auto");
  assert.equal(visibleDevices([0, 2], undefined), "0,2");
  assert.equal(visibleDevices([0, 2], "4, 5,6"), "4,6");
  assert.throws(() => visibleDevices([3], "4,5"), /GPU slot 3 is not among CUDA_VISIBLE_DEVICES=4,5/);
});
