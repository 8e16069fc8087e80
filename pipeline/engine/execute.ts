/**
 * Running one step: stage, run (in-process or through the executor), check the declared
 * outputs, hash them (recording their stat stamps), publish atomically. Returns the entry
 * or a run failure value; a failed or cancelled attempt leaves no staging behind.
 * Disk-full and permission errors while staging, running or publishing are `store-failed`
 * failures naming the path and the fix (store-errors.ts).
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { copyFile, mkdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hostname, cpus, platform, arch } from "node:os";
import type { AnyStep, ContainerRuntime, InProcessRuntime, InputKinds, OutputDecls, ProgressSink, RunSettings, StepContext } from "./step.ts";
import { inputKeyOf } from "./step.ts";
import type { Entry, Manifest, OutputRecord, Store } from "./store.ts";
import type { LockEntry } from "./datasets-lock.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { cacheKey } from "./fingerprint.ts";
import type { Executor, JobFailure, JobPath, QueueState } from "./executor.ts";
import { parseProgressLine } from "./executor.ts";
import type { RunFailure } from "./failures.ts";
import type { EventSink } from "./events.ts";
import { stampedOutputDigest, type StampedDigest } from "./digest.ts";
import { storeIoProblem } from "./store-errors.ts";
import { bodyRunFailure, runStepBody } from "./step-body.ts";
import { effectiveRuntime, stepResources, type Resources } from "./resources.ts";
import { canonicalJson } from "./canonical.ts";
import type { LockFile } from "./datasets-lock.ts";
import { slotValues } from "./wiring.ts";

export interface ExecuteContext {
  readonly store: Store;
  readonly executor: Executor;
  readonly lock: LockFile;
  readonly sourceRoot: string;
  readonly settings: RunSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Lock entries as the keys saw them (keys.ts: an unpinned entry may carry a --data-dir file's digest); default: the lock's. */
  readonly datasets?: Readonly<Record<string, LockEntry>>;
  readonly tools: Readonly<Record<string, string>>;
  readonly emit: EventSink;
  readonly signal: AbortSignal;
  /** GPU slots assigned to this step by the scheduler. */
  readonly devices?: readonly number[];
}

export type ExecuteResult = { ok: true; entry: Entry; seconds: number } | { ok: false; failure: RunFailure };

type Log = { write(line: string): void; close(): Promise<void>; tail: string[] };

function openLog(path: string): Log {
  const stream: WriteStream = createWriteStream(path, { flags: "w" });
  const tail: string[] = [];
  let closed: Promise<void> | undefined;
  // A full or read-only disk surfaces here too; the step's failure reports it.
  stream.on("error", () => undefined);
  return {
    tail,
    write(line: string) {
      if (closed) return;
      stream.write(line.endsWith("\n") ? line : `${line}\n`);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    },
    close: () => (closed ??= new Promise<void>((resolve) => stream.end(resolve))),
  };
}

function storeFailure(step: AnyStep, err: unknown, ctx: ExecuteContext, inStore = false): RunFailure | undefined {
  const p = storeIoProblem(err, ctx.store.root, inStore);
  return p && { reason: "store-failed", step: step.name, code: p.code, path: p.path, message: p.message, fix: p.fix };
}

export async function executeStep(
  step: AnyStep,
  params: unknown,
  fingerprint: Fingerprint,
  inputs: Inputs,
  ctx: ExecuteContext,
): Promise<ExecuteResult> {
  const key = cacheKey(fingerprint);
  const logPath = ctx.store.logPath(step.def.id, key);
  let staging: string | undefined;
  let log: Log | undefined;
  try {
    staging = await ctx.store.createStaging(key);
    await mkdir(dirname(logPath), { recursive: true });
    log = openLog(logPath);
    return await runStaged(step, params, fingerprint, inputs, ctx, { key, staging, log, logPath });
  } catch (e) {
    const f: RunFailure | undefined = ctx.signal.aborted ? { reason: "cancelled", step: step.name } : storeFailure(step, e, ctx);
    if (log) {
      log.write(f?.reason === "store-failed" ? `# failed: ${f.message}. Fix: ${f.fix}` : `# failed: ${(e as Error).stack ?? String(e)}`);
      await log.close();
    }
    if (staging !== undefined) await ctx.store.removeStaging(staging).catch(() => undefined);
    if (f) return { ok: false, failure: f };
    throw e;
  }
}

