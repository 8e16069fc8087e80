/**
 * The Dagger executor without an engine: the plan built for a representative job, the
 * call chain a recording fake receives, the export/unpack path with a real tar, error
 * mapping, session detection, GPU policy and secret hygiene.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { mkdirSync, readFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { ContainerJob, JobOutcome } from "../../pipeline/engine/executor.ts";
import type { ContainerRuntime } from "../../pipeline/engine/step.ts";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { createDaggerExecutor, DaggerExecutor, type DaggerConnection } from "../../pipeline/executors/dagger.ts";
import { createExecutor } from "../../pipeline/executors/index.ts";
import { planDaggerJob, outputsRoot, runtimeProblems } from "../../pipeline/executors/dagger/plan.ts";
import type { ContainerBuilder } from "../../pipeline/executors/dagger/run.ts";
import { outcomeOfError, signalOfExitCode } from "../../pipeline/executors/dagger/run.ts";
import { daggerGpuVerdict } from "../../pipeline/executors/dagger/gpu.ts";
import { daggerSessionProblem } from "../../pipeline/executors/dagger/session.ts";
import { tempDir } from "../tmp.ts";

const IMAGE = `python:3.11-slim@sha256:${"a".repeat(64)}`;
const SECRET = "hf_s3cr3t-VALUE-42";
const SESSION = { DAGGER_SESSION_PORT: "41234", DAGGER_SESSION_TOKEN: "tok" };

function tmp(): string {
  return tempDir("cspipe-dagger-");
}

const runtime: ContainerRuntime = {
  type: "container",
  image: IMAGE,
  argv: ["python3", "{src}/steps/training/train.py", "--passages", "{in:passages}", "--queries={in:queries}", "--run", "{out:run}", "--index", "{out:index}", "--params", "{params}", "--work", "{work}"],
  pythonModules: ["torch"],
  pip: ["numpy==1.26.4", "torch==2.2.0"],
  gpu: { count: 1, required: true },
  resources: { cpus: 4 },
  secrets: ["HF_TOKEN"],
};

/** A representative job; `root` holds store inputs, staging outputs and the work dir. */
function makeJob(root: string, overrides: Partial<ContainerJob> = {}): ContainerJob & { lines: string[] } {
  const lines: string[] = [];
  return {
    step: "train-dpr",
    stepId: "train-dpr",
    key: "k".repeat(64),
    runtime,
    inputs: {
      passages: { path: `${root}/store/prep/outputs/passages`, dir: true },
      queries: { path: `${root}/store/q/outputs/queries.parquet`, dir: false },
    },
    outputs: {
      run: { path: `${root}/staging/outputs/runs/run.trec`, dir: false },
      index: { path: `${root}/staging/outputs/index`, dir: true },
    },
    paramsFile: `${root}/staging/work/params.json`,
    workDir: `${root}/staging/work`,
    sourceRoot: "/repo",
    env: { HF_HUB_OFFLINE: "1" },
    secrets: { HF_TOKEN: SECRET },
    settings: {},
    numerics: { device: "cuda" },
    signal: new AbortController().signal,
    onLine: (l: string) => lines.push(l),
    lines,
    ...overrides,
  };
}

const ARGV = (r: string) => {
  void r;
  return [
    "python3",
    "/cspipe/src/steps/training/train.py",
    "--passages",
    "/cspipe/in/passages",
    "--queries=/cspipe/in/queries/queries.parquet",
    "--run",
    "/cspipe/out/runs/run.trec",
    "--index",
    "/cspipe/out/index",
    "--params",
    "/cspipe/params.json",
    "--work",
    "/cspipe/work",
  ];
};

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

// ---- a recording fake of the container interface -------------------------------------

type Call = readonly [string, ...unknown[]];

interface FakeBehaviour {
  /** Output of combinedOutput, or an error to throw. */
  run?: (calls: readonly Call[]) => string | Error;
  /** Make the exported file (default: a tar of `exportFrom`). */
  exportFrom?: string;
  exportError?: Error;
  /** Called instead of answering: the engine never answers combinedOutput. */
  hang?: () => void;
  /** Plays log_tee.py before combinedOutput answers; gets the stream's address when the chain has one. */
  stream?: (tee: TeeAddress | undefined) => Promise<void>;
}

