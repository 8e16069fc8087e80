/**
 * `run [targets...]` and the bare `cspipe [targets...]`: the run options, the reporter a run gets
 * (JSON lines, a TTY's progress bars or plain lines, each with overall progress), and the action
 * that runs targets through the session and turns the result into an exit code.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { resolve } from "node:path";
import type { EventSink } from "../engine/events.ts";
import type { FailureMode } from "../engine/engine.ts";
import type { RunSettings } from "../engine/step.ts";
import { installInterruptHandlers, signalExitCode } from "../engine/interrupt.ts";
import type { ExecutorChoice } from "../executors/index.ts";
import { withRunProgress } from "../reporters/overall.ts";
import { producedReport } from "../produced.ts";
import { runTargets, type Project } from "../session.ts";
import { GPUS_OPTION, gpuCount } from "./gpu-plan.ts";
import { repeatable } from "./repeatable.ts";
import { addSlurmOptions, executorOption, withSlurmFlags, type SlurmOptionValues } from "./slurm-options.ts";

export interface RunCommandIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly project: () => Promise<Project>;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

export interface RunFlags extends SlurmOptionValues {
  force: string[];
  only?: string;
  concurrency: number;
  failureMode: FailureMode;
  json: boolean;
  executor: ExecutorChoice;
  verify: boolean;
  verbose: boolean;
  dataDir?: string;
  allowCpu: boolean;
  offline: boolean;
  allowUnpinned: boolean;
  gpus?: number;
  set: string[];
  exportDir?: string;
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** The options of `run` and of the bare command. */
export function addRunOptions(c: Command): Command {
  return addSlurmOptions(c)
    .option("--force <step>", "rerun this cached step (repeatable); downstream reruns only if its outputs change", repeatable, [] as string[])
    .option("--set <path=value>", "override a hyperparameter of the targets' setup (repeatable; 'params <target>' lists them): a new cached variant", repeatable, [] as string[])
    .option("--export-dir <dir>", "where exports (e.g. report/) go (default: ./, or experiments/<id>/ for a run with --set)")
    .option("--only <step>", "run just this step from cached inputs (error if an input is not cached)")
    .option("--concurrency <n>", "steps executed at once", positiveInt, 2)
    .option(...GPUS_OPTION, gpuCount)
    .addOption(new Option("--failure-mode <mode>", "after a failure: stop starting new steps, continue independent ones, or kill running ones").choices(["stop", "continue", "kill"]).default("stop"))
    .option("--json", "JSON event lines on stdout", false)
    .addOption(executorOption("where steps run: container steps locally or under Dagger; every step as a Slurm job"))
    .option("--verify", "re-hash cached outputs before trusting them; recompute tampered entries", false)
    .option("--verbose", "print cache hits and step logs", false)
    .option("--data-dir <dir>", "directory holding dataset files placed by hand (verified by sha256)")
    .option("--allow-cpu", "let steps that request a GPU run on CPU", false)
    .option("--offline", "never use the network: fetch steps use files already fetched or placed with --data-dir, else fail naming the URL and sha256", false)
    .option("--allow-unpinned", "let fetch steps accept datasets.lock entries whose sha256 is null (unverified; pin them with 'lock --update <name>')", false);
}

/** Reporters are loaded on demand: a run needs exactly one of them. */
async function reporterFor(kind: "json" | "tty" | "plain", io: RunCommandIO, verbose: boolean): Promise<EventSink> {
  const error = (line: string) => void io.stderr.write(`${line}\n`);
  if (kind === "json") return (await import("../reporters/json.ts")).jsonReporter(io.out);
  if (kind === "tty") return (await import("../reporters/tty.ts")).ttyReporter(io.stdout, { error });
  return (await import("../reporters/plain.ts")).plainReporter(io.out, { verbose, error });
}

/** Every reporter also gets overall progress (steps done, cached vs run, time left) and trainers' per-epoch metrics. */
async function runReporter(io: RunCommandIO, json: boolean, verbose: boolean): Promise<EventSink> {
  return withRunProgress(await reporterFor(json ? "json" : io.stdout.isTTY ? "tty" : "plain", io, verbose));
}

function runSettings(flags: RunFlags, dataDir: string | undefined): RunSettings {
  return {
    allowCpu: flags.allowCpu,
    offline: flags.offline,
    allowUnpinned: flags.allowUnpinned,
    ...(flags.dataDir && dataDir !== undefined ? { dataDir } : {}),
  };
}

/** The action of `run` and of the bare command: run `targets`, set the exit code, report what was exported. */
export function runAction(io: RunCommandIO): (targets: string[], flags: RunFlags) => Promise<void> {
  return async (targets, flags) => {
    const paths = await import("./paths.ts");
    const dataDir = paths.dataDirOf(flags);
    if (flags.exportDir !== undefined) paths.checkOutputDir(resolve(flags.exportDir), "--export-dir");
    const p = await io.project();
    const settings = runSettings(flags, dataDir);
    // Ctrl-C / SIGTERM stop the run cleanly (engine/interrupt.ts); a second one kills at once.
    const stop = installInterruptHandlers({ onFirst: (sig) => io.err(`${sig}: stopping (leases released, run recorded as interrupted); send it again to kill at once`) });
    const r = await runTargets(p, {
      targets,
      sets: flags.set,
      ...(flags.exportDir !== undefined ? { exportRoot: resolve(flags.exportDir) } : {}),
      signal: stop.signal,
      force: flags.force,
      ...(flags.only !== undefined ? { only: flags.only } : {}),
      concurrency: flags.concurrency,
      ...(flags.gpus !== undefined ? { gpus: flags.gpus } : {}),
      failureMode: flags.failureMode,
      verify: flags.verify,
      executor: flags.executor,
      ...withSlurmFlags(flags),
      settings,
      emit: await runReporter(io, flags.json, flags.verbose),
    });
    stop.dispose();
    if (r.analysis.length > 0) io.setExitCode(2);
    else if (!r.ok) io.setExitCode(1);
    const signal = stop.received();
    if (signal !== undefined) io.setExitCode(signalExitCode(signal));
    if ("exported" in r) for (const line of producedReport(r.exported, r.produced, flags.json)) io.out(line);
  };
}

export function registerRunCommand(program: Command, io: RunCommandIO): void {
  addRunOptions(program.command("run").description("run targets (default target when none given)").argument("[targets...]", "target names")).action(runAction(io));
}
