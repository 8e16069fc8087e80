/**
 * The command line. Thin: parse options, call the session functions, report. Only this
 * file decides exit codes: 0 ok, 1 a step failed, 2 bad usage or analysis failures.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SourceScanner, compiledModule, findProjectRoot } from "./engine/sources.ts";
import { describeFailures, type AnalysisFailure } from "./engine/failures.ts";
import { didYouMean } from "./engine/nearest.ts";
import type { EventSink } from "./engine/events.ts";
import { DATA_SOURCES, type DataSource, type TargetRegistry } from "./engine/targets.ts";
import { Project, explainStep, listEntries, pinTarget, runTargets } from "./session.ts";
import type { ExecutorChoice } from "./executors/index.ts";
import type { FailureMode } from "./engine/engine.ts";
import type { RunSettings } from "./engine/step.ts";
import { registerEvaluateCommand } from "./commands/evaluate.ts";
import { registerLockCommand } from "./commands/lock.ts";
import { registerBm25Command } from "./commands/bm25.ts";
import { registerDiagnoseCommand } from "./commands/diagnose.ts";
import { registerPlanCommand } from "./commands/plan.ts";
import { registerShowCommand } from "./commands/show.ts";
import { withRunProgress } from "./reporters/overall.ts";
import { registerGcCommand } from "./commands/gc.ts";
import { registerDoctorCommand } from "./commands/doctor.ts";
import { installInterruptHandlers, signalExitCode } from "./engine/interrupt.ts";
import { GPUS_OPTION, gpuCount } from "./commands/gpu-plan.ts";
import { registerEvaluateQaCommand } from "./commands/evaluate-qa.ts";
import { registerParamsCommand } from "./commands/params.ts";
import { registerCompareCommand } from "./commands/compare.ts";
import { addSlurmOptions, executorOption, withSlurmFlags, type SlurmOptionValues } from "./commands/slurm-options.ts";
import { registerExecStepCommand } from "./commands/exec-step.ts";
import { producedReport } from "./produced.ts";
import { registerTargetsCommand } from "./commands/targets.ts";
import { markPhase } from "./engine/phases.ts";
import { unknownOptionError } from "./commands/unknown-options.ts";

/** Running from dist/ (`npm run build`, then `node dist/pipeline/main.js`) rather than under tsx. */
const COMPILED = import.meta.url.endsWith(".js");
/** Where this compiled CLI's build lives (dist/, or a build of ./cspipe under .cspipe/builds/). */
const DIST_DIR = fileURLToPath(new URL("..", import.meta.url));
/** The engine: in a compiled run its sources must match what dist/ was built from. */
const SESSION_MODULE = new URL("./session.ts", import.meta.url).href;
const DEFAULT_DEFINITIONS = new URL("./definitions/index.ts", import.meta.url).href;

export interface CliIO {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** `cspipe <version>`, from the project's package.json. */
function cliVersion(): string {
  try {
    return `cspipe ${(JSON.parse(readFileSync(join(findProjectRoot(), "package.json"), "utf8")) as { version: string }).version}`;
  } catch {
    return "cspipe (version unknown)";
  }
}

export function humanBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let u = 0;
  let v = n;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}

async function loadTargets(env: CliIO["env"], root: string, scanner: SourceScanner): Promise<TargetRegistry> {
  // Tests (and users with their own workflows) may point at another definitions module.
  // The project's own definitions are loaded only when used: they pull in every step's libraries.
  const mod = env.CSPIPE_DEFINITIONS;
  // A compiled run loads the compiled counterpart of a project .ts module (dist/<path>.js),
  // after checking that dist/ was built from the current sources of the engine and the definitions.
  const url = mod ? pathToFileURL(COMPILED ? compiledModule(root, resolve(mod), scanner.distDir) : resolve(mod)).href : DEFAULT_DEFINITIONS;
  if (COMPILED) {
    // Keys map <build>/<path>.js back to <path>.ts for the build this CLI was loaded from (dist/ or ./cspipe's).
    if (!scanner.isCompiled(fileURLToPath(import.meta.url))) throw new Error(`a compiled CLI must live in ${scanner.distDir}; rebuild with \`npm run build\``);
    scanner.fingerprint(SESSION_MODULE);
    scanner.fingerprint(url);
    markPhase("build-check");
  }
  const loaded = (await (mod ? import(url) : import("./definitions/index.ts"))) as { buildTargets?: () => TargetRegistry };
  markPhase("definitions");
  if (!loaded.buildTargets) throw new Error(`${mod} does not export buildTargets()`);
  return loaded.buildTargets();
}