interface TeeAddress {
  readonly port: number;
  readonly token: string;
}

/** Where a recorded chain's log stream goes (the binding's port, the token env var). */
function teeAddress(calls: readonly Call[]): TeeAddress | undefined {
  const binding = calls.find((c) => c[0] === "withServiceBinding");
  const token = calls.find((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_LOG_STREAM_TOKEN");
  if (!binding || !token) return undefined;
  return { port: binding[2] as number, token: token[2] as string };
}

class FakeContainer implements ContainerBuilder {
  constructor(
    readonly calls: readonly Call[],
    private readonly world: FakeWorld,
  ) {}
  private add(...call: Call): FakeContainer {
    return new FakeContainer([...this.calls, call], this.world);
  }
  from(image: string) {
    return this.add("from", image);
  }
  withMountedCache(path: string, volume: string) {
    return this.add("withMountedCache", path, volume);
  }
  withMountedDirectory(path: string, hostPath: string, opts: { readonly readOnly: boolean; readonly exclude?: readonly string[] }) {
    return this.add("withMountedDirectory", path, hostPath, opts);
  }
  withMountedFile(path: string, hostPath: string) {
    return this.add("withMountedFile", path, hostPath);
  }
  withEnvVariable(name: string, value: string) {
    return this.add("withEnvVariable", name, value);
  }
  withSecretVariable(name: string, value: string) {
    this.world.secretValues.set(name, value); // what the real SDK turns into setSecret(); kept out of the call record
    return this.add("withSecretVariable", name);
  }
  withGpus(devices: "all" | readonly string[]) {
    return this.add("withGpus", devices);
  }
  withWorkdir(path: string) {
    return this.add("withWorkdir", path);
  }
  withExec(argv: readonly string[]) {
    return this.add("withExec", [...argv]);
  }
  withServiceBinding(alias: string, port: number) {
    return this.add("withServiceBinding", alias, port);
  }
  async combinedOutput(): Promise<string> {
    this.world.evaluated.push(this.calls);
    if (this.world.behaviour.hang) {
      this.world.behaviour.hang();
      return new Promise<string>(() => {});
    }
    if (this.world.behaviour.stream) await this.world.behaviour.stream(teeAddress(this.calls));
    const r = this.world.behaviour.run?.(this.calls) ?? "";
    if (r instanceof Error) throw r;
    return r;
  }
  async exportFile(path: string, hostPath: string): Promise<void> {
    this.world.evaluated.push([...this.calls, ["exportFile", path, hostPath]]);
    if (this.world.behaviour.exportError) throw this.world.behaviour.exportError;
    const from = this.world.behaviour.exportFrom;
    if (!from) throw new Error("fake: nothing to export");
    const r = spawnSync("tar", ["-C", from, "-cf", hostPath, "."]);
    assert.equal(r.status, 0, String(r.stderr));
  }
}

class FakeWorld {
  readonly evaluated: (readonly Call[])[] = [];
  readonly secretValues = new Map<string, string>();
  connects = 0;
  closes = 0;
  constructor(readonly behaviour: FakeBehaviour) {}
  connection(): DaggerConnection {
    this.connects++;
    return {
      backend: { container: () => new FakeContainer([], this), version: async () => "v0.21.9-fake" },
      close: async () => {
        this.closes++;
      },
    };
  }
}

const TEE_SCRIPT = "/opt/cspipe/pipeline/executors/dagger/log_tee.py";

function executor(world: FakeWorld, env: Record<string, string> = { CSPIPE_DAGGER_GPU: "1" }): DaggerExecutor {
  return new DaggerExecutor({
    env,
    connect: async () => world.connection(),
    hostGpuProbe: () => ({ ok: false, detail: "no probe in tests" }),
    logTeeScript: TEE_SCRIPT,
    logToken: () => "T0KEN",
  });
}

/** A directory as the container would leave /cspipe/out: declared outputs plus a stray file. */
function containerOut(): string {
  const out = tmp();
  mkdirSync(join(out, "runs"));
  writeFileSync(join(out, "runs", "run.trec"), "q1 Q0 d1 1 2.5 dpr\n");
  mkdirSync(join(out, "index", "sub"), { recursive: true });
  writeFileSync(join(out, "index", "a.bin"), "AAAA");
  writeFileSync(join(out, "index", "sub", "b.bin"), "BB");
  writeFileSync(join(out, "stray.txt"), "not declared");
  return out;
}

/** Create the staging layout the engine creates before runContainer. */
function stage(job: ContainerJob): void {
  mkdirSync(job.workDir, { recursive: true });
  writeFileSync(job.paramsFile, "{}\n");
  mkdirSync(join(job.outputs.run!.path, ".."), { recursive: true });
  mkdirSync(job.outputs.index!.path, { recursive: true });
}

test("run: the call chain, then ONE archive exported and unpacked into the job's output paths", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: () => "loading\nPROGRESS 1 2\nepoch 1 done\n", exportFrom: containerOut() });
  const ex = executor(world);
  const outcome = await ex.runContainer(job);
  assert.deepEqual(outcome, { ok: true, argv: ARGV(root), tools: { "container-image": IMAGE, dagger: "v0.21.9-fake" } } satisfies JobOutcome);

  // The program chain as the fake received it (the same order as the plan).
  const program = world.evaluated[0]!;
  assert.deepEqual(program[0], ["from", IMAGE]);
  assert.deepEqual(program[1], ["withMountedCache", "/root/.cache/pip", "cspipe-pip"]);
  assert.deepEqual(program[8], ["withExec", ["python3", "-m", "pip", "install", "numpy==1.26.4", "torch==2.2.0"]]);
  assert.deepEqual(
    program.filter((c) => c[0] === "withMountedDirectory" || c[0] === "withMountedFile"),
    [
      ["withMountedDirectory", "/cspipe/in/passages", `${root}/store/prep/outputs/passages`, { readOnly: true }],
      ["withMountedFile", "/cspipe/in/queries/queries.parquet", `${root}/store/q/outputs/queries.parquet`],
      ["withMountedFile", "/cspipe/params.json", `${root}/staging/work/params.json`],
      ["withMountedDirectory", "/cspipe/src", "/repo", { readOnly: true, exclude: ["node_modules/", "artifacts/", "dist/", "report/", ".git/", "**/__pycache__/", "**/.pytest_cache/"] }],
      ["withMountedFile", "/cspipe/bin/log_tee.py", TEE_SCRIPT],
    ],
  );
  assert.deepEqual(
    program.filter((c) => c[0] === "withGpus" || c[0] === "withSecretVariable"),
    [
      ["withSecretVariable", "HF_TOKEN"],
      ["withGpus", ["0"]],
    ],
  );
  // The program runs under the log wrapper, which reaches this host through the binding.
  const port = program.at(-3)![2] as number;
  assert.ok(Number.isInteger(port) && port > 0);
  assert.deepEqual(program.slice(-3), [
    ["withServiceBinding", "cspipe-log", port],
    ["withWorkdir", "/cspipe/work"],
    ["withExec", ["python3", "/cspipe/bin/log_tee.py", "--host", "cspipe-log", "--port", String(port), "--", ...ARGV(root)]],
  ]);
  assert.ok(program.some((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_LOG_STREAM_TOKEN" && c[2] === "T0KEN"));
  assert.equal(world.secretValues.get("HF_TOKEN"), SECRET);

  // The export chain: the program chain + tar + one file export into the work dir.
  const exported = world.evaluated[1]!;
  assert.deepEqual(exported.slice(0, program.length), program);
  assert.deepEqual(exported.slice(program.length), [
    ["withExec", ["tar", "-C", "/cspipe/out", "-cf", "/cspipe/outputs.tar", "."]],
    ["exportFile", "/cspipe/outputs.tar", `${root}/staging/work/dagger-outputs.tar`],
  ]);
  assert.equal(world.evaluated.length, 2);

  // Unpacked where the engine looks; undeclared files and the archive are gone.
  assert.equal(readFileSync(job.outputs.run!.path, "utf8"), "q1 Q0 d1 1 2.5 dpr\n");
  assert.equal(readFileSync(join(job.outputs.index!.path, "a.bin"), "utf8"), "AAAA");
  assert.equal(readFileSync(join(job.outputs.index!.path, "sub", "b.bin"), "utf8"), "BB");
  assert.deepEqual(readdirSync(join(root, "staging", "outputs")).sort(), ["index", "runs"]);
  assert.ok(!existsSync(join(job.workDir, "dagger-outputs.tar")));
  assert.ok(!existsSync(join(job.workDir, "dagger-outputs")));
  // Output lines reach the engine (which turns PROGRESS lines into progress events).
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "epoch 1 done"]);
  await ex.close();
  assert.equal(world.closes, 1);
});

