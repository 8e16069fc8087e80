/**
 * GPU slots: with --gpus N, steps that ask for GPUs take devices from a pool of N instead of a
 * --concurrency slot, each gets its own (CUDA_VISIBLE_DEVICES under the local executor, mapped
 * through the user's own), and requests beyond the run's GPUs are refused at planning.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type AnyStep } from "../../pipeline/engine/step.ts";
import { DevicePool, devicesWanted, oversizedGpuRequests } from "../../pipeline/engine/devices.ts";
import { runGraph } from "../../pipeline/engine/engine.ts";
import { LocalExecutor } from "../../pipeline/executors/local.ts";
import { gpuSlots } from "../../pipeline/executors/gpu-slots.ts";
import type { ContainerJob, Executor } from "../../pipeline/engine/executor.ts";
import { planDaggerJob } from "../../pipeline/executors/dagger/plan.ts";
import { project, registry, tempDir } from "./helpers.ts";

const tick = () => new Promise<void>((r) => setImmediate(r));

test("the pool hands out the lowest free devices, best priority first, and never lets a smaller request overtake the head", async () => {
  const pool = new DevicePool(4);
  const got: string[] = [];
  const take = (n: number, prio: number, name: string) => pool.acquire(n, prio, name).then((d) => (got.push(`${name}:${d.join(",")}`), d));
  const a = take(1, 5, "a");
  const b = take(2, 9, "b");
  await tick();
  assert.deepEqual(got, ["b:0,1", "a:2"]);
  const all = take(4, 8, "all"); // the head: waits for every device
  const small = take(1, 1, "small"); // would fit now, but must not overtake
  await tick();
  assert.equal(pool.available(), 1);
  assert.deepEqual(got, ["b:0,1", "a:2"]);
  pool.release(await a);
  pool.release(await b);
  await tick();
  assert.deepEqual(got.slice(2), ["all:0,1,2,3"]);
  pool.release(await all);
  await small;
  assert.deepEqual(got.slice(3), ["small:0"]);
  assert.throws(() => pool.release([3]), /released twice/);
  await assert.rejects(pool.acquire(5, 0, "huge"), /asks for 5 GPU\(s\) of 4/);
});

const IMAGE = `x@sha256:${"e".repeat(64)}`;
const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const s = 1;\n");
// Records the devices it was given and when it ran (ms), sleeping a little so runs overlap when allowed.
const script = 'echo "${CUDA_VISIBLE_DEVICES-unset}|$(date +%s%3N)" > {out:out}; sleep 0.4; date +%s%3N >> {out:out}';
const gpuStep = (count: number | "all") =>
  defineStep({
    id: `gpu-work-${count}`,
    version: 1,
    source: src,
    params: z.object({ tag: z.string() }).strict(),
    inputs: {},
    outputs: { out: file("text:plain", "out.txt") },
    runtime: { type: "container", image: IMAGE, argv: ["sh", "-c", script], gpu: { count, required: false } },
  });
const cpuStep = defineStep({
  id: "cpu-work",
  version: 1,
  source: src,
  params: z.object({ tag: z.string() }).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "out.txt") },
  runtime: { type: "container", image: IMAGE, argv: ["sh", "-c", script] },
});

async function runWith(steps: AnyStep[], gpus: number, inherited?: string) {
  const p = project(registry({ t: () => steps }));
  const g = p.graph(["t"]);
  assert.ok(g.ok);
  const executor = new LocalExecutor({ env: { PATH: process.env.PATH, ...(inherited !== undefined ? { CUDA_VISIBLE_DEVICES: inherited } : {}) } });
  const r = await runGraph(g.graph, {
    store: p.store, executor, keys: p.keyContext("local"), sourceRoot: p.root, settings: {}, emit: () => {},
    concurrency: 1, failureMode: "stop", force: new Set(), verify: false, targets: ["t"], tools: {}, record: false, gpus,
  });
  assert.ok(r.ok, JSON.stringify(r.failures));
  return new Map(steps.map((s) => {
    const e = r.results.get(s.name)!.entry!;
    const [first, end] = readFileSync(p.store.outputPath(e, "out"), "utf8").trim().split("\n") as [string, string];
    const [devices, start] = first.split("|") as [string, string];
    return [s.name, { devices, start: Number(start), end: Number(end) }];
  }));
}

test("GPU steps run beside the --concurrency slot, one device each; a step asking for all GPUs gets them all; CPU steps see none", async () => {
  const one = gpuStep(1);
  const steps = [0, 1, 2, 3].map((i) => use(one, { name: `gpu-${i}`, params: { tag: String(i) }, inputs: {} }));
  const cpu = use(cpuStep, { name: "cpu", params: { tag: "c" }, inputs: {} });
  const all = use(gpuStep("all"), { name: "gpu-all", params: { tag: "all" }, inputs: {} });
  const runs = await runWith([...steps, cpu, all], 2);
  for (let i = 0; i < 4; i++) assert.match(runs.get(`gpu-${i}`)!.devices, /^[01]$/);
  assert.equal(runs.get("gpu-all")!.devices, "0,1");
  assert.equal(runs.get("cpu")!.devices, "");
  // At most two single-GPU steps at once, and at times two of them together (concurrency is 1).
  const spans = [...runs.entries()].filter(([n]) => /^gpu-\d$/.test(n)).map(([, r]) => r);
  const overlapAt = (t: number) => spans.filter((s) => s.start <= t && t < s.end).length;
  const peak = Math.max(...spans.map((s) => overlapAt(s.start)));
  assert.equal(peak, 2);
  // Two steps running at once never share a device.
  for (const a of spans) for (const b of spans) if (a !== b && a.start < b.end && b.start < a.end) assert.notEqual(a.devices, b.devices);
});

test("device slots are indexes into the user's own CUDA_VISIBLE_DEVICES", async () => {
  const runs = await runWith([use(gpuStep("all"), { name: "g", params: { tag: "x" }, inputs: {} })], 2, "6,7");
  assert.equal(runs.get("g")!.devices, "6,7");
});

test("planning: --gpus beyond what the probe sees, or a step asking for more GPUs than the run has, is refused", async () => {
  const steps = [use(gpuStep(1), { name: "a", params: { tag: "a" }, inputs: {} }), use(gpuStep(4), { name: "b", params: { tag: "b" }, inputs: {} })];
  const fake = (count: number, name = "local"): Executor => ({ name, numerics: () => null, check: async () => [], runContainer: async () => ({ ok: true, argv: [] }), gpuDevices: async () => ({ count, detail: `${count} seen` }) });
  assert.deepEqual(await gpuSlots(fake(8), steps, {}), { gpus: 8, detail: "8 seen", failures: [] });
  const few = await gpuSlots(fake(2), steps, {});
  assert.deepEqual(few.failures, [{ reason: "gpu-unavailable", step: "b", detail: "it asks for 4 GPUs and the run has 2 (--gpus)" }]);
  const over = await gpuSlots(fake(2), steps, {}, 8);
  assert.deepEqual(over.failures.map((f) => (f as { detail: string }).detail), ["--gpus 8 asks for more devices than the probe finds: 2 seen"]);
  assert.equal((await gpuSlots(fake(0), steps, { allowCpu: true }, 8)).gpus, 0);
  // Under Dagger the probe cannot count the engine's GPUs: --gpus is taken as given.
  assert.deepEqual((await gpuSlots(fake(1, "dagger"), steps, {}, 8)).failures, []);
  assert.deepEqual(oversizedGpuRequests(steps, 0), []);
  assert.equal(devicesWanted(steps[0]!, 0), 0);
});

test("under Dagger a step's assigned slots become its per-device GPU request", () => {
  const job: ContainerJob = {
    step: "g", stepId: "g", key: "k",
    runtime: { type: "container", image: IMAGE, argv: ["python3", "x.py"], gpu: { count: 2, required: true } },
    inputs: {}, outputs: { out: { path: "/s/outputs/out.txt", dir: false } }, paramsFile: "/w/params.json", workDir: "/w", sourceRoot: "/r",
    env: {}, secrets: {}, settings: {}, numerics: null, devices: [3, 5], signal: new AbortController().signal, onLine: () => {},
  };
  const plan = planDaggerJob(job, { gpuAvailable: true });
  assert.deepEqual(plan.ops.find((o) => o.op === "gpus"), { op: "gpus", devices: ["3", "5"] });
  assert.deepEqual(plan.ops.find((o) => o.op === "env" && o.name === "CSPIPE_DEVICE_HINT"), { op: "env", name: "CSPIPE_DEVICE_HINT", value: "cuda-required" });
});

test("an in-process step that can use a GPU gets a slot in ctx.devices when the run has GPUs, none otherwise, under one key", async () => {
  const seen: (readonly number[] | undefined)[] = [];
  const inProc = defineStep({
    id: "maybe-gpu",
    version: 1,
    source: src,
    params: z.object({}).strict(),
    inputs: {},
    outputs: { out: file("text:plain", "out.txt") },
    runtime: { type: "in-process", gpu: { count: 1 }, async run(ctx) { seen.push(ctx.devices); writeFileSync(ctx.outputs.out, "same bytes\n"); } },
  });
  const keys: string[] = [];
  for (const gpus of [0, 3]) {
    const p = project(registry({ t: () => [use(inProc, { name: "m", inputs: {} })] }));
    const g = p.graph(["t"]);
    assert.ok(g.ok);
    const r = await runGraph(g.graph, {
      store: p.store, executor: new LocalExecutor({ env: { PATH: process.env.PATH } }), keys: p.keyContext("local"), sourceRoot: p.root, settings: {}, emit: () => {},
      concurrency: 1, failureMode: "stop", force: new Set(), verify: false, targets: ["t"], tools: {}, record: false, gpus,
    });
    assert.ok(r.ok, JSON.stringify(r.failures));
    keys.push(r.results.get("m")!.key!);
  }
  assert.deepEqual(seen, [undefined, [0]]);
  assert.equal(keys[0], keys[1]);
  assert.equal(devicesWanted(use(inProc, { name: "m", inputs: {} }), 3), 1);
});
