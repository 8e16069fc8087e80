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
import type { AnyStep, RunSettings, StepContext } from "./step.ts";
import type { Entry, Manifest, OutputRecord, Store } from "./store.ts";
import type { LockEntry } from "./datasets-lock.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { cacheKey } from "./fingerprint.ts";
import type { Executor, JobPath } from "./executor.ts";
import { parseProgressLine } from "./executor.ts";
import type { RunFailure } from "./failures.ts";
import type { EventSink } from "./events.ts";
import { stampedOutputDigest, type StampedDigest } from "./digest.ts";
import { storeIoProblem } from "./store-errors.ts";
import { InputError } from "./errors.ts";
import { canonicalJson } from "./canonical.ts";
import type { LockFile } from "./datasets-lock.ts";

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
  inputs: Readonly<Record<string, { entry: Entry; output: string }>>,
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
    return await runStaged(step, params, fingerprint, inputs, ctx, staging, log, logPath);
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

async function runStaged(
  step: AnyStep,
  params: unknown,
  fingerprint: Fingerprint,
  inputs: Readonly<Record<string, { entry: Entry; output: string }>>,
  ctx: ExecuteContext,
  staging: string,
  log: Log,
  logPath: string,
): Promise<ExecuteResult> {
  const key = cacheKey(fingerprint);
  const def = step.def;
  const started = new Date();
  ctx.emit({ type: "started", step: step.name, key, log: logPath });
  log.write(`# ${step.name} (${def.id} v${def.version}) key ${key}`);
  log.write(`# started ${started.toISOString()} on ${hostname()}`);

  const inputPaths: Record<string, JobPath> = {};
  for (const [name, { entry, output }] of Object.entries(inputs)) {
    inputPaths[name] = { path: ctx.store.outputPath(entry, output), dir: entry.manifest.outputs[output]!.dir };
  }
  const outputPaths: Record<string, JobPath> = {};
  for (const [name, decl] of Object.entries(def.outputs)) {
    const path = join(staging, "outputs", decl.path);
    await mkdir(decl.dir ? path : dirname(path), { recursive: true });
    outputPaths[name] = { path, dir: decl.dir };
  }
  const workDir = join(staging, "work");
  const scratchDir = ctx.store.scratchDir(def.id);
  await mkdir(scratchDir, { recursive: true });
  const datasets = Object.fromEntries((def.datasets ?? []).map((d) => [d, ctx.datasets?.[d] ?? ctx.lock.entries[d]!]));
  const progress = (done: number, total?: number, label?: string) => {
    const ev: { type: "progress"; step: string; done: number; total?: number; label?: string } = { type: "progress", step: step.name, done };
    if (total !== undefined) ev.total = total;
    if (label !== undefined) ev.label = label;
    ctx.emit(ev);
  };

  const fail = async (failure: RunFailure): Promise<ExecuteResult> => {
    log.write(`# failed: ${failure.reason}`);
    if (failure.reason === "store-failed") log.write(`${failure.message}. Fix: ${failure.fix}`);
    await log.close();
    await ctx.store.removeStaging(staging);
    return { ok: false, failure };
  };

  let tools: Record<string, string> = { ...ctx.tools };
  const rt = def.runtime;
  if (rt.type === "in-process") {
    const stepCtx: StepContext<unknown, Record<string, string>, Record<string, never>> = {
      params,
      inputs: Object.fromEntries(Object.entries(inputPaths).map(([k, v]) => [k, v.path])),
      inputKeys: Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, { key: v.entry.key, stepId: v.entry.stepId }])),
      outputs: Object.fromEntries(Object.entries(outputPaths).map(([k, v]) => [k, v.path])) as never,
      workDir,
      scratchDir,
      datasets,
      settings: ctx.settings,
      signal: ctx.signal,
      log: (line) => {
        log.write(line);
        ctx.emit({ type: "log", step: step.name, line });
      },
      progress,
    };
    try {
      await rt.run(stepCtx as never);
    } catch (e) {
      if (ctx.signal.aborted) return fail({ reason: "cancelled", step: step.name });
      if (e instanceof InputError) {
        const f: { -readonly [K in keyof Extract<RunFailure, { reason: "bad-input" }>]: Extract<RunFailure, { reason: "bad-input" }>[K] } = {
          reason: "bad-input",
          step: step.name,
          message: e.message,
          log: logPath,
        };
        if (e.file !== undefined) f.file = e.file;
        if (e.line !== undefined) f.line = e.line;
        if (e.field !== undefined) f.field = e.field;
        if (e.fix !== undefined) f.fix = e.fix;
        log.write(e.message);
        return fail(f);
      }
      // A full disk or a read-only store under the step's own writes is the store's problem, not the step's.
      const io = storeFailure(step, e, ctx, true);
      if (io) return fail(io);
      const err = e as Error;
      log.write(err.stack ?? String(err));
      return fail({ reason: "step-threw", step: step.name, message: err.message ?? String(err), log: logPath });
    }
    // A step whose work finished is published even if the run was stopped meanwhile: its outputs are
    // complete, and a rerun then starts from it. A step that observed the stop threw above (cancelled).
  } else {
    const paramsFile = join(workDir, "params.json");
    await writeFile(paramsFile, canonicalJson(params, 2) + "\n");
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
      step: step.name,
      stepId: def.id,
      key,
      runtime: rt,
      inputs: inputPaths,
      outputs: outputPaths,
      paramsFile,
      workDir,
      sourceRoot: ctx.sourceRoot,
      env,
      secrets,
      settings: ctx.settings,
      numerics: fingerprint.numerics,
      ...(ctx.devices !== undefined ? { devices: ctx.devices } : {}),
      signal: ctx.signal,
      onLine: (line) => {
        const p = parseProgressLine(line);
        if (p) progress(p.done, p.total, p.label);
        else {
          log.write(line);
          ctx.emit({ type: "log", step: step.name, line });
        }
      },
    });
    if (!outcome.ok) {
      if (ctx.signal.aborted) return fail({ reason: "cancelled", step: step.name });
      if (outcome.kind === "interpreter-missing") {
        log.write(outcome.message);
        return fail({ reason: "interpreter-missing", step: step.name, message: outcome.message, log: logPath });
      }
      return fail({
        reason: "exit-nonzero",
        step: step.name,
        argv: outcome.argv,
        exitStatus: outcome.exitStatus,
        signal: outcome.signal,
        log: logPath,
        tail: log.tail.slice(-10),
      });
    }
    log.write(`# argv: ${outcome.argv.join(" ")}`);
    if (ctx.devices !== undefined) log.write(`# gpu slots: ${ctx.devices.join(",")}`);
    if (outcome.tools) tools = { ...tools, ...outcome.tools };
  }

  // Check and hash the declared outputs.
  const outputs: Record<string, OutputRecord> = {};
  const stamped: Record<string, StampedDigest> = {};
  for (const [name, decl] of Object.entries(def.outputs)) {
    const path = outputPaths[name]!.path;
    const isDir = await stat(path).then((s) => s.isDirectory(), () => undefined);
    if (isDir !== decl.dir) {
      return fail({ reason: "missing-output", step: step.name, output: name, expected: `${decl.dir ? "directory" : "file"} ${decl.path}`, log: logPath });
    }
    const d = await stampedOutputDigest(path, decl.dir);
    stamped[name] = d;
    outputs[name] = { path: decl.path, kind: decl.kind, dir: decl.dir, digest: d.digest, size: d.size, files: d.files };
  }
  const finished = new Date();
  const seconds = (finished.getTime() - started.getTime()) / 1000;
  log.write(`# finished ${finished.toISOString()} (${seconds.toFixed(2)} s)`);
  await log.close();
  await copyFile(logPath, join(staging, "log.txt"));
  const manifest: Manifest = {
    schema: 1,
    key,
    step: { id: def.id, version: def.version, name: step.name },
    outputs,
    timings: { started: started.toISOString(), finished: finished.toISOString(), seconds },
    host: { hostname: hostname(), platform: platform(), arch: arch(), cpus: cpus().length },
    tools,
    executor: rt.type === "in-process" ? "in-process" : ctx.executor.name,
    log: "log.txt",
  };
  const entry = await ctx.store.publish(staging, fingerprint, manifest);
  await ctx.store.content.recordPublished(key, stamped);
  return { ok: true, entry, seconds };
}