type Inputs = Readonly<Record<string, { entry: Entry; output: string }>>;

/** One execution's place: its key (computed once, by executeStep), staging directory and log. */
interface Staged {
  readonly key: string;
  readonly staging: string;
  readonly log: Log;
  readonly logPath: string;
}

async function runStaged(step: AnyStep, params: unknown, fingerprint: Fingerprint, inputs: Inputs, ctx: ExecuteContext, staged: Staged): Promise<ExecuteResult> {
  const { key, staging, log, logPath } = staged;
  const def = step.def;
  const started = new Date();
  ctx.emit({ type: "started", step: step.name, key, log: logPath });
  log.write(`# ${step.name} (${def.id} v${def.version}) key ${key}`);
  log.write(`# started ${started.toISOString()} on ${hostname()}`);
  const run = await prepareRun(step, params, fingerprint, inputs, ctx, staged);
  const fail = async (failure: RunFailure): Promise<ExecuteResult> => {
    log.write(`# failed: ${failure.reason}`);
    if (failure.reason === "store-failed") log.write(`${failure.message}. Fix: ${failure.fix}`);
    await log.close();
    await ctx.store.removeStaging(staging);
    return { ok: false, failure };
  };
  const ran = def.runtime.type === "in-process" ? await runInProcess(def.runtime, run, ctx) : await runProgram(def.runtime, run, ctx);
  if (!ran.ok) return fail(ctx.signal.aborted ? { reason: "cancelled", step: step.name } : ran.failure);
  const hashed = await hashOutputs(step, run.outputPaths, logPath);
  if (!hashed.ok) return fail(hashed.failure);
  const finished = new Date();
  const seconds = (finished.getTime() - started.getTime()) / 1000;
  log.write(`# finished ${finished.toISOString()} (${seconds.toFixed(2)} s)`);
  await log.close();
  await copyFile(logPath, join(staging, "log.txt"));
  const manifest: Manifest = {
    schema: 1,
    key,
    step: { id: def.id, version: def.version, name: step.name },
    outputs: hashed.outputs,
    timings: { started: started.toISOString(), finished: finished.toISOString(), seconds },
    host: { hostname: hostname(), platform: platform(), arch: arch(), cpus: cpus().length },
    tools: { ...ctx.tools, ...ran.tools },
    executor: def.runtime.type === "in-process" && !ctx.executor.runInProcess ? "in-process" : ctx.executor.name,
    log: "log.txt",
  };
  const entry = await ctx.store.publish(staging, fingerprint, manifest);
  await ctx.store.content.recordPublished(key, hashed.stamped);
  return { ok: true, entry, seconds };
}

/** Where each input is read: its entry's output in the store. */
function inputJobPaths(inputs: Inputs, store: Store): Record<string, JobPath> {
  const out: Record<string, JobPath> = {};
  for (const [name, { entry, output }] of Object.entries(inputs)) out[name] = { path: store.outputPath(entry, output), dir: entry.manifest.outputs[output]!.dir };
  return out;
}

/** Where each declared output is written in the staging directory (its parent, or itself for a directory, created). */
async function stageOutputPaths(outputs: OutputDecls, staging: string): Promise<Record<string, JobPath>> {
  const out: Record<string, JobPath> = {};
  for (const [name, decl] of Object.entries(outputs)) {
    const path = join(staging, "outputs", decl.path);
    await mkdir(decl.dir ? path : dirname(path), { recursive: true });
    out[name] = { path, dir: decl.dir };
  }
  return out;
}

/** A step's progress as `progress` events (total and label only when given). */
function progressEvents(step: AnyStep, emit: EventSink): ProgressSink {
  return (done: number, total?: number, label?: string) => {
    const ev: { type: "progress"; step: string; done: number; total?: number; label?: string } = { type: "progress", step: step.name, done };
    if (total !== undefined) ev.total = total;
    if (label !== undefined) ev.label = label;
    emit(ev);
  };
}

