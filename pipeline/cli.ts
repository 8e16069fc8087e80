/**
 * The command line. Thin: parse options, call the session functions, report. Only this
 * file decides exit codes: 0 ok, 1 a step failed, 2 bad usage or analysis failures.
 */
import { Command, Option } from "commander";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SourceScanner, compiledModule, findProjectRoot } from "./engine/sources.ts";
import { didYouMean } from "./engine/nearest.ts";
import { DATA_SOURCES, type DataSource, type TargetRegistry } from "./engine/targets.ts";
import { Project } from "./session.ts";
import { registerEvaluateCommand } from "./commands/evaluate.ts";
import { registerLockCommand } from "./commands/lock.ts";
import { registerBm25Command } from "./commands/bm25.ts";
import { registerDiagnoseCommand } from "./commands/diagnose.ts";
import { registerPlanCommand } from "./commands/plan.ts";
import { registerShowCommand } from "./commands/show.ts";
import { registerGcCommand } from "./commands/gc.ts";
import { registerDoctorCommand } from "./commands/doctor.ts";
import { registerEvaluateQaCommand } from "./commands/evaluate-qa.ts";
import { registerParamsCommand } from "./commands/params.ts";
import { registerCompareCommand } from "./commands/compare.ts";
import { registerExecStepCommand } from "./commands/exec-step.ts";
import { registerTargetsCommand } from "./commands/targets.ts";
import { markPhase } from "./engine/phases.ts";
import { unknownOptionError } from "./commands/unknown-options.ts";
import { addRunOptions, registerRunCommand, runAction, type RunFlags } from "./commands/run.ts";
import { entryCommands } from "./commands/entries.ts";

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

/** The root command: global options, version, help after errors, output into `io`, errors thrown rather than exiting. */
function createProgram(argv: readonly string[], io: CliIO): Command {
  const program: Command = new Command("cspipe")
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
  return program;
}

const dataOption = (): Option =>
  new Option("--data <source>", "build targets on the mini benchmark or the real datasets of datasets.lock (default: $CSPIPE_DATA or mini)").choices(DATA_SOURCES);

interface ProjectLoaders {
  /** The command's project, made once (the default action checks target names, then runs): the definitions are built and their sources hashed once. */
  readonly project: () => Promise<Project>;
  /** For commands that only read the store: a store that does not exist is a mistyped --store (or nothing ran yet), not an empty store. */
  readonly storeProject: () => Promise<Project>;
  /** `--store` and `--data` are accepted before and after the subcommand: remember the subcommand's. */
  readonly takeSubcommandOptions: (action: Command) => void;
}

function projectLoaders(program: Command, io: CliIO): ProjectLoaders {
  let subStore: string | undefined;
  let subData: DataSource | undefined;
  let made: Promise<Project> | undefined;
  const makeProject = async (): Promise<Project> => {
    const store = subStore ?? program.opts<{ store?: string }>().store;
    const data = subData ?? program.opts<{ data?: DataSource }>().data;
    const root = findProjectRoot();
    // One scanner for the staleness check and the keys: each source file is read and hashed once, and
    // not at all while its stat stamp is the one remembered in .cspipe/source-memo.json (engine/source-memo.ts).
    const scanner = new SourceScanner(root, { ...(COMPILED ? { distDir: DIST_DIR } : {}), memoFile: join(root, ".cspipe", "source-memo.json") });
    return new Project({ root, ...(store ? { store } : {}), ...(data ? { data } : {}), targets: await loadTargets(io.env, root, scanner), env: io.env, scanner });
  };
  const project = (): Promise<Project> => (made ??= makeProject());
  const storeProject = async (): Promise<Project> => {
    const p = await project();
    if (!existsSync(p.store.root)) throw new Error(`no store at ${p.store.root}: nothing has run there. Fix: check --store (or $CSPIPE_STORE), or run a target first`);
    return p;
  };
  const takeSubcommandOptions = (action: Command): void => {
    subStore = action.opts<{ store?: string }>().store;
    subData = action.opts<{ data?: DataSource }>().data;
  };
  return { project, storeProject, takeSubcommandOptions };
}

