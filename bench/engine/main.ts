/**
 * Engine benchmark: a synthetic DAG of cheap steps (default 20 layers x 10 = 200, fan-in 2;
 * see shape.ts), cold run and no-op rerun, side by side with the same DAG as a Snakemake
 * workflow (snakemake/Snakefile) when `snakemake` is installed.
 *
 *   npx tsx bench/engine/main.ts [--repeats 5] [--layers 20] [--width 10] [--keep] [--quick] [--default-store <dir>]
 *   (the 1,000-step DAG of issue 19: --layers 100 --width 10; --quick: 2 repeats;
 *   --default-store: then the real default graph's no-op rerun and plan in that store, noop.ts)
 *
 * First (untimed) `node scripts/build.mjs`: the compiled CLI in dist/. Per repeat, in fresh
 * temp dirs:
 *   cspipe compiled  `node dist/pipeline/main.js run --json --store <dir> dag`
 *                    (CSPIPE_DEFINITIONS=bench/engine/dag.ts, mapped to dist/bench/engine/dag.js),
 *                    wall time of the whole command, plus the engine's own seconds from its
 *                    `finished` event
 *   cspipe ./cspipe  the documented command (`node cspipe run ...`: the launcher, which compiles
 *                    the sources into .cspipe/builds/ when they changed; its first, untimed warm-up
 *                    run compiles), wall time plus the engine's seconds
 *   cspipe tsx       the same through `node --import tsx pipeline/main.ts`; its store then gets
 *                    a compiled no-op rerun, which must find all steps cached (one key for both)
 *   cspipe session   inprocess.ts in a child: Project + runTargets timed in-process
 *                    (analysis, keys, lookups, execution, run record; no start-up)
 *   snakemake        `snakemake -j2 --quiet --force-use-threads` (run: blocks as threads,
 *                    like cspipe's in-process steps; without it every job starts a new
 *                    Snakemake process, ~1.4 s each here), wall time of the whole command
 *   floors           `node -e 0`, `node` of the compiled empty module, `node --import tsx` of
 *                    the empty module
 * One untimed warm-up repeat first (tsx's transform cache, page cache).
 * Every system's outputs are checked against the reference texts of shape.ts.
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { checkShape, expectedTexts, stepCount, type DagShape } from "./shape.ts";
import { finishedEvent, median, ratio, renderTable, type Series } from "./stats.ts";
import type { InProcessResult } from "./inprocess.ts";
import { benchDefaultNoop } from "./noop.ts";

const ROOT = findProjectRoot(dirname(fileURLToPath(import.meta.url)));
const HERE = join(ROOT, "bench", "engine");
const CLI = join(ROOT, "pipeline", "main.ts");
const COMPILED_CLI = join(ROOT, "dist", "pipeline", "main.js");
const LAUNCHER = join(ROOT, "cspipe");
const BUILD = join(ROOT, "scripts", "build.mjs");
const DAG = join(HERE, "dag.ts");
const INPROCESS = join(HERE, "inprocess.ts");
const EMPTY = join(HERE, "empty.ts");
const COMPILED_EMPTY = join(ROOT, "dist", "bench", "engine", "empty.js");
const SNAKEFILE = join(HERE, "snakemake", "Snakefile");
const TIMEOUT_MS = 10 * 60 * 1000;

const GOAL_RATIO = 2;
const GOAL_NOOP_SECONDS = 0.5;
/** Issue 19, for the 1,000-step DAG: the documented command's no-op rerun, whole command and engine. */
const GOAL_COMMAND_SECONDS = 0.6;
const GOAL_ENGINE_SECONDS = 0.3;

interface Timed {
  readonly seconds: number;
  readonly result: SpawnSyncReturns<string>;
}

function timedSpawn(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env, cwd = ROOT): Timed {
  const t0 = performance.now();
  const result = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  const seconds = (performance.now() - t0) / 1000;
  if (result.error) throw new Error(`${cmd} ${args.join(" ")}: ${result.error.message}`);
  if (result.status !== 0) {
    const tail = `${result.stderr}\n${result.stdout}`.trim().split("\n").slice(-8).join("\n");
    throw new Error(`${cmd} ${args.join(" ")} exited with ${result.status ?? result.signal}:\n${tail}`);
  }
  return { seconds, result };
}

type Cli = "compiled" | "tsx" | "command";
const CLI_ARGV: Record<Cli, readonly string[]> = { compiled: [COMPILED_CLI], tsx: ["--import", "tsx", CLI], command: [LAUNCHER] };