/** Everything the step's body runs with: paths in the store and staging, scratch, datasets, and where its lines and progress go. */
async function prepareRun(step: AnyStep, params: unknown, fingerprint: Fingerprint, inputs: Inputs, ctx: ExecuteContext, { key, staging, log, logPath }: Staged): Promise<Run> {
  const def = step.def;
  const inputPaths = inputJobPaths(inputs, ctx.store);
  const outputPaths = await stageOutputPaths(def.outputs, staging);
  const scratchDir = ctx.store.scratchDir(def.id);
  await mkdir(scratchDir, { recursive: true });
  const datasets = Object.fromEntries((def.datasets ?? []).map((d) => [d, ctx.datasets?.[d] ?? ctx.lock.entries[d]!]));
  const progress = progressEvents(step, ctx.emit);
  const line = (text: string): void => {
    log.write(text);
    ctx.emit({ type: "log", step: step.name, line: text });
  };
  return {
    step,
    params,
    key,
    fingerprint,
    inputs,
    inputPaths,
    outputPaths,
    workDir: join(staging, "work"),
    scratchDir,
    datasets,
    progress,
    resources: stepResources(step),
    log,
    logPath,
    line,
    outputLine: (text) => {
      const p = parseProgressLine(text);
      if (p) progress(p.done, p.total, p.label);
      else line(text);
    },
    onQueue: (q) => ctx.emit({ type: "queue", step: step.name, state: q.state, detail: q.detail }),
  };
}

type Hashed = { ok: true; outputs: Record<string, OutputRecord>; stamped: Record<string, StampedDigest> } | { ok: false; failure: RunFailure };

/** Check that each declared output exists as a file or directory as declared, and hash it (with its stat stamps). */
async function hashOutputs(step: AnyStep, outputPaths: Readonly<Record<string, JobPath>>, logPath: string): Promise<Hashed> {
  const outputs: Record<string, OutputRecord> = {};
  const stamped: Record<string, StampedDigest> = {};
  for (const [name, decl] of Object.entries(step.def.outputs)) {
    const path = outputPaths[name]!.path;
    const isDir = await stat(path).then((s) => s.isDirectory(), () => undefined);
    if (isDir !== decl.dir) {
      return { ok: false, failure: { reason: "missing-output", step: step.name, output: name, expected: `${decl.dir ? "directory" : "file"} ${decl.path}`, log: logPath } };
    }
    const d = await stampedOutputDigest(path, decl.dir);
    stamped[name] = d;
    outputs[name] = { path: decl.path, kind: decl.kind, dir: decl.dir, digest: d.digest, size: d.size, files: d.files };
  }
  return { ok: true, outputs, stamped };
}

/** What the runners of a step's body need from runStaged. */
interface Run {
  readonly step: AnyStep;
  readonly params: unknown;
  readonly key: string;
  readonly fingerprint: Fingerprint;
  readonly inputs: Readonly<Record<string, { entry: Entry; output: string }>>;
  readonly inputPaths: Readonly<Record<string, JobPath>>;
  readonly outputPaths: Readonly<Record<string, JobPath>>;
  readonly workDir: string;
  readonly scratchDir: string;
  readonly datasets: Readonly<Record<string, LockEntry>>;
  readonly progress: ProgressSink;
  readonly resources: Resources;
  readonly log: Log;
  readonly logPath: string;
  /** A line for the log and the reporters. */
  line(line: string): void;
  /** A line of a job's output: a `PROGRESS` line moves the bar, any other goes to the log. */
  outputLine(line: string): void;
  onQueue(state: QueueState): void;
}

type Ran = { ok: true; tools?: Readonly<Record<string, string>> } | { ok: false; failure: RunFailure };

const jobFailed = (r: Run, o: JobFailure): RunFailure => ({
  reason: "job-failed",
  step: r.step.name,
  message: o.message,
  ...(o.fix !== undefined ? { fix: o.fix } : {}),
  log: r.logPath,
  tail: r.log.tail.slice(-10),
});

