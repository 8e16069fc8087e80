/**
 * The real default graph's no-op rerun (and `plan`) through the documented command, with where
 * its time goes, beside the synthetic DAG of main.ts (issue 34 item 3: the synthetic graph has no
 * program steps and no export, so it missed what a real no-op rerun paid for).
 *
 *   npx tsx bench/engine/noop.ts --store <a store holding the default target, fully cached> [--repeats 5] [--quick]
 *   npx tsx bench/engine/main.ts ... --default-store <dir>   (the same, after the synthetic DAG)
 *
 * Refuses a store where `plan` finds any step to run (the default target takes ~30 minutes cold:
 * build one with `./cspipe --store <dir>` first). The store is used as a no-op rerun uses it
 * (a run record per run; stamps refreshed); exports go to a temporary directory. One untimed
 * warm-up (`./cspipe` compiles if the sources changed; the export is copied once), then per
 * repeat: the floor `node -e 0`, `node cspipe plan <target>` and `node cspipe run --json
 * <target>`, each with CSPIPE_PHASES (pipeline/engine/phases.ts) so the commands themselves say
 * where their time went. Prints medians: the whole command, each phase (wall and CPU), the
 * engine's own seconds (`finished` event), the source fingerprints, and the ratio to the floor.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { PhaseReport } from "../../pipeline/engine/phases.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { finishedEvent, median } from "./stats.ts";

const ROOT = findProjectRoot();
const LAUNCHER = join(ROOT, "cspipe");
const GOAL_SECONDS = 1;

/** One phase of a command: from the previous mark (or the process's time origin) to its own. */
export interface PhaseTime {
  readonly phase: string;
  readonly wallMs: number;
  readonly cpuMs: number;
}

/**
 * A command's phases from its marks and its wall time as the parent saw it (pure): "start" up to
 * the first mark (Node's start-up and the launcher's own loading), one row per mark, and "outside"
 * for what the parent waited beyond the last mark (spawn, exit, teardown).
 */
export function phaseTimes(report: PhaseReport, wallMs: number): PhaseTime[] {
  const rows: PhaseTime[] = [];
  let at = 0;
  let cpu = 0;
  for (const m of report.marks) {
    rows.push({ phase: rows.length === 0 ? "start" : m.name, wallMs: m.atMs - at, cpuMs: m.cpuMs - cpu });
    at = m.atMs;
    cpu = m.cpuMs;
  }
  rows.push({ phase: "outside", wallMs: wallMs - at, cpuMs: Number.NaN });
  return rows;
}

interface Measured {
  readonly wallMs: number;
  readonly phases: PhaseTime[];
  readonly fingerprintMs: number;
  readonly stdout: string;
}

function measure(args: readonly string[], phasesFile: string): Measured {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [LAUNCHER, ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CSPIPE_PHASES: phasesFile }, maxBuffer: 64 * 1024 * 1024 });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`./cspipe ${args.join(" ")} exited with ${r.status ?? r.signal}:\n${`${r.stderr}\n${r.stdout}`.trim().split("\n").slice(-8).join("\n")}`);
  const report = JSON.parse(readFileSync(phasesFile, "utf8")) as PhaseReport;
  return { wallMs, phases: phaseTimes(report, wallMs), fingerprintMs: report.fingerprintMs, stdout: r.stdout };
}

function floorMs(): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ["-e", "0"]);
  return performance.now() - t0;
}

