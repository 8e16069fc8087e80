/**
 * The command line. Thin: parse options, call the session functions, report. Only this
 * file decides exit codes: 0 ok, 1 a step failed, 2 bad usage or analysis failures.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SourceScanner, compiledModule, findProjectRoot } from "./engine/sources.ts";
import { describeFailure, type AnalysisFailure } from "./engine/failures.ts";
import type { EventSink } from "./engine/events.ts";
import { DATA_SOURCES, type DataSource, type TargetRegistry } from "./engine/targets.ts";
import { Project, collectGarbage, explainStep, listEntries, pinTarget, planTargets, runTargets, showEntry } from "./session.ts";
import type { ExecutorChoice } from "./executors/index.ts";
import type { FailureMode } from "./engine/engine.ts";
import type { RunSettings } from "./engine/step.ts";
import { registerEvaluateCommand } from "./commands/evaluate.ts";
import { registerLockCommand } from "./commands/lock.ts";
import { registerBm25Command } from "./commands/bm25.ts";
import { registerDiagnoseCommand } from "./commands/diagnose.ts";
import { GPUS_OPTION, gpuCount, gpuPlanLines } from "./commands/gpu-plan.ts";

/** Running from dist/ (`npm run build`, then `node dist/pipeline/main.js`) rather than under tsx. */
const COMPILED = import.meta.url.endsWith(".js");
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
  const url = mod ? pathToFileURL(COMPILED ? compiledModule(root, resolve(mod)) : resolve(mod)).href : DEFAULT_DEFINITIONS;
  if (COMPILED) {
    // Keys map dist/<path>.js back to <path>.ts only for <root>/dist (scripts/build.mjs's default --out).
    if (!scanner.isCompiled(fileURLToPath(import.meta.url))) throw new Error(`a compiled CLI must live in ${scanner.distDir}; rebuild with \`npm run build\``);
    scanner.fingerprint(SESSION_MODULE);
    scanner.fingerprint(url);
  }
  if (!mod) return (await import("./definitions/index.ts")).buildTargets();
  const loaded = (await import(url)) as { buildTargets?: () => TargetRegistry };
  if (!loaded.buildTargets) throw new Error(`${mod} does not export buildTargets()`);
  return loaded.buildTargets();
}

/** Reporters are loaded on demand: a run needs exactly one of them. */
async function reporterFor(kind: "json" | "tty" | "plain", io: CliIO, out: (line: string) => void, verbose: boolean): Promise<EventSink> {
  if (kind === "json") return (await import("./reporters/json.ts")).jsonReporter(out);
  if (kind === "tty") return (await import("./reporters/tty.ts")).ttyReporter(io.stdout);
  return (await import("./reporters/plain.ts")).plainReporter(out, { verbose });
}