/** An in-process body: here, or through the executor when it runs them (a batch job). */
async function runInProcess(rt: InProcessRuntime<unknown, InputKinds, OutputDecls>, r: Run, ctx: ExecuteContext): Promise<Ran> {
  const paths = (m: Readonly<Record<string, JobPath>>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, v.path]));
  if (ctx.executor.runInProcess) {
    const inputs = Object.fromEntries(Object.entries(r.inputPaths).map(([k, v]) => [k, { ...v, entry: { stepId: r.inputs[k]!.entry.stepId, key: r.inputs[k]!.entry.key } }]));
    const o = await ctx.executor.runInProcess({
      step: r.step.name,
      stepId: r.step.def.id,
      key: r.key,
      fingerprint: r.fingerprint,
      inputs,
      outputs: r.outputPaths,
      workDir: r.workDir,
      scratchDir: r.scratchDir,
      settings: ctx.settings,
      resources: r.resources,
      signal: ctx.signal,
      onLine: r.outputLine,
      progress: r.progress,
      onQueue: r.onQueue,
    });
    if (o.ok) return { ok: true, ...(o.tools ? { tools: o.tools } : {}) };
    return { ok: false, failure: o.kind === "body" ? bodyRunFailure(o.failure, r.step.name, r.logPath) : jobFailed(r, o) };
  }
  const stepCtx: StepContext<unknown, InputKinds, OutputDecls> = {
    params: r.params,
    inputs: slotValues(r.step.def.inputs, paths(r.inputPaths)),
    inputKeys: slotValues(r.step.def.inputs, Object.fromEntries(Object.entries(r.inputs).map(([k, v]) => [k, inputKeyOf(r.step.def, k, v.entry.key, v.entry.stepId, r.fingerprint.inputs[k]!.kind)]))),
    outputs: paths(r.outputPaths),
    workDir: r.workDir,
    scratchDir: r.scratchDir,
    datasets: r.datasets,
    settings: ctx.settings,
    signal: ctx.signal,
    log: r.line,
    progress: r.progress,
    ...(ctx.devices !== undefined ? { devices: ctx.devices } : {}),
  };
  if (ctx.devices !== undefined) r.log.write(`# gpu slots: ${ctx.devices.join(",")}`);
  const o = await runStepBody(rt, stepCtx, ctx.store.root);
  if (o.ok) return { ok: true };
  if (o.detail !== undefined) r.log.write(o.detail);
  return { ok: false, failure: bodyRunFailure(o.failure, r.step.name, r.logPath) };
}

/** A program (container step) through the executor. */
async function runProgram(rt: ContainerRuntime, r: Run, ctx: ExecuteContext): Promise<Ran> {
  const def = r.step.def;
  const paramsFile = join(r.workDir, "params.json");
  await writeFile(paramsFile, canonicalJson(r.params, 2) + "\n");
  const env: Record<string, string> = {};
  for (const name of def.env ?? []) {
    const v = ctx.env[name];
    if (v !== undefined) env[name] = v;
  }
  const secrets: Record<string, string> = {};
  for (const name of rt.secrets ?? []) {
    const v = ctx.env[name];
    if (v !== undefined) secrets[name] = v;
  }
  const outcome = await ctx.executor.runContainer({
    step: r.step.name,
    stepId: def.id,
    key: r.key,
    // The step's effective resources (its own over its runtime's), as every executor sizes them and its numerics identity counts threads.
    runtime: effectiveRuntime({ ...r.step, def: { ...def, runtime: rt } }),
    inputs: r.inputPaths,
    outputs: r.outputPaths,
    paramsFile,
    workDir: r.workDir,
    sourceRoot: ctx.sourceRoot,
    env,
    secrets,
    settings: ctx.settings,
    numerics: r.fingerprint.numerics,
    ...(ctx.devices !== undefined ? { devices: ctx.devices } : {}),
    signal: ctx.signal,
    onLine: r.outputLine,
    onQueue: r.onQueue,
  });
  if (!outcome.ok) {
    if (outcome.kind === "interpreter-missing") {
      r.log.write(outcome.message);
      return { ok: false, failure: { reason: "interpreter-missing", step: r.step.name, message: outcome.message, log: r.logPath } };
    }
    if (outcome.kind === "job-failed") return { ok: false, failure: jobFailed(r, outcome) };
    const { argv, exitStatus, signal } = outcome;
    return { ok: false, failure: { reason: "exit-nonzero", step: r.step.name, argv, exitStatus, signal, log: r.logPath, tail: r.log.tail.slice(-10) } };
  }
  r.log.write(`# argv: ${outcome.argv.join(" ")}`);
  if (ctx.devices !== undefined) r.log.write(`# gpu slots: ${ctx.devices.join(",")}`);
  return { ok: true, ...(outcome.tools ? { tools: outcome.tools } : {}) };
}
