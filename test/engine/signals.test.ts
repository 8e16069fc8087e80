/**
 * Stopping is not a crash: SIGINT/SIGTERM stop the training child (its whole process
 * group), release leases, clean staging, record the run as interrupted and exit 130/143;
 * a second Ctrl-C kills at once. A lease holder paused by SIGSTOP keeps its leases.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT, tempDir } from "./helpers.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "store-targets.ts");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// A failed or timed-out test must not leave its CLI or the trainer it started (in a process
// group of its own; the stubborn one runs until killed) behind: the test process would wait
// for them forever and hang the suite.
const spawned: ChildProcess[] = [];
const pidfiles: string[] = [];
afterEach(() => {
  for (const c of spawned.splice(0)) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    c.kill("SIGCONT");
    c.kill("SIGKILL");
  }
  for (const f of pidfiles.splice(0)) {
    const pid = existsSync(f) ? Number(readFileSync(f, "utf8")) : 0;
    if (!(pid > 0)) continue;
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        /* gone already */
      }
    }
  }
});

interface Cli {
  readonly child: ChildProcess;
  readonly events: { type: string; step?: string; [k: string]: unknown }[];
  readonly code: Promise<number | null>;
  /** Resolves when an event matching `pred` has arrived. */
  until(pred: (e: { type: string; step?: string }) => boolean): Promise<void>;
  output(): string;
}

function cli(args: string[], env: Record<string, string> = {}): Cli {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: DEFS, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  spawned.push(child);
  const events: Cli["events"] = [];
  const waiters: { pred: (e: { type: string }) => boolean; resolve: () => void }[] = [];
  let text = "";
  child.stderr!.on("data", (d: Buffer) => (text += d.toString()));
  createInterface({ input: child.stdout! }).on("line", (line) => {
    text += `${line}\n`;
    const ev = JSON.parse(line) as Cli["events"][number]; // --json: every line must be JSON
    events.push(ev);
    for (const w of [...waiters]) {
      if (!w.pred(ev)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  });
  const code = new Promise<number | null>((r) => child.on("close", (c, sig) => r(c ?? (sig ? -1 : null))));
  return {
    child,
    events,
    code,
    until: (pred) => (events.some(pred) ? Promise.resolve() : new Promise((resolve) => waiters.push({ pred, resolve }))),
    output: () => text,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie still answers kill(0): it has exited.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** The trainer's pid once it has written it (the file exists before its content does; a loaded machine starts node slowly). */
async function trainerPid(pidfile: string): Promise<number> {
  pidfiles.push(pidfile);
  const read = () => (existsSync(pidfile) ? Number(readFileSync(pidfile, "utf8")) : 0);
  for (let i = 0; i < 1200 && !(read() > 0); i++) await sleep(25);
  const pid = read();
  assert.ok(pid > 0 && alive(pid), "the trainer runs");
  return pid;
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 40 && alive(pid); i++) await sleep(50);
  return !alive(pid);
}

const listing = (d: string) => (existsSync(d) ? readdirSync(d) : []);

function runRecords(store: string): { status?: string; steps: Record<string, { key: string }> }[] {
  return listing(join(store, "runs"))
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(store, "runs", n), "utf8")) as { status?: string; steps: Record<string, { key: string }> });
}

for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  test(`${signal} mid-training: the trainer is stopped, leases and staging released, the run recorded as interrupted, exit ${code}`, { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const store = join(dir, "store");
    const pidfile = join(dir, "trainer.pid");
    const run = cli(["--store", store, "run", "train", "--json"], { CSPIPE_TEST_PIDFILE: pidfile });
    await run.until((e) => e.type === "started" && e.step === "train");
    const pid = await trainerPid(pidfile);
    run.child.kill(signal);
    assert.equal(await run.code, code, run.output());
    assert.ok(await gone(pid), "the training child was stopped with the run");
    assert.deepEqual(listing(join(store, "leases")), []);
    assert.deepEqual(listing(join(store, "staging")), []);
    const records = runRecords(store);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.status, "interrupted");
    assert.deepEqual(Object.keys(records[0]!.steps), ["prepare"], "the finished step is recorded (gc keeps it)");
    const finished = run.events.find((e) => e.type === "finished");
    assert.equal(finished?.interrupted, signal);
  });
}

test("a second Ctrl-C kills at once, even a child that ignores SIGTERM", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const store = join(dir, "store");
  const pidfile = join(dir, "trainer.pid");
  const run = cli(["--store", store, "run", "stubborn", "--json"], { CSPIPE_TEST_PIDFILE: pidfile });
  await run.until((e) => e.type === "started" && e.step === "train");
  const pid = await trainerPid(pidfile);
  run.child.kill("SIGINT");
  await run.until((e) => e.type === "log" && (e as { line?: string }).line === "ignoring SIGTERM");
  assert.ok(alive(pid), "the child ignored the polite stop");
  const t0 = Date.now();
  run.child.kill("SIGINT");
  assert.equal(await run.code, 130, run.output());
  assert.ok(Date.now() - t0 < 4000, "exited at once, without waiting for the stop grace period");
  assert.ok(await gone(pid), "the child was killed");
  assert.deepEqual(listing(join(store, "leases")), [], "its leases were removed on the way out");
});

test("a lease holder paused by SIGSTOP keeps its lease on this host, however old its heartbeat", { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const store = join(dir, "store");
  const counter = join(dir, "count.log");
  const a = cli(["--store", store, "run", "hold", "--json"], { CSPIPE_TEST_COUNTER: counter });
  await a.until((e) => e.type === "started");
  a.child.kill("SIGSTOP");
  try {
    // As if it had been suspended for a minute: its heartbeat stopped long ago.
    for (const n of listing(join(store, "leases"))) utimesSync(join(store, "leases", n), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    const b = cli(["--store", store, "run", "hold", "--json"], { CSPIPE_TEST_COUNTER: counter });
    await b.until((e) => e.type === "waiting");
    await sleep(1500);
    assert.equal(b.events.filter((e) => e.type === "started").length, 0, "the second run waits instead of taking the lease");
    a.child.kill("SIGCONT");
    assert.equal(await a.code, 0, a.output());
    assert.equal(await b.code, 0, b.output());
    assert.deepEqual(readFileSync(counter, "utf8").trim().split("\n").map((l) => l.split(" ")[0]), ["hold"], "computed once");
  } finally {
    a.child.kill("SIGCONT");
  }
});