test("run: a declared output missing from the archive is left for the engine to report", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const out = tmp();
  mkdirSync(join(out, "index"));
  writeFileSync(join(out, "index", "a.bin"), "A");
  const outcome = await executor(new FakeWorld({ exportFrom: out })).runContainer(job);
  assert.equal(outcome.ok, true);
  assert.ok(!existsSync(job.outputs.run!.path));
  assert.equal(readFileSync(join(job.outputs.index!.path, "a.bin"), "utf8"), "A");
});

test("run: a file where a directory is declared fails with both kinds named", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const out = tmp();
  writeFileSync(join(out, "index"), "not a dir");
  const outcome = await executor(new FakeWorld({ exportFrom: out })).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ["tar", "-C", "/cspipe/out", "-cf", "/cspipe/outputs.tar", "."], exitStatus: null, signal: "dagger-error" });
  assert.ok(job.lines.some((l) => /output index: the container produced a file at index, the step declares a directory/.test(l)), job.lines.join("\n"));
});

function execError(cmd: string[], exitCode: number, stdout: string, stderr: string): Error {
  // The SDK's ExecError, by shape (name, cmd, exitCode, stdout, stderr).
  return Object.assign(new Error(`process "${cmd.join(" ")}" did not complete successfully: exit code: ${exitCode}`), { name: "ExecError", cmd, exitCode, stdout, stderr });
}

