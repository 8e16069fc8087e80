/**
 * Warm interpreters (pipeline/executors/warm-python.ts): a program forked from a zygote behaves as
 * the same program started cold (argv, directory, environment, output, exit status, signals,
 * tracebacks), stops when its stand-in is stopped or killed, starts cold when no zygote can
 * serve it, and computes the same bytes under the same key as a cold start.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { use } from "../../pipeline/engine/step.ts";
import type { ContainerRuntime } from "../../pipeline/engine/step.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { coldReason, WarmPythons, zygoteKey } from "../../pipeline/executors/warm-python.ts";
import { PYTHON } from "../training/python.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";
import { tinyTrainingParams, tinyTrainingStep } from "./tiny-training.ts";

const RT: ContainerRuntime = { type: "container", image: "x", argv: ["python3", "{src}/steps", "m"], pythonModules: ["numpy"] };

test("coldReason: `python3 <path>` programs on one thread and no GPU fork, unless CSPIPE_WARM_PYTHON=0", () => {
  const argv = [PYTHON, "/src/steps", "m"];
  assert.equal(coldReason(argv, RT, {}), undefined);
  assert.equal(coldReason(argv, { ...RT, resources: { cpus: 1 } }, {}), undefined);
  assert.equal(coldReason(argv, RT, { CSPIPE_WARM_PYTHON: "0" }), "CSPIPE_WARM_PYTHON=0");
  assert.equal(coldReason([PYTHON, "-c", "print(1)"], RT, {}), "not run as python3 <path>");
  assert.equal(coldReason([PYTHON], RT, {}), "not run as python3 <path>");
  // Every mini program may use a GPU; given none, it computes on the CPU and forks.
  const optional: ContainerRuntime = { ...RT, gpu: { count: 1, required: false } };
  assert.equal(coldReason(argv, optional, {}), undefined);
  assert.equal(coldReason(argv, optional, {}, []), undefined);
  assert.equal(coldReason(argv, optional, {}, [0]), "it was given a GPU");
  assert.equal(coldReason(argv, { ...RT, resources: { cpus: 4 } }, {}), "it computes on more than one thread");
});

test("zygoteKey: per-run variables share a zygote; anything a library may read at import does not", () => {
  const base = { PATH: "/usr/bin", OPENBLAS_CORETYPE: "Haswell" };
  const k = zygoteKey(PYTHON, ["torch"], base);
  assert.equal(zygoteKey(PYTHON, ["torch"], { ...base, CSPIPE_NUMERICS_IDENTITY: "{}", CSPIPE_DEVICE_HINT: "cpu" }), k);
  assert.notEqual(zygoteKey(PYTHON, ["torch"], { ...base, OPENBLAS_CORETYPE: "Prescott" }), k);
  assert.notEqual(zygoteKey(PYTHON, ["torch"], { ...base, OMP_NUM_THREADS: "2" }), k);
  assert.notEqual(zygoteKey(PYTHON, ["numpy"], base), k);
  assert.notEqual(zygoteKey("/opt/venv/bin/python3", ["torch"], base), k);
});

const src = tempDir("cspipe-warm-");
const PROGRAM = join(src, "prog.py");
writeFileSync(
  PROGRAM,
  [
    "import os, sys, time",
    "print('argv', sys.argv[1:], 'cwd', os.getcwd(), 'X', os.environ.get('X'), 'path0', sys.path[0] == os.path.dirname(__file__), flush=True)",
    "print('pid', os.getpid(), flush=True)",
    "what = sys.argv[1] if len(sys.argv) > 1 else ''",
    "if what == 'fail':",
    "    def inner():",
    "        raise ValueError('boom')",
    "    inner()",
    "if what == 'exit': sys.exit(int(sys.argv[2]))",
    "if what == 'message': sys.exit('a message')",
    "if what == 'sleep':",
    "    open(sys.argv[2], 'w').write(str(os.getpid()))",
    "    time.sleep(60)",
    "",
  ].join("\n"),
);

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Starts `argv` as the local executor would (own process group) and waits; `during` runs once it has started. */
function start(argv: readonly string[], env: Record<string, string>, cwd: string, during?: (pid: number) => void): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, pid: child.pid! }));
    during?.(child.pid!);
  });
}

const ENV = { PATH: process.env.PATH ?? "/usr/bin:/bin", X: "the step's", PYTHONUNBUFFERED: "1" };

async function warmAndCold(warm: WarmPythons, args: readonly string[], cwd = src) {
  const argv = [PYTHON, PROGRAM, ...args];
  const w = await start(await warm.argv(argv, [], ENV), ENV, cwd);
  const c = await start(argv, ENV, cwd);
  return { w, c };
}

const sameButPid = (s: string) => s.replace(/^pid \d+$/m, "pid _");
const pidOf = (r: Ran) => Number(/^pid (\d+)$/m.exec(r.stdout)?.[1]);

