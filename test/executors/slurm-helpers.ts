/**
 * For the tests against a real Slurm cluster (test/executors/slurm-*.test.ts): the cluster
 * check that fails (never skips) without one, the CLI in a child process with JSON events,
 * a cspipe.slurm.json with short polls, and squeue/sacct queries.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT, tempDir } from "../engine/helpers.ts";

export { ROOT, tempDir };

export const FIXTURE = join(ROOT, "test", "fixtures", "slurm", "targets.ts");
const MAIN = join(ROOT, "pipeline", "main.ts");
export const CLUSTER_SCRIPT = join(ROOT, "scripts", "slurm-cluster.sh");

/** SLURM_CONF of a cluster that answers; otherwise an error naming the fix (the Slurm tests fail, they never skip). */
export function requireCluster(): string {
  const conf = process.env.SLURM_CONF;
  const fix = 'Fix: start the test cluster and export its SLURM_CONF: eval "$(bash scripts/slurm-cluster.sh up /tmp/cspipe-slurm)" (as root, after scripts/setup.sh installed Slurm; .ci/run does both)';
  if (!conf) throw new Error(`SLURM_CONF is unset, and the Slurm executor's tests need a cluster. ${fix}`);
  if (!existsSync(conf)) throw new Error(`SLURM_CONF=${conf} does not exist. ${fix}`);
  const r = spawnSync("sinfo", ["-h", "-N", "-o", "%N %t"], { encoding: "utf8", timeout: 30_000 });
  if (r.error || r.status !== 0) throw new Error(`sinfo cannot reach the cluster of SLURM_CONF=${conf}: ${(r.stderr || String(r.error)).trim()}. ${fix}`);
  return conf;
}

/** The directory of the test cluster (scripts/slurm-cluster.sh keeps slurm.conf there). */
export const clusterDir = (): string => dirname(requireCluster());

/** A cspipe.slurm.json for tests: polls every 0.3 s, short graces. */
export function slurmConfig(dir: string, extra: Record<string, unknown> = {}): string {
  const path = join(dir, "cspipe.slurm.json");
  writeFileSync(path, JSON.stringify({ pollSeconds: 0.3, exitFileGraceSeconds: 5, submitBackoffSeconds: 0.5, ...extra }));
  return path;
}

export interface Event {
  readonly type: string;
  readonly step?: string;
  readonly [k: string]: unknown;
}

export interface Cli {
  readonly child: ChildProcess;
  readonly events: Event[];
  readonly code: Promise<number | null>;
  until(pred: (e: Event) => boolean): Promise<Event>;
  stderr(): string;
}

const spawned: ChildProcess[] = [];
/** Kill CLIs a failed test left running. */
export function killSpawned(): void {
  for (const c of spawned.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
}

/**
 * The CLI with --json in a child process. `compiled`: through ./cspipe (the build its jobs run
 * too, seconds faster per job than tsx); else under tsx, as the fixtures' definitions need.
 */
export function cli(args: readonly string[], env: Record<string, string>, options: { compiled?: boolean } = {}): Cli {
  const argv = options.compiled ? [join(ROOT, "cspipe"), ...args, "--json"] : ["--import", "tsx", MAIN, ...args, "--json"];
  const child = spawn(process.execPath, argv, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  spawned.push(child);
  const events: Event[] = [];
  const waiters: { pred: (e: Event) => boolean; resolve: (e: Event) => void }[] = [];
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    let ev: Event;
    try {
      ev = JSON.parse(line) as Event;
    } catch {
      err += `(stdout) ${line}\n`;
      return;
    }
    events.push(ev);
    for (const w of [...waiters]) {
      if (!w.pred(ev)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(ev);
    }
  });
  const code = new Promise<number | null>((r) => child.on("close", (c, sig) => r(c ?? (sig ? -1 : null))));
  return {
    child,
    events,
    code,
    until: (pred) => {
      const hit = events.find(pred);
      return hit ? Promise.resolve(hit) : new Promise((resolve) => waiters.push({ pred, resolve }));
    },
    stderr: () => err,
  };
}

/** Jobs of the cluster still queued or running whose name starts with `prefix` (squeue's default states). */
export function queuedJobs(prefix: string): string[] {
  const r = spawnSync("squeue", ["-h", "-o", "%i %j %T"], { encoding: "utf8", timeout: 30_000 });
  if (r.status !== 0) throw new Error(`squeue failed: ${r.stderr}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.split(" ")[1]?.startsWith(prefix))
    .map((l) => l.trim());
}

/** sacct's State and AllocTRES of a job. */
export function accounting(id: string): { state: string; tres: string } {
  for (let i = 0; i < 40; i++) {
    const r = spawnSync("sacct", ["-X", "-n", "-P", "-j", id, "-o", "State,AllocTRES"], { encoding: "utf8", timeout: 30_000 });
    const line = r.stdout.trim().split("\n").pop() ?? "";
    const [state, tres] = line.split("|");
    // slurmdbd records a finished job shortly after the controller.
    if (state && !/RUNNING|PENDING|COMPLETING/.test(state)) return { state, tres: tres ?? "" };
    spawnSync("sleep", ["0.5"]);
  }
  throw new Error(`sacct does not know job ${id} as finished`);
}

/** Every manifest of a store, by step name. */
export function manifests(store: string): Map<string, { key: string; executor: string; tools: Record<string, string> }> {
  const out = new Map<string, { key: string; executor: string; tools: Record<string, string> }>();
  const root = join(store, "entries");
  for (const id of existsSync(root) ? readdirSync(root) : []) {
    for (const key of readdirSync(join(root, id))) {
      const m = JSON.parse(readFileSync(join(root, id, key, "manifest.json"), "utf8")) as { key: string; executor: string; tools: Record<string, string>; step: { name: string } };
      out.set(m.step.name, m);
    }
  }
  return out;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