test("run: a non-zero exit becomes an exit outcome with the program's output in the log, secrets redacted", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: (calls) => execError(calls.at(-1)![1] as string[], 3, "step 1\n", `Traceback\nValueError: bad token ${SECRET}\n`) });
  const outcome = await executor(world).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: 3, signal: null });
  assert.deepEqual(job.lines, ["step 1", "Traceback", "ValueError: bad token ***"]);
  assert.equal(world.evaluated.length, 1, "no export after a failure");
});

test("run: a failing pip layer names the pip command, not the program", () => {
  const pip = ["python3", "-m", "pip", "install", "torch==9.9.9"];
  const { outcome, lines } = outcomeOfError(execError(pip, 1, "", "ERROR: No matching distribution found for torch==9.9.9\n"), ["python3", "train.py"]);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: pip, exitStatus: 1, signal: null });
  assert.deepEqual(lines, ["ERROR: No matching distribution found for torch==9.9.9", "# dagger: the failing command was a setup step, not the program: python3 -m pip install torch==9.9.9"]);
});

test("run: death by signal (137) and engine errors (image pull) map to outcomes", async () => {
  assert.equal(signalOfExitCode(137), "SIGKILL");
  assert.equal(signalOfExitCode(143), "SIGTERM");
  assert.equal(signalOfExitCode(1), null);
  assert.deepEqual(outcomeOfError(execError(["python3"], 137, "", "Killed\n"), ["python3"]).outcome, { ok: false, kind: "exit", argv: ["python3"], exitStatus: 137, signal: "SIGKILL" });

  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const outcome = await executor(new FakeWorld({ run: () => new Error("failed to resolve source metadata for docker.io/library/python: not found") })).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "dagger-error" });
  assert.deepEqual(job.lines, ["# dagger error: failed to resolve source metadata for docker.io/library/python: not found"]);
  const f = { reason: "exit-nonzero" as const, step: "s", argv: ARGV(root), exitStatus: null, signal: "dagger-error", log: "l", tail: [] };
  assert.match(describeFailure(f), /dagger-error/);
});