test("a forked program: the argv, directory, environment, output and exit status of a cold start", async () => {
  const warm = new WarmPythons();
  try {
    const cwd = tempDir("cspipe-warm-cwd-");
    // exit 130 by sys.exit is a status, not the SIGINT death of a KeyboardInterrupt.
    const cases = [[], ["exit", "3"], ["exit", "130"], ["message"], ["fail"]];
    for (const args of cases) {
      const { w, c } = await warmAndCold(warm, args, cwd);
      assert.deepEqual([w.code, w.signal], [c.code, c.signal], `${args}: ${w.stderr}`);
      assert.equal(sameButPid(w.stdout), sameButPid(c.stdout));
      assert.equal(w.stderr, c.stderr);
      // Forked from the zygote: not the process the executor started (a cold program is).
      assert.notEqual(pidOf(w), w.pid);
      assert.equal(pidOf(c), c.pid);
    }
    assert.equal(warm.handed, cases.length);
    const { w } = await warmAndCold(warm, ["fail"]);
    assert.match(w.stderr, /^Traceback \(most recent call last\):\n {2}File ".*prog\.py", line \d+, in <module>\n/);
    assert.match(w.stdout, new RegExp(`argv \\['fail'\\] cwd ${src} X the step's path0 True`));
  } finally {
    await warm.close();
  }
});

async function sleeper(warm: WarmPythons, stop: (client: number) => void, stopProgram?: (program: number) => void): Promise<{ ran: Ran; program: number }> {
  const pidFile = join(tempDir("cspipe-warm-pid-"), "pid");
  const ran = await start(await warm.argv([PYTHON, PROGRAM, "sleep", pidFile], [], ENV), ENV, src, (client) => {
    const poll = setInterval(() => {
      if (existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "") {
        clearInterval(poll);
        stop(client);
        stopProgram?.(Number(readFileSync(pidFile, "utf8")));
      }
    }, 20);
  });
  return { ran, program: Number(readFileSync(pidFile, "utf8")) };
}

const alive = (pid: number) => spawnSync("kill", ["-0", String(pid)]).status === 0;
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);

test("stopping the stand-in stops the program: SIGTERM is passed on, SIGKILL makes the zygote kill it; a dead zygote's programs stop", async () => {
  const warm = new WarmPythons();
  try {
    const term = await sleeper(warm, (client) => process.kill(-client, "SIGTERM"));
    assert.equal(term.ran.signal, "SIGTERM");
    assert.equal(alive(term.program), false);
    const kill = await sleeper(warm, (client) => process.kill(-client, "SIGKILL"));
    assert.equal(kill.ran.signal, "SIGKILL");
    for (let i = 0; i < 100 && alive(kill.program); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(kill.program), false, "the zygote should kill a program whose stand-in was killed");
    // The zygote (the program's parent) killed: nobody can report the program's end, so it is stopped.
    const orphan = await sleeper(warm, () => undefined, (program) => process.kill(parentOf(program), "SIGKILL"));
    assert.equal(orphan.ran.code, 70);
    assert.match(orphan.ran.stderr, /cspipe warm interpreter: it went away while .* ran; the program was stopped/);
    for (let i = 0; i < 100 && alive(orphan.program); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(orphan.program), false);
  } finally {
    await warm.close();
  }
});

test("no zygote, no warm start: a zygote that cannot import its modules leaves programs cold", async () => {
  const warm = new WarmPythons();
  const argv = [PYTHON, PROGRAM];
  assert.deepEqual(await warm.argv(argv, ["no_such_module_for_cspipe"], ENV), argv);
  assert.equal(warm.handed, 0);
  await warm.close();
  // A closed executor's stand-in whose zygote has gone starts the program cold itself.
  const closed = new WarmPythons();
  const handed = await closed.argv(argv, [], ENV);
  await closed.close();
  for (let i = 0; i < 100 && existsSync(handed[4]!); i++) await new Promise((r) => setTimeout(r, 20));
  const r = await start(handed, ENV, src);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(pidOf(r), r.pid, "the stand-in should have become the program");
  assert.match(r.stdout, /argv \[\] cwd/);
});

/** The trainer as the real steps declare it: a GPU if there is one, else the CPU (and so warm). */
const train = tinyTrainingStep({ count: 1, required: false });
const params = tinyTrainingParams(2);

async function trainWith(warm: "0" | undefined) {
  // GPUs hidden: on a GPU machine the step would get one and start cold.
  const env = { PATH: process.env.PATH, CSPIPE_PYTHON: PYTHON, CUDA_VISIBLE_DEVICES: "", ...(warm ? { CSPIPE_WARM_PYTHON: warm } : {}) };
  const p = project(registry({ t: () => [use(train, { params, inputs: {} })] }), { env });
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, true, r.outcome.analysis.map(describeFailure).join("\n") + JSON.stringify("result" in r.outcome ? r.outcome.result.failures : []));
  const entry = ("result" in r.outcome ? r.outcome.result.results.get("train-tiny")?.entry : undefined)!;
  const weights = readFileSync(p.store.outputPath(entry, "model") + "/query_encoder.safetensors");
  return { key: entry.key, weights, handed: p.localExecutor().warm.handed };
}

test("a training forked from a warm interpreter: the key and the weights of a cold start", async () => {
  const warm = await trainWith(undefined);
  const cold = await trainWith("0");
  assert.equal(warm.handed, 1);
  assert.equal(cold.handed, 0);
  assert.equal(warm.key, cold.key);
  assert.ok(warm.weights.equals(cold.weights), "warm and cold weights differ");
});