/** Reporters are loaded on demand: a run needs exactly one of them. */
async function reporterFor(kind: "json" | "tty" | "plain", io: CliIO, out: (line: string) => void, verbose: boolean): Promise<EventSink> {
  const error = (line: string) => void io.stderr.write(`${line}\n`);
  if (kind === "json") return (await import("./reporters/json.ts")).jsonReporter(out);
  if (kind === "tty") return (await import("./reporters/tty.ts")).ttyReporter(io.stdout, { error });
  return (await import("./reporters/plain.ts")).plainReporter(out, { verbose, error });
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const failed = (failures: readonly AnalysisFailure[]) => {
    for (const line of describeFailures(failures)) err(line);
    exitCode = 2;
  };

  const dataOption = () =>
    new Option("--data <source>", "build targets on the mini benchmark or the real datasets of datasets.lock (default: $CSPIPE_DATA or mini)").choices(DATA_SOURCES);
  const program = new Command("cspipe")
    .description("Reproduce 'Saving Dense Retriever from Shortcut Dependency in Conversational Search' as a cached DAG of steps.")
    .option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)")
    .addOption(dataOption())
    .version(cliVersion(), "-V, --version", "print cspipe's version")
    .enablePositionalOptions()
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // A missing required option is reported after a mistyped one (commands/unknown-options.ts).
      outputError: (s, write) => write(s.startsWith("error: required option") ? (unknownOptionError(program, argv) ?? s) : s),
    });

  // `--store` is accepted before and after the subcommand.
  let subStore: string | undefined;
  let subData: DataSource | undefined;
  // One project per command (the default action checks target names, then runs): the definitions are built and their sources hashed once.
  let made: Promise<Project> | undefined;
  const project = (): Promise<Project> => (made ??= makeProject());
  const makeProject = async (): Promise<Project> => {
    const store = subStore ?? program.opts<{ store?: string }>().store;
    const data = subData ?? program.opts<{ data?: DataSource }>().data;
    const root = findProjectRoot();
    // One scanner for the staleness check and the keys: each source file is read and hashed once, and
    // not at all while its stat stamp is the one remembered in .cspipe/source-memo.json (engine/source-memo.ts).
    const scanner = new SourceScanner(root, { ...(COMPILED ? { distDir: DIST_DIR } : {}), memoFile: join(root, ".cspipe", "source-memo.json") });
    return new Project({ root, ...(store ? { store } : {}), ...(data ? { data } : {}), targets: await loadTargets(io.env, root, scanner), env: io.env, scanner });
  };

  // Commands that only read the store: a store that does not exist is a mistyped --store (or nothing ran yet), not an empty store.
  const storeProject = async (): Promise<Project> => {
    const p = await project();
    if (!existsSync(p.store.root)) throw new Error(`no store at ${p.store.root}: nothing has run there. Fix: check --store (or $CSPIPE_STORE), or run a target first`);
    return p;
  };

  // Every reporter also gets overall progress (steps done, cached vs run, time left) and trainers' per-epoch metrics.
  const reporter = async (json: boolean, verbose: boolean): Promise<EventSink> => withRunProgress(await reporterFor(json ? "json" : io.stdout.isTTY ? "tty" : "plain", io, out, verbose));

  interface RunFlags extends SlurmOptionValues {
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
  const runAction = async (targets: string[], flags: RunFlags) => {
    const paths = await import("./commands/paths.ts");
    const dataDir = paths.dataDirOf(flags);
    if (flags.exportDir !== undefined) paths.checkOutputDir(resolve(flags.exportDir), "--export-dir");
    const p = await project();
    const settings: RunSettings = {
      allowCpu: flags.allowCpu,
      offline: flags.offline,
      allowUnpinned: flags.allowUnpinned,
      ...(flags.dataDir && dataDir !== undefined ? { dataDir } : {}),
    };
    // Ctrl-C / SIGTERM stop the run cleanly (engine/interrupt.ts); a second one kills at once.
    const stop = installInterruptHandlers({ onFirst: (sig) => err(`${sig}: stopping (leases released, run recorded as interrupted); send it again to kill at once`) });
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
      emit: await reporter(flags.json, flags.verbose),
    });
    stop.dispose();
    if (r.analysis.length > 0) exitCode = 2;
    else if (!r.ok) exitCode = 1;
    const signal = stop.received();
    if (signal !== undefined) exitCode = signalExitCode(signal);
    if ("exported" in r) for (const line of producedReport(r.exported, r.produced, flags.json)) out(line);
  };

  const addRunOptions = (c: Command) =>
    addSlurmOptions(c)
      .option("--force <step>", "rerun this cached step (repeatable); downstream reruns only if its outputs change", (v: string, prev: string[]) => [...prev, v], [] as string[])
      .option("--set <path=value>", "override a hyperparameter of the targets' setup (repeatable; 'params <target>' lists them): a new cached variant", (v: string, prev: string[]) => [...prev, v], [] as string[])
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

  addRunOptions(program.command("run").description("run targets (default target when none given)").argument("[targets...]", "target names")).action(runAction);

  registerPlanCommand(program, { project, out: (t) => io.stdout.write(t), err, setExitCode: (c) => (exitCode = c) });

  program
    .command("explain")
    .description("why a step would rerun: the first differing component of its fingerprint")
    .argument("<step>")
    .option("--target <name>", "look the step up in this target (default: the default target, then all)", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option("--all", "list every differing component, not just the first", false)
    .action(async (step: string, flags: { target: string[]; all: boolean }) => {
      const p = await storeProject();
      const r = await explainStep(p, step, flags.target);
      if (!r.ok) return failed(r.failures);
      const e = r.explanation;
      out(`${e.step}: ${e.status}${e.key ? ` (key ${e.key.slice(0, 12)}${e.previousKey ? `, last run ${e.previousKey.slice(0, 12)}` : ""})` : ""}`);
      for (const reason of flags.all ? e.reasons : e.reasons.slice(0, 1)) out(`  ${reason}`);
      if (!flags.all && e.reasons.length > 1) out(`  (+${e.reasons.length - 1} more; --all lists them)`);
    });

  program
    .command("ls")
    .description("cached entries with sizes, times and provenance")
    .option("--json", "JSON output", false)
    .action(async (flags: { json: boolean }) => {
      const p = await storeProject();
      const rows = await listEntries(p);
      for (const d of (await p.store.scan()).damaged) err(`warning: ${d.file}: ${d.problem}; not listed ('doctor --repair' moves it aside)`);
      if (flags.json) {
        out(JSON.stringify(rows));
        return;
      }
      for (const r of rows) out(`${r.key.slice(0, 12)}  ${humanBytes(r.bytes).padStart(10)}  ${r.created}  ${r.seconds.toFixed(1).padStart(7)} s  ${r.executor.padEnd(10)} ${r.name}`);
      out(`${rows.length} entries, ${humanBytes(rows.reduce((a, r) => a + r.bytes, 0))}`);
    });

  registerShowCommand(program, { project: storeProject, out, err, setExitCode: (c) => (exitCode = c) });
  registerParamsCommand(program, { project, out: (t) => io.stdout.write(t), err, setExitCode: (c) => (exitCode = c) });
  registerCompareCommand(program, { project: storeProject, out: (t) => io.stdout.write(t), err, setExitCode: (c) => (exitCode = c) });

  registerGcCommand(program, { project: storeProject, out, err, setExitCode: (c) => (exitCode = c), humanBytes });
  registerDoctorCommand(program, { project: storeProject, out, err, setExitCode: (c) => (exitCode = c), humanBytes });

  program
    .command("pin")
    .description("keep a target's current entries through gc under a name")
    .argument("<name>")
    .argument("<target>")
    .action(async (name: string, target: string) => {
      const p = await storeProject();
      const r = await pinTarget(p, name, target);
      if (!r.ok) {
        if (r.missing) {
          err(`error: target '${target}' is not fully cached (${r.missing.length} steps would run: ${r.missing.slice(0, 5).join(", ")}); run it first`);
          exitCode = 2;
        } else failed(r.failures);
        return;
      }
      out(`pinned ${name} -> ${target} (${r.pin.keys.length} entries)`);
    });

  registerTargetsCommand(program, { project, out });

  registerExecStepCommand(program, { project, setExitCode: (c) => (exitCode = c) });

  for (const c of program.commands) {
    c.option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)");
    c.addOption(dataOption());
    c.hook("preAction", (_parent, action) => {
      subStore = action.opts<{ store?: string }>().store;
      subData = action.opts<{ data?: DataSource }>().data;
    });
  }

  // Commands that work on files, not on the store or targets.
  registerEvaluateCommand(program, { stdout: io.stdout, stderr: io.stderr }, (c) => (exitCode = c));
  registerLockCommand(program, io, (c) => (exitCode = c));
  registerBm25Command(program, io, (c) => (exitCode = c));
  registerDiagnoseCommand(program, io, (c) => (exitCode = c));
  registerEvaluateQaCommand(program, io, (c) => (exitCode = c));

  // No subcommand: run the targets named (`cspipe table2-bm25`), else the default target.
  addRunOptions(program)
    .argument("[targets...]", "targets to run (default: the default target)")
    .action(async (names: string[], flags: RunFlags) => {
      const p = await project();
      const unknown = names.filter((n) => p.targets.get(n) === undefined);
      for (const n of unknown) err(`error: '${n}' is neither a command nor a target${didYouMean(n, [...program.commands.map((c) => c.name()), ...p.targets.names()])} ('cspipe --help' lists the commands, 'cspipe targets' the targets)`);
      if (unknown.length > 0) exitCode = 2;
      else await runAction(names, flags);
    });

  try {
    await program.parseAsync(["node", "cspipe", ...argv]);
  } catch (e) {
    const ce = e as { code?: string; exitCode?: number };
    if (ce.code === "commander.helpDisplayed" || ce.code === "commander.version" || ce.code === "commander.help") return 0;
    if (ce.code?.startsWith("commander.")) return 2;
    err(`error: ${(e as Error).message}`);
    return 2;
  }
  return exitCode;
}