test("run: a connection failure is an outcome, and the next job retries the connection", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  let attempts = 0;
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = new DaggerExecutor({
    env: { CSPIPE_DAGGER_GPU: "1" },
    connect: async () => {
      attempts++;
      if (attempts === 1) throw new Error("connection refused");
      return world.connection();
    },
  });
  const first = await ex.runContainer(job);
  assert.deepEqual(first, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "dagger-error" });
  assert.deepEqual(job.lines, ["# dagger: cannot connect to the Dagger session: connection refused"]);
  assert.equal((await ex.runContainer(job)).ok, true);
  assert.equal(attempts, 2);
});

test("run: one lazy connection shared by jobs; none for a run that never executes a container", async () => {
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = executor(world);
  await ex.check([], {});
  await ex.close();
  assert.equal(world.connects, 0);
  const a = makeJob(tmp());
  const b = makeJob(tmp());
  stage(a);
  stage(b);
  const [ra, rb] = await Promise.all([ex.runContainer(a), ex.runContainer(b)]);
  assert.equal(ra.ok && rb.ok, true);
  assert.equal(world.connects, 1);
  await ex.close();
  assert.equal(world.closes, 1);
});

test("run: cancellation returns at once with a cancelled outcome", async () => {
  const ac = new AbortController();
  const root = tmp();
  const job = makeJob(root, { signal: ac.signal });
  stage(job);
  const world = new FakeWorld({ hang: () => ac.abort() });
  const ex = executor(world);
  assert.deepEqual(await ex.runContainer(job), { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "cancelled" });
});

test("secrets never appear in the plan, the recorded env/argv, or the log lines", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  assert.ok(!JSON.stringify(planDaggerJob(job, { gpuAvailable: true })).includes(SECRET));
  const world = new FakeWorld({ run: () => `token is ${SECRET}\n`, exportFrom: containerOut() });
  await executor(world).runContainer(job);
  assert.ok(!JSON.stringify(world.evaluated).includes(SECRET));
  assert.deepEqual(job.lines, ["token is ***"]);
  // …yet the value reached the container as a secret.
  assert.equal(world.secretValues.get("HF_TOKEN"), SECRET);
});

// ---- session detection ----------------------------------------------------------------

test("session: both variables are needed, and the port must be a port", () => {
  assert.match(daggerSessionProblem({})!, /not inside a Dagger session.*dagger run \.\/cspipe run/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_PORT: "1234" })!, /DAGGER_SESSION_TOKEN is unset/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_TOKEN: "t" })!, /DAGGER_SESSION_PORT is unset/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_PORT: "http://x", DAGGER_SESSION_TOKEN: "t" })!, /not a TCP port/);
  assert.equal(daggerSessionProblem(SESSION), undefined);
});

test("session: the factory fails fast outside a session and never connects when it succeeds", async () => {
  const out = await createDaggerExecutor({});
  assert.ok("reason" in out && out.reason === "executor-unavailable");
  assert.match(describeFailure(out), /executor dagger is unavailable: not inside a Dagger session/);
  // process.env (what the SDK reads) has no session in tests: without an injected connection the factory refuses.
  if (!process.env.DAGGER_SESSION_PORT) {
    const r = await createDaggerExecutor(SESSION);
    assert.ok("reason" in r);
  }
  let connects = 0;
  const ex = await createDaggerExecutor(SESSION, {
    connect: async () => {
      connects++;
      throw new Error("unused");
    },
  });
  assert.ok(!("reason" in ex));
  assert.equal(ex.name, "dagger");
  assert.equal(connects, 0);
});

test("session: --executor auto outside a session stays local; --executor dagger fails fast", async () => {
  const auto = await createExecutor("auto", {});
  assert.ok(!("reason" in auto));
  assert.equal(auto.name, "local");
  const r = await createExecutor("dagger", {});
  assert.ok("reason" in r && r.reason === "executor-unavailable");
});

