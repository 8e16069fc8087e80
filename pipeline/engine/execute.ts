/**
 * Running one step: stage, run (in-process or through the executor), check the declared
 * outputs, hash them, publish atomically. Returns the entry or a run failure value.
 */
import { createWriteStream, type WriteStream } from "node:fs";
import { copyFile, mkdir, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { hostname, cpus, platform, arch } from "node:os";
import type { AnyStep, RunSettings, StepContext } from "./step.ts";
import type { Entry, Manifest, OutputRecord, Store } from "./store.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { cacheKey } from "./fingerprint.ts";
import type { Executor, JobPath } from "./executor.ts";
import { parseProgressLine } from "./executor.ts";
import type { RunFailure } from "./failures.ts";
import type { EventSink } from "./events.ts";
import { outputDigest } from "./digest.ts";
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
  readonly tools: Readonly<Record<string, string>>;
  readonly emit: EventSink;
  readonly signal: AbortSignal;
  /** GPU slots assigned to this step by the scheduler. */
  readonly devices?: readonly number[];
}

export type ExecuteResult = { ok: true; entry: Entry; seconds: number } | { ok: false; failure: RunFailure };

function openLog(path: string): { stream: WriteStream; write(line: string): void; close(): Promise<void>; tail: string[] } {
  const stream = createWriteStream(path, { flags: "w" });
  const tail: string[] = [];
  return {
    stream,
    tail,
    write(line: string) {
      stream.write(line.endsWith("\n") ? line : `${line}\n`);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    },
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}

export async function executeStep(
  step: AnyStep,
  params: unknown,
  fingerprint: Fingerprint,
  inputs: Readonly<Record<string, { entry: Entry; output: string }>>,
  ctx: ExecuteContext,
): Promise<ExecuteResult> {
  const key = cacheKey(fingerprint);
  const def = step.def;
  const staging = await ctx.store.createStaging(key);
  const logPath = ctx.store.logPath(def.id, key);
  await mkdir(dirname(logPath), { recursive: true });
  const log = openLog(logPath);
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
  const datasets = Object.fromEntries((def.datasets ?? []).map((d) => [d, ctx.lock.entries[d]!]));
  const progress = (done: number, total?: number, label?: string) => {
    const ev: { type: "progress"; step: string; done: number; total?: number; label?: string } = { type: "progress", step: step.name, done };
    if (total !== undefined) ev.total = total;
    if (label !== undefined) ev.label = label;
    ctx.emit(ev);
  };

  const fail = async (failure: RunFailure): Promise<ExecuteResult> => {
    log.write(`# failed: ${failure.reason}`);
    await log.close();
    await rm(staging, { recursive: true, force: true });
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
      const err = e as Error;
      log.write(err.stack ?? String(err));
      return fail({ reason: "step-threw", step: step.name, message: err.message ?? String(err), log: logPath });
    }
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
  for (const [name, decl] of Object.entries(def.outputs)) {
    const path = outputPaths[name]!.path;
    const isDir = await stat(path).then((s) => s.isDirectory(), () => undefined);
    if (isDir !== decl.dir) {
      return fail({ reason: "missing-output", step: step.name, output: name, expected: `${decl.dir ? "directory" : "file"} ${decl.path}`, log: logPath });
    }
    const d = await outputDigest(path, decl.dir);
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
  return { ok: true, entry, seconds };
}