/** Steps `plan` would run in `store` (none: a no-op rerun). */
function toRun(store: string, target: string): number {
  const r = spawnSync(process.execPath, [LAUNCHER, "plan", target, "--store", store, "--format", "json"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`plan ${target} --store ${store} failed:\n${r.stderr}`);
  const nodes = (JSON.parse(r.stdout) as { nodes: { status: string }[] }).nodes;
  return nodes.filter((n) => n.status !== "cached").length;
}

function table(title: string, runs: readonly Measured[]): string {
  const names = runs[0]!.phases.map((p) => p.phase);
  const med = (f: (m: Measured) => number) => median(runs.map(f));
  const ms = (v: number) => (Number.isNaN(v) ? "-" : v.toFixed(0));
  const lines = [`${title}: whole command ${ms(med((m) => m.wallMs))} ms (median of ${runs.length}; min ${ms(Math.min(...runs.map((m) => m.wallMs)))})`, "  phase            wall ms   CPU ms"];
  for (const [i, name] of names.entries()) lines.push(`  ${name.padEnd(15)} ${ms(med((m) => m.phases[i]?.wallMs ?? Number.NaN)).padStart(8)} ${ms(med((m) => m.phases[i]?.cpuMs ?? Number.NaN)).padStart(8)}`);
  lines.push(`  (source fingerprints, within the phases above: ${ms(med((m) => m.fingerprintMs))} ms)`);
  return lines.join("\n");
}

/** Measures and prints; returns false when the store is not a no-op for the target. */
export function benchDefaultNoop(store: string, repeats: number, target = "report"): boolean {
  const pending = toRun(store, target);
  if (pending > 0) {
    process.stdout.write(`default-graph no-op: ${store} is not fully cached for '${target}' (${pending} steps would run); build it first with ./cspipe --store ${store} (~30 min cold)\n`);
    return false;
  }
  const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-noop-"));
  try {
    const phases = join(dir, "phases.json");
    const runArgs = ["run", target, "--json", "--store", store, "--export-dir", join(dir, "export")];
    measure(runArgs, phases); // warm-up: compiles if needed, copies the export once
    const floors: number[] = [];
    const plans: Measured[] = [];
    const runs: Measured[] = [];
    const engine: number[] = [];
    for (let r = 0; r < repeats; r++) {
      floors.push(floorMs());
      plans.push(measure(["plan", target, "--store", store], phases));
      const run = measure(runArgs, phases);
      const f = finishedEvent(run.stdout);
      if (f.executed !== 0) throw new Error(`the no-op rerun executed ${f.executed} steps`);
      engine.push(f.seconds * 1000);
      runs.push(run);
    }
    const floor = median(floors);
    const steps = finishedEvent(runs[0]!.stdout).cached;
    process.stdout.write(`\ndefault graph (${target}, ${steps} steps, all cached), ${repeats} repeats + 1 warm-up, node ${process.version}\n`);
    process.stdout.write(`floor: node -e 0 ${floor.toFixed(0)} ms (median)\n\n`);
    process.stdout.write(`${table("./cspipe plan", plans)}\n\n${table("./cspipe run (no-op rerun)", runs)}\n`);
    process.stdout.write(`  (engine, its finished event: ${median(engine).toFixed(0)} ms)\n\n`);
    const whole = median(runs.map((m) => m.wallMs));
    process.stdout.write(`no-op rerun / node -e 0: ${(whole / floor).toFixed(1)}x; plan / node -e 0: ${(median(plans.map((m) => m.wallMs)) / floor).toFixed(1)}x\n`);
    process.stdout.write(`goal: no-op rerun of the default target under ${GOAL_SECONDS} s (median, whole command): ${whole < GOAL_SECONDS * 1000 ? "MET" : "NOT MET"} (${(whole / 1000).toFixed(3)} s)\n`);
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { store: { type: "string" }, repeats: { type: "string" }, quick: { type: "boolean", default: false }, target: { type: "string", default: "report" } } });
  if (!values.store) throw new Error("--store <dir> (a store holding the default target, fully cached) is required");
  const repeats = Number(values.repeats ?? (values.quick ? 2 : 5));
  if (!Number.isInteger(repeats) || repeats < 1) throw new Error(`--repeats must be a positive integer, got ${values.repeats}`);
  process.exitCode = benchDefaultNoop(values.store, repeats, values.target) ? 0 : 1;
}