test("session: the SDK connection refuses to start without a session (no CLI download)", async () => {
  const { openSdkSession } = await import("../../pipeline/executors/dagger/sdk.ts");
  await assert.rejects(openSdkSession({}), /not inside a Dagger session/);
  await assert.rejects(openSdkSession({ DAGGER_SESSION_PORT: "1" }), /DAGGER_SESSION_TOKEN is unset/);
});

// ---- GPU policy -------------------------------------------------------------------------

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

test("run: under --allow-cpu on a GPU-less engine no GPU is requested and the log says so", async () => {
  const root = tmp();
  const job = makeJob(root, { settings: { allowCpu: true } });
  stage(job);
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = new DaggerExecutor({ env: { CSPIPE_DAGGER_GPU: "0" }, connect: async () => world.connection() });
  assert.equal((await ex.runContainer(job)).ok, true);
  assert.ok(!world.evaluated[0]!.some((c) => c[0] === "withGpus"));
  assert.ok(world.evaluated[0]!.some((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_DEVICE_HINT" && c[2] === "cpu-allowed"));
  assert.deepEqual(job.lines, ["# dagger: running without a GPU (--allow-cpu): CSPIPE_DAGGER_GPU=0 says the Dagger engine has no GPU"]);
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

// ---- live logs --------------------------------------------------------------------------

test("plan: a Python program with a log stream runs under the wrapper, with the script mounted and the receiver bound", () => {
  const stream = { script: "/host/log_tee.py", port: 40123, token: "tok" };
  const plan = planDaggerJob(makeJob("/r", { secrets: {} }), { gpuAvailable: true, logStream: stream });
  assert.equal(plan.logStream, true);
  assert.deepEqual(plan.argv, ARGV("/r"), "the program's argv is still reported as itself");
  assert.deepEqual(plan.execArgv, ["python3", "/cspipe/bin/log_tee.py", "--host", "cspipe-log", "--port", "40123", "--", ...ARGV("/r")]);
  assert.deepEqual(plan.ops.slice(-4), [
    { op: "mount-file", path: "/cspipe/bin/log_tee.py", host: "/host/log_tee.py" },
    { op: "service-binding", alias: "cspipe-log", port: 40123 },
    { op: "workdir", path: "/cspipe/work" },
    { op: "exec", argv: plan.execArgv },
  ]);
  assert.ok(plan.ops.some((o) => o.op === "env" && o.name === "CSPIPE_LOG_STREAM_TOKEN" && o.value === "tok"));
  // Without the option, or for a program that is not run by Python: no wrapper, no binding, no token.
  const cat = makeJob("/r", { runtime: { type: "container", image: IMAGE, argv: ["cat", "{in:queries}"] }, secrets: {} });
  for (const p of [planDaggerJob(makeJob("/r", { secrets: {} }), { gpuAvailable: true }), planDaggerJob(cat, { gpuAvailable: true, logStream: stream })]) {
    assert.equal(p.logStream, false);
    assert.deepEqual(p.execArgv, p.argv);
    assert.ok(!p.ops.some((o) => o.op === "service-binding" || (o.op === "mount-file" && o.path === "/cspipe/bin/log_tee.py") || (o.op === "env" && o.name === "CSPIPE_LOG_STREAM_TOKEN")));
  }
});

test("plan: which interpreters get the wrapper", async () => {
  const { streamsLog } = await import("../../pipeline/executors/dagger/plan.ts");
  for (const a0 of ["python", "python3", "python3.11", "/usr/bin/python3", "/opt/conda/bin/python"]) assert.equal(streamsLog([a0, "x.py"]), true, a0);
  for (const a0 of ["bash", "cat", "/usr/bin/python3-config", "pythonista", "{src}/run.sh"]) assert.equal(streamsLog([a0]), false, a0);
  assert.equal(streamsLog([]), false);
});

/** Plays log_tee.py: connect to the receiver, send `text`, wait until `arrived`, then close. */
async function teeSends(tee: TeeAddress | undefined, text: string, arrived: () => boolean): Promise<void> {
  assert.ok(tee, "the chain has a log stream");
  const s = connect(tee.port, "127.0.0.1");
  await once(s, "connect");
  s.write(`CSPIPE-LOG-STREAM 1 ${tee.token}\n${text}`);
  for (let i = 0; i < 3000 && !arrived(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(arrived(), "streamed lines reached the log before the exec finished");
  s.end();
  await once(s, "close");
}

test("run: streamed lines reach the log while the program runs, and the full output adds none of them again", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({
    stream: (tee) => teeSends(tee, `loading\nPROGRESS 1 2\ntoken ${SECRET}\n`, () => job.lines.length === 3),
    run: () => `loading\nPROGRESS 1 2\ntoken ${SECRET}\nepoch 1 done\n`,
    exportFrom: containerOut(),
  });
  const outcome = await executor(world).runContainer(job);
  assert.equal(outcome.ok, true);
  // Three lines live (secret redacted), the fourth (sent after the stream closed) once at the end.
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "token ***", "epoch 1 done"]);
});

test("run: when nothing is streamed (no connection, or Dagger replayed the exec) the full output goes to the log once", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  let sawStream = false;
  const world = new FakeWorld({
    stream: async (tee) => {
      sawStream = tee !== undefined;
    },
    run: () => "loading\nPROGRESS 1 2\n# cspipe log stream: cannot connect to cspipe-log:1 (refused); the log arrives when the step ends\n",
    exportFrom: containerOut(),
  });
  assert.equal((await executor(world).runContainer(job)).ok, true);
  assert.equal(sawStream, true);
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "# cspipe log stream: cannot connect to cspipe-log:1 (refused); the log arrives when the step ends"]);
});

test("run: a failing program with a streamed log: no line twice, the program's argv in the outcome, no setup-step note", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({
    stream: (tee) => teeSends(tee, "step 1\nTraceback\n", () => job.lines.length === 2),
    run: (calls) => execError(calls.at(-1)![1] as string[], 3, "step 1\nTraceback\nValueError: bad\n", "# cspipe log stream: the connection broke (reset)\n"),
  });
  const outcome = await executor(world).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: 3, signal: null });
  assert.deepEqual(job.lines, ["step 1", "Traceback", "ValueError: bad", "# cspipe log stream: the connection broke (reset)"]);
});