export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const out = (line: string) => io.stdout.write(`${line}\n`);
  const err = (line: string) => io.stderr.write(`${line}\n`);
  const failed = (failures: readonly AnalysisFailure[]) => {
    for (const f of failures) err(`error: ${describeFailure(f)}`);
    exitCode = 2;
  };

  const dataOption = () =>
    new Option("--data <source>", "build targets on the mini benchmark or the real datasets of datasets.lock (default: $CSPIPE_DATA or mini)").choices(DATA_SOURCES);
  const program = new Command("cspipe")
    .description("Reproduce 'Saving Dense Retriever from Shortcut Dependency in Conversational Search' as a cached DAG of steps.")
    .option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)")
    .addOption(dataOption())
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });

  // `--store` is accepted before and after the subcommand.
  let subStore: string | undefined;
  let subData: DataSource | undefined;
  const project = async (): Promise<Project> => {
    const store = subStore ?? program.opts<{ store?: string }>().store;
    const data = subData ?? program.opts<{ data?: DataSource }>().data;
    const root = findProjectRoot();
    // One scanner for the staleness check and the keys: each source file is read and hashed once.
    const scanner = new SourceScanner(root);
    return new Project({ root, ...(store ? { store } : {}), ...(data ? { data } : {}), targets: await loadTargets(io.env, root, scanner), env: io.env, scanner });
  };

  const reporter = (json: boolean, verbose: boolean): Promise<EventSink> => reporterFor(json ? "json" : io.stdout.isTTY ? "tty" : "plain", io, out, verbose);

  interface RunFlags {
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
  }
  const runAction = async (targets: string[], flags: RunFlags) => {
    const p = await project();
    const settings: RunSettings = {
      allowCpu: flags.allowCpu,
      offline: flags.offline,
      allowUnpinned: flags.allowUnpinned,
      ...(flags.dataDir ? { dataDir: resolve(flags.dataDir) } : {}),
    };
    const r = await runTargets(p, {
      targets,
      force: flags.force,
      ...(flags.only !== undefined ? { only: flags.only } : {}),
      concurrency: flags.concurrency,
      ...(flags.gpus !== undefined ? { gpus: flags.gpus } : {}),
      failureMode: flags.failureMode,
      verify: flags.verify,
      executor: flags.executor,
      settings,
      emit: await reporter(flags.json, flags.verbose),
    });
    if (r.analysis.length > 0) exitCode = 2;
    else if (!r.ok) exitCode = 1;
    if ("exported" in r) for (const e of r.exported) out(`${e.name}: ${e.path}`);
  };

  const addRunOptions = (c: Command) =>
    c
      .option("--force <step>", "rerun this cached step (repeatable); downstream reruns only if its outputs change", (v: string, prev: string[]) => [...prev, v], [] as string[])
      .option("--only <step>", "run just this step from cached inputs (error if an input is not cached)")
      .option("--concurrency <n>", "steps executed at once", positiveInt, 2)
      .option(...GPUS_OPTION, gpuCount)
      .addOption(new Option("--failure-mode <mode>", "after a failure: stop starting new steps, continue independent ones, or kill running ones").choices(["stop", "continue", "kill"]).default("stop"))
      .option("--json", "JSON event lines on stdout", false)
      .addOption(new Option("--executor <name>", "where container steps run").choices(["local", "dagger", "auto"]).default("auto"))
      .option("--verify", "re-hash cached outputs before trusting them; recompute tampered entries", false)
      .option("--verbose", "print cache hits and step logs", false)
      .option("--data-dir <dir>", "directory holding dataset files placed by hand (verified by sha256)")
      .option("--allow-cpu", "let steps that request a GPU run on CPU", false)
      .option("--offline", "never use the network: fetch steps use files already fetched or placed with --data-dir, else fail naming the URL and sha256", false)
      .option("--allow-unpinned", "let fetch steps accept datasets.lock entries whose sha256 is null (unverified; pin them with 'lock --update <name>')", false);

  addRunOptions(program.command("run").description("run targets (default target when none given)").argument("[targets...]", "target names")).action(runAction);

  program
    .command("plan")
    .description("what a run would do: cached, run, or pending on a step that runs (nothing executes)")
    .argument("[targets...]")
    .option("--force <step>", "treat this step as forced", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option("--json", "JSON output", false)
    .option(...GPUS_OPTION, gpuCount)
    .action(async (targets: string[], flags: { force: string[]; json: boolean; gpus?: number }) => {
      const p = await project();
      const r = await planTargets(p, targets, flags.force);
      if (!r.ok) return failed(r.failures);
      if (flags.json) out(JSON.stringify(r.rows.map(({ step, stepId, status, key }) => ({ step, stepId, status, key }))));
      else {
        for (const row of r.rows) out(`${row.status.padEnd(8)} ${row.step}${row.key ? ` ${row.key.slice(0, 12)}` : ""}`);
        const count = (s: string) => r.rows.filter((x) => x.status === s).length;
        out(`${r.rows.length} steps: ${count("cached")} cached, ${count("run")} to run, ${count("pending")} pending on upstream`);
        if (flags.gpus !== undefined) {
          const g = p.graph(targets);
          if (g.ok) for (const line of gpuPlanLines(g.graph.order, r.rows, flags.gpus)) out(line);
        }
      }
    });

  program
    .command("explain")
    .description("why a step would rerun: the first differing component of its fingerprint")
    .argument("<step>")
    .option("--target <name>", "look the step up in this target (default: the default target, then all)", (v: string, prev: string[]) => [...prev, v], [] as string[])
    .option("--all", "list every differing component, not just the first", false)
    .action(async (step: string, flags: { target: string[]; all: boolean }) => {
      const p = await project();
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
      const p = await project();
      const rows = await listEntries(p);
      if (flags.json) {
        out(JSON.stringify(rows));
        return;
      }
      for (const r of rows) out(`${r.key.slice(0, 12)}  ${humanBytes(r.bytes).padStart(10)}  ${r.created}  ${r.seconds.toFixed(1).padStart(7)} s  ${r.executor.padEnd(10)} ${r.name}`);
      out(`${rows.length} entries, ${humanBytes(rows.reduce((a, r) => a + r.bytes, 0))}`);
    });

  program
    .command("show")
    .description("manifest and fingerprint of an entry, by key prefix or step name")
    .argument("<step-or-key>")
    .action(async (query: string) => {
      const p = await project();
      const entries = await showEntry(p, query);
      if (entries.length === 0) {
        err(`error: no cached entry matches '${query}' (try 'ls')`);
        exitCode = 2;
        return;
      }
      for (const e of entries) {
        out(JSON.stringify({ dir: e.dir, manifest: e.manifest, fingerprint: await p.store.fingerprint(e) }, null, 2));
      }
    });

  program
    .command("gc")
    .description("remove entries not reachable from pinned or recent targets; report bytes freed")
    .option("--keep-runs <n>", "recent runs whose entries are kept", positiveInt, 5)
    .option("--dry-run", "only report", false)
    .option("--scratch", "also remove steps' persistent scratch (abandoned partial downloads); refused while a run is active", false)
    .action(async (flags: { keepRuns: number; dryRun: boolean; scratch: boolean }) => {
      const p = await project();
      const r = await collectGarbage(p, { keepRuns: flags.keepRuns, dryRun: flags.dryRun, scratch: flags.scratch });
      for (const e of r.removed) out(`${flags.dryRun ? "would remove" : "removed"} ${e.key.slice(0, 12)} ${e.manifest.step.name}`);
      const s = r.scratch;
      const scratch = s.removed ? `, ${s.dirs} scratch dirs` : "";
      out(`${flags.dryRun ? "would free" : "freed"} ${humanBytes(r.bytes)} (${r.removed.length} entries, ${r.staging} staging dirs${scratch}); kept ${r.kept} keys`);
      if (s.busy.length > 0) {
        const who = s.busy.map((h) => `pid ${h.pid} on ${h.host}`).join(", ");
        err(`error: scratch kept (${humanBytes(s.bytes)} in ${s.dirs} dirs): a run is active on this store (${who}); rerun gc --scratch when it has finished`);
        exitCode = 1;
      } else if (!s.removed && s.bytes > 0) {
        out(`scratch: ${humanBytes(s.bytes)} in ${s.dirs} dirs kept (partial downloads resume from there); gc --scratch removes them`);
      }
    });

  program
    .command("pin")
    .description("keep a target's current entries through gc under a name")
    .argument("<name>")
    .argument("<target>")
    .action(async (name: string, target: string) => {
      const p = await project();
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

  program
    .command("targets")
    .description("list targets")
    .action(async () => {
      const p = await project();
      for (const t of p.targets.list()) out(`${t.name === p.targets.default ? "*" : " "} ${t.name.padEnd(24)} ${t.description}`);
    });

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

  // No subcommand: run the default target.
  addRunOptions(program).action(async (flags: RunFlags) => runAction([], flags));

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