function cspipeCommand(cli: Cli, shape: DagShape, store: string, expect: "cold" | "noop"): { wall: number; engine: number } {
  const env = { ...process.env, CSPIPE_DEFINITIONS: DAG, CSPIPE_BENCH_LAYERS: String(shape.layers), CSPIPE_BENCH_WIDTH: String(shape.width) };
  const t = timedSpawn(process.execPath, [...CLI_ARGV[cli], "run", "--json", "--store", store, "dag"], env);
  const f = finishedEvent(t.result.stdout);
  const n = stepCount(shape);
  const ok = expect === "cold" ? f.executed === n : f.executed === 0 && f.cached === n;
  if (!ok) throw new Error(`cspipe ${cli} ${expect} run: ${f.executed} executed, ${f.cached} cached of ${n}`);
  return { wall: t.seconds, engine: f.seconds };
}

function cspipeSession(shape: DagShape, store: string): InProcessResult {
  const t = timedSpawn(process.execPath, ["--import", "tsx", INPROCESS, "--store", store, "--layers", String(shape.layers), "--width", String(shape.width)]);
  return JSON.parse(t.result.stdout.trim().split("\n").pop()!) as InProcessResult;
}

function snakemakeVersion(): string | undefined {
  const r = spawnSync("snakemake", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function snakemake(shape: DagShape, workdir: string): number {
  const args = ["-j2", "--quiet", "all", "--force-use-threads", "-s", SNAKEFILE, "-d", workdir, "--config", `layers=${shape.layers}`, `width=${shape.width}`];
  return timedSpawn("snakemake", args, process.env, workdir).seconds;
}

/** Snakemake's outputs must equal the reference texts; returns their mtimes (to prove a no-op touched nothing). */
function checkSnakemakeOutputs(shape: DagShape, workdir: string): Map<string, number> {
  const mtimes = new Map<string, number>();
  for (const [name, text] of expectedTexts(shape)) {
    const path = join(workdir, "out", `${name}.txt`);
    const actual = readFileSync(path, "utf8");
    if (actual !== text) throw new Error(`snakemake step ${name} wrote ${JSON.stringify(actual)}, expected ${JSON.stringify(text)}`);
    mtimes.set(name, statSync(path).mtimeMs);
  }
  return mtimes;
}

interface Samples {
  cliCold: number[];
  cliNoop: number[];
  engineCold: number[];
  engineNoop: number[];
  tsxCold: number[];
  tsxNoop: number[];
  sessionCold: number[];
  sessionNoop: number[];
  cmdCold: number[];
  cmdNoop: number[];
  cmdEngineNoop: number[];
  smCold: number[];
  smNoop: number[];
  nodeFloor: number[];
  compiledFloor: number[];
  tsxFloor: number[];
}

function emptySamples(): Samples {
  return { cliCold: [], cliNoop: [], engineCold: [], engineNoop: [], tsxCold: [], tsxNoop: [], sessionCold: [], sessionNoop: [], cmdCold: [], cmdNoop: [], cmdEngineNoop: [], smCold: [], smNoop: [], nodeFloor: [], compiledFloor: [], tsxFloor: [] };
}

/** A system's cold run and no-op rerun, in a store (or work directory) of its own under `base`, recorded in the samples. */
interface System {
  readonly name: string;
  readonly run: (shape: DagShape, base: string, s: Samples) => void;
}

/** Cold run then no-op rerun of one CLI in a fresh store. */
function coldAndNoop(cli: Cli, shape: DagShape, store: string): { cold: { wall: number; engine: number }; noop: { wall: number; engine: number } } {
  return { cold: cspipeCommand(cli, shape, store, "cold"), noop: cspipeCommand(cli, shape, store, "noop") };
}

const CSPIPE_SYSTEMS: readonly System[] = [
  {
    name: "cspipe compiled",
    run: (shape, base, s) => {
      const { cold, noop } = coldAndNoop("compiled", shape, join(base, "cspipe-compiled"));
      s.cliCold.push(cold.wall);
      s.engineCold.push(cold.engine);
      s.cliNoop.push(noop.wall);
      s.engineNoop.push(noop.engine);
    },
  },
  {
    name: "cspipe tsx",
    run: (shape, base, s) => {
      const store = join(base, "cspipe-tsx");
      const { cold, noop } = coldAndNoop("tsx", shape, store);
      // The compiled CLI computes the same keys: everything the tsx run stored is a hit.
      cspipeCommand("compiled", shape, store, "noop");
      s.tsxCold.push(cold.wall);
      s.tsxNoop.push(noop.wall);
    },
  },
  {
    name: "cspipe ./cspipe",
    run: (shape, base, s) => {
      const { cold, noop } = coldAndNoop("command", shape, join(base, "cspipe-command"));
      s.cmdCold.push(cold.wall);
      s.cmdNoop.push(noop.wall);
      s.cmdEngineNoop.push(noop.engine);
    },
  },
  {
    name: "cspipe session",
    run: (shape, base, s) => {
      const r = cspipeSession(shape, join(base, "cspipe-session"));
      s.sessionCold.push(r.cold.seconds);
      s.sessionNoop.push(r.noop.seconds);
    },
  },
];

/** Snakemake's cold run and no-op rerun, its outputs checked against the reference texts both times and left untouched by the rerun. */
const SNAKEMAKE: System = {
  name: "snakemake",
  run: (shape, base, s) => {
    const workdir = join(base, "snakemake");
    mkdirSync(workdir, { recursive: true });
    const cold = snakemake(shape, workdir);
    const before = checkSnakemakeOutputs(shape, workdir);
    const noop = snakemake(shape, workdir);
    const after = checkSnakemakeOutputs(shape, workdir);
    for (const [name, m] of before) if (after.get(name) !== m) throw new Error(`snakemake no-op rerun rewrote ${name}`);
    s.smCold.push(cold);
    s.smNoop.push(noop);
  },
};

/** The floors, then every system in turn; a system that failed once is skipped from then on (its error kept). */
function repeatOnce(shape: DagShape, base: string, hasSnakemake: boolean, s: Samples, errors: Map<string, string>): void {
  s.nodeFloor.push(timedSpawn(process.execPath, ["-e", "0"]).seconds);
  s.compiledFloor.push(timedSpawn(process.execPath, [COMPILED_EMPTY]).seconds);
  s.tsxFloor.push(timedSpawn(process.execPath, ["--import", "tsx", EMPTY]).seconds);
  for (const system of hasSnakemake ? [...CSPIPE_SYSTEMS, SNAKEMAKE] : CSPIPE_SYSTEMS) {
    if (errors.has(system.name)) continue;
    try {
      system.run(shape, base, s);
    } catch (e) {
      errors.set(system.name, (e as Error).message);
    }
  }
}

/** The table's rows: each measurement's samples, marked FAILED where its system failed. */
function seriesOf(s: Samples, errors: ReadonlyMap<string, string>, withSnakemake: boolean): Series[] {
  const note = (system: string) => (errors.has(system) ? { note: "FAILED" } : {});
  return [
    { label: "cspipe cold, compiled command", seconds: s.cliCold, ...note("cspipe compiled") },
    { label: "cspipe cold, tsx command", seconds: s.tsxCold, ...note("cspipe tsx") },
    { label: "cspipe cold, engine (finished event)", seconds: s.engineCold, ...note("cspipe compiled") },
    { label: "cspipe cold, session API in-process", seconds: s.sessionCold, ...note("cspipe session") },
    { label: "cspipe cold, ./cspipe (documented command)", seconds: s.cmdCold, ...note("cspipe ./cspipe") },
    { label: "cspipe no-op, compiled command", seconds: s.cliNoop, ...note("cspipe compiled") },
    { label: "cspipe no-op, ./cspipe (documented command)", seconds: s.cmdNoop, ...note("cspipe ./cspipe") },
    { label: "cspipe no-op, ./cspipe, engine (finished event)", seconds: s.cmdEngineNoop, ...note("cspipe ./cspipe") },
    { label: "cspipe no-op, tsx command", seconds: s.tsxNoop, ...note("cspipe tsx") },
    { label: "cspipe no-op, engine (finished event)", seconds: s.engineNoop, ...note("cspipe compiled") },
    { label: "cspipe no-op, session API in-process", seconds: s.sessionNoop, ...note("cspipe session") },
    ...(withSnakemake
      ? [
          { label: "snakemake cold, whole command", seconds: s.smCold, ...note("snakemake") },
          { label: "snakemake no-op, whole command", seconds: s.smNoop, ...note("snakemake") },
        ]
      : []),
    { label: "floor: node -e 0", seconds: s.nodeFloor },
    { label: "floor: node (compiled empty module)", seconds: s.compiledFloor },
    { label: "floor: node --import tsx (empty module)", seconds: s.tsxFloor },
  ];
}

/** The ratios of medians (tsx and Snakemake against cspipe) and the goals, met or not. */
function writeRatiosAndGoals(s: Samples, withSnakemake: boolean, n: number): void {
  const cliNoop: Series = { label: "", seconds: s.cliNoop };
  const x = (v: number) => (Number.isNaN(v) ? "-" : `${v.toFixed(2)}x`);
  process.stdout.write(`tsx/compiled, no-op (whole command, medians): ${x(ratio({ label: "", seconds: s.tsxNoop }, cliNoop))}\n`);
  if (withSnakemake) {
    const r = ratio({ label: "", seconds: s.smNoop }, cliNoop);
    process.stdout.write(`snakemake/cspipe compiled, no-op (whole command, medians): ${x(r)}\n`);
    process.stdout.write(`snakemake/cspipe tsx,      no-op (whole command, medians): ${x(ratio({ label: "", seconds: s.smNoop }, { label: "", seconds: s.tsxNoop }))}\n`);
    process.stdout.write(`snakemake/./cspipe,        no-op (whole command, medians): ${x(ratio({ label: "", seconds: s.smNoop }, { label: "", seconds: s.cmdNoop }))}\n`);
    process.stdout.write(`snakemake/cspipe compiled, cold  (whole command, medians): ${x(ratio({ label: "", seconds: s.smCold }, { label: "", seconds: s.cliCold }))}\n`);
    process.stdout.write(`goal: no-op >= ${GOAL_RATIO}x faster than snakemake (compiled command): ${Number.isNaN(r) ? "unknown" : r >= GOAL_RATIO ? "MET" : "NOT MET"}\n`);
  } else {
    process.stdout.write("snakemake is not installed (apt-get install -y snakemake): cspipe only, no ratio\n");
  }
  const m = median(s.cliNoop);
  process.stdout.write(`goal: no-op under ${GOAL_NOOP_SECONDS} s (compiled command, median): ${Number.isNaN(m) ? "unknown" : m < GOAL_NOOP_SECONDS ? "MET" : "NOT MET"} (${Number.isNaN(m) ? "-" : m.toFixed(3)} s)\n`);
  const cm = median(s.cmdNoop);
  const ce = median(s.cmdEngineNoop);
  const verdict = (v: number, goal: number) => (Number.isNaN(v) ? "unknown" : v < goal ? "MET" : "NOT MET");
  process.stdout.write(`goal: ./cspipe no-op under ${GOAL_COMMAND_SECONDS} s as a whole command (median, ${n} steps; issue 19 asks it at 1,000): ${verdict(cm, GOAL_COMMAND_SECONDS)} (${Number.isNaN(cm) ? "-" : cm.toFixed(3)} s)\n`);
  process.stdout.write(`goal: ./cspipe no-op engine time under ${GOAL_ENGINE_SECONDS} s (median, ${n} steps): ${verdict(ce, GOAL_ENGINE_SECONDS)} (${Number.isNaN(ce) ? "-" : ce.toFixed(3)} s)\n`);
}

function main(): void {
  const { values } = parseArgs({
    options: {
      repeats: { type: "string" },
      quick: { type: "boolean", default: false },
      layers: { type: "string", default: "20" },
      width: { type: "string", default: "10" },
      keep: { type: "boolean", default: false },
      "default-store": { type: "string" },
    },
  });
  const repeats = Number(values.repeats ?? (values.quick ? 2 : 5));
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, got ${values.repeats}`);
  const shape = checkShape({ layers: Number(values.layers), width: Number(values.width) }, "args");
  const smVersion = snakemakeVersion();
  const n = stepCount(shape);
  const b = timedSpawn(process.execPath, [BUILD, "--quiet"]);
  process.stdout.write(`built dist/ (node scripts/build.mjs) in ${b.seconds.toFixed(2)} s\n`);
  process.stdout.write(`engine benchmark: ${n} steps (${shape.layers} layers x ${shape.width}, fan-in 2), ${repeats} repeats + 1 warm-up, node ${process.version}, snakemake ${smVersion ?? "not installed"}\n`);

  const s = emptySamples();
  const errors = new Map<string, string>();
  for (let r = 0; r <= repeats; r++) {
    const base = mkdtempSync(join(tmpdir(), "cspipe-bench-engine-"));
    try {
      const target = r === 0 ? emptySamples() : s;
      repeatOnce(shape, base, smVersion !== undefined, target, errors);
      process.stdout.write(`  ${r === 0 ? "warm-up" : `repeat ${r}/${repeats}`} done${values.keep ? ` (${base})` : ""}\n`);
    } finally {
      if (!values.keep) rmSync(base, { recursive: true, force: true });
    }
  }
  process.stdout.write(`\n${renderTable(seriesOf(s, errors, Boolean(smVersion)))}\n\n`);
  for (const [system, message] of errors) process.stdout.write(`${system} FAILED: ${message}\n\n`);
  writeRatiosAndGoals(s, Boolean(smVersion), n);
  if (errors.size > 0) process.exitCode = 1;
  if (values["default-store"] !== undefined && !benchDefaultNoop(values["default-store"], repeats)) process.exitCode = 1;
}

main();