test("run: no wrapper for a program that is not run by Python, nor with CSPIPE_DAGGER_LOG_STREAM=0", async () => {
  const cases: [Partial<ContainerJob>, Record<string, string>][] = [
    [{ runtime: { ...runtime, argv: ["bash", "-c", "echo hi > {out:run}; mkdir -p {out:index}"] } }, { CSPIPE_DAGGER_GPU: "1" }],
    [{}, { CSPIPE_DAGGER_GPU: "1", CSPIPE_DAGGER_LOG_STREAM: "0" }],
  ];
  for (const [overrides, env] of cases) {
    const root = tmp();
    const job = makeJob(root, overrides);
    stage(job);
    let address: TeeAddress | undefined;
    const world = new FakeWorld({
      stream: async (tee) => {
        address = tee;
      },
      run: () => "hi\n",
      exportFrom: containerOut(),
    });
    assert.equal((await executor(world, env).runContainer(job)).ok, true);
    const program = world.evaluated[0]!;
    assert.equal(address, undefined);
    assert.ok(!program.some((c) => c[0] === "withServiceBinding" || (c[0] === "withMountedFile" && c[1] === "/cspipe/bin/log_tee.py")));
    assert.notEqual((program.at(-1)![1] as string[])[1], "/cspipe/bin/log_tee.py");
    assert.deepEqual(job.lines, ["hi"]);
  }
});

test("run: by default the wrapper mounted is the log_tee.py next to the executor", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: () => "done\n", exportFrom: containerOut() });
  const ex = new DaggerExecutor({ env: { CSPIPE_DAGGER_GPU: "1" }, connect: async () => world.connection() });
  assert.equal((await ex.runContainer(job)).ok, true);
  const mount = world.evaluated[0]!.find((c) => c[0] === "withMountedFile" && c[1] === "/cspipe/bin/log_tee.py");
  assert.ok(mount);
  assert.match(mount[2] as string, /pipeline\/executors\/dagger\/log_tee\.py$/);
  assert.ok(existsSync(mount[2] as string));
});