/** What every command registered here gets: output lines, the exit code, the projects. */
interface CliContext extends ProjectLoaders {
  readonly io: CliIO;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

/** The commands on a project (targets or store), in the order `--help` lists them; each also takes `--store` and `--data`. */
function registerProjectCommands(program: Command, ctx: CliContext): void {
  const { io, project, storeProject, out, err, setExitCode } = ctx;
  const write = (t: string) => io.stdout.write(t);
  registerRunCommand(program, { stdout: io.stdout, stderr: io.stderr, project, out, err, setExitCode });
  registerPlanCommand(program, { project, out: write, err, setExitCode });
  const entries = { project: storeProject, out, err, setExitCode, humanBytes };
  entryCommands.explain(program, entries);
  entryCommands.ls(program, entries);
  registerShowCommand(program, { project: storeProject, out, err, setExitCode });
  registerParamsCommand(program, { project, out: write, err, setExitCode });
  registerCompareCommand(program, { project: storeProject, out: write, err, setExitCode });
  registerGcCommand(program, entries);
  registerDoctorCommand(program, entries);
  entryCommands.pin(program, entries);
  registerTargetsCommand(program, { project, out });
  registerExecStepCommand(program, { project, setExitCode });
  for (const c of program.commands) {
    c.option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)");
    c.addOption(dataOption());
    c.hook("preAction", (_parent, action) => ctx.takeSubcommandOptions(action));
  }
}

/** Commands that work on files, not on the store or targets. */
function registerFileCommands(program: Command, { io, setExitCode }: CliContext): void {
  registerEvaluateCommand(program, { stdout: io.stdout, stderr: io.stderr }, setExitCode);
  registerLockCommand(program, io, setExitCode);
  registerBm25Command(program, io, setExitCode);
  registerDiagnoseCommand(program, io, setExitCode);
  registerEvaluateQaCommand(program, io, setExitCode);
}

/** No subcommand: run the targets named (`cspipe table2-bm25`), else the default target. */
function registerDefaultAction(program: Command, ctx: CliContext): void {
  const run = runAction({ stdout: ctx.io.stdout, stderr: ctx.io.stderr, project: ctx.project, out: ctx.out, err: ctx.err, setExitCode: ctx.setExitCode });
  addRunOptions(program)
    .argument("[targets...]", "targets to run (default: the default target)")
    .action(async (names: string[], flags: RunFlags) => {
      const p = await ctx.project();
      const unknown = names.filter((n) => p.targets.get(n) === undefined);
      for (const n of unknown) ctx.err(`error: '${n}' is neither a command nor a target${didYouMean(n, [...program.commands.map((c) => c.name()), ...p.targets.names()])} ('cspipe --help' lists the commands, 'cspipe targets' the targets)`);
      if (unknown.length > 0) ctx.setExitCode(2);
      else await run(names, flags);
    });
}

/** Parse and run; help and version exit 0, usage errors (commander's) and thrown errors 2, else the code the action set. */
async function parseAndRun(program: Command, argv: readonly string[], err: (line: string) => void, exitCode: () => number): Promise<number> {
  try {
    await program.parseAsync(["node", "cspipe", ...argv]);
  } catch (e) {
    const ce = e as { code?: string; exitCode?: number };
    if (ce.code === "commander.helpDisplayed" || ce.code === "commander.version" || ce.code === "commander.help") return 0;
    if (ce.code?.startsWith("commander.")) return 2;
    err(`error: ${(e as Error).message}`);
    return 2;
  }
  return exitCode();
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const program = createProgram(argv, io);
  const ctx: CliContext = {
    ...projectLoaders(program, io),
    io,
    out: (line) => void io.stdout.write(`${line}\n`),
    err: (line) => void io.stderr.write(`${line}\n`),
    setExitCode: (code) => (exitCode = code),
  };
  registerProjectCommands(program, ctx);
  registerFileCommands(program, ctx);
  registerDefaultAction(program, ctx);
  return parseAndRun(program, argv, ctx.err, () => exitCode);
}
