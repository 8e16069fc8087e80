/**
 * Live logs under the Dagger executor: the plan of a program run under log_tee.py, and runs
 * against the recording fake (dagger-fixtures.ts) playing the wrapper over a real socket.
 * The receiver and log_tee.py themselves: dagger-log-stream.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { ContainerJob } from "../../pipeline/engine/executor.ts";
import { DaggerExecutor } from "../../pipeline/executors/dagger.ts";
import { planDaggerJob } from "../../pipeline/executors/dagger/plan.ts";
import { ARGV, containerOut, execError, executor, FakeWorld, IMAGE, makeJob, runtime, SECRET, stage, teeSends, tmp, type TeeAddress } from "./dagger-fixtures.ts";

test("plan: a Python program with a log stream runs under the wrapper, with the script mounted and the receiver bound", () => {
  const stream = { script: "/host/log_tee.py", port: 40123, token: "tok" };
  const plan = planDaggerJob(makeJob("/r", { secrets: {} }), { gpuAvailable: true, logStream: stream });
  assert.equal(plan.logStream, true);
  assert.deepEqual(plan.argv, ARGV("/r"), "the program's argv is still reported as itself");
  assert.deepEqual(plan.execArgv, ["python3", "/cspipe/bin/log_tee.py", "--host", "cspipe-log", "--port", "40123", "--", ...ARGV("/r")]);
  assert.deepEqual(plan.ops.slice(-4), [
    { op: "mount-file", path: "/cspipe/bin/log_tee.py", host: "/host/log_tee.py" },
    { op: "service-binding", alias: "cspipe-log", port: 40123 },
    { op: "workdir", path: "/cspipe/work" },
    { op: "exec", argv: plan.execArgv },
  ]);
  assert.ok(plan.ops.some((o) => o.op === "env" && o.name === "CSPIPE_LOG_STREAM_TOKEN" && o.value === "tok"));
  // Without the option, or for a program that is not run by Python: no wrapper, no binding, no token.
  const cat = makeJob("/r", { runtime: { type: "container", image: IMAGE, argv: ["cat", "{in:queries}"] }, secrets: {} });
  for (const p of [planDaggerJob(makeJob("/r", { secrets: {} }), { gpuAvailable: true }), planDaggerJob(cat, { gpuAvailable: true, logStream: stream })]) {
    assert.equal(p.logStream, false);
    assert.deepEqual(p.execArgv, p.argv);
    assert.ok(!p.ops.some((o) => o.op === "service-binding" || (o.op === "mount-file" && o.path === "/cspipe/bin/log_tee.py") || (o.op === "env" && o.name === "CSPIPE_LOG_STREAM_TOKEN")));
  }
});

test("plan: which interpreters get the wrapper", async () => {
  const { streamsLog } = await import("../../pipeline/executors/dagger/plan.ts");
  for (const a0 of ["python", "python3", "python3.11", "/usr/bin/python3", "/opt/conda/bin/python"]) assert.equal(streamsLog([a0, "x.py"]), true, a0);
  for (const a0 of ["bash", "cat", "/usr/bin/python3-config", "pythonista", "{src}/run.sh"]) assert.equal(streamsLog([a0]), false, a0);
  assert.equal(streamsLog([]), false);
});

test("run: streamed lines reach the log while the program runs, and the full output adds none of them again", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({
    stream: (tee) => teeSends(tee, `loading\nPROGRESS 1 2\ntoken ${SECRET}\n`, () => job.lines.length === 3),
    run: () => `loading\nPROGRESS 1 2\ntoken ${SECRET}\nepoch 1 done\n`,
    exportFrom: containerOut(),
  });
  const outcome = await executor(world).runContainer(job);
  assert.equal(outcome.ok, true);
  // Three lines live (secret redacted), the fourth (sent after the stream closed) once at the end.
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "token ***", "epoch 1 done"]);
});

test("run: when nothing is streamed (no connection, or Dagger replayed the exec) the full output goes to the log once", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  let sawStream = false;
  const world = new FakeWorld({
    stream: async (tee) => {
      sawStream = tee !== undefined;
    },
    run: () => "loading\nPROGRESS 1 2\n# cspipe log stream: cannot connect to cspipe-log:1 (refused); the log arrives when the step ends\n",
    exportFrom: containerOut(),
  });
  assert.equal((await executor(world).runContainer(job)).ok, true);
  assert.equal(sawStream, true);
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "# cspipe log stream: cannot connect to cspipe-log:1 (refused); the log arrives when the step ends"]);
});

test("run: a failing program with a streamed log: no line twice, the program's argv in the outcome, no setup-step note", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({
    stream: (tee) => teeSends(tee, "step 1\nTraceback\n", () => job.lines.length === 2),
    run: (calls) => execError(calls.at(-1)![1] as string[], 3, "step 1\nTraceback\nValueError: bad\n", "# cspipe log stream: the connection broke (reset)\n"),
  });
  const outcome = await executor(world).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: 3, signal: null });
  assert.deepEqual(job.lines, ["step 1", "Traceback", "ValueError: bad", "# cspipe log stream: the connection broke (reset)"]);
});

test("run: no wrapper for a program that is not run by Python, nor with CSPIPE_DAGGER_LOG_STREAM=0", async () => {
  const cases: [Partial<ContainerJob>, Record<string, string>][] = [
    [{ runtime: { ...runtime, argv: ["bash", "-c", "echo hi > {out:run}; mkdir -p {out:index}"] } }, { CSPIPE_DAGGER_GPU: "1" }],
    [{}, { CSPIPE_DAGGER_GPU: "1", CSPIPE_DAGGER_LOG_STREAM: "0" }],
  ];
  for (const [overrides, env] of cases) {
    const root = tmp();
    const job = makeJob(root, overrides);
    stage(job);
    let address: TeeAddress | undefined;
    const world = new FakeWorld({
      stream: async (tee) => {
        address = tee;
      },
      run: () => "hi\n",
      exportFrom: containerOut(),
    });
    assert.equal((await executor(world, env).runContainer(job)).ok, true);
    const program = world.evaluated[0]!;
    assert.equal(address, undefined);
    assert.ok(!program.some((c) => c[0] === "withServiceBinding" || (c[0] === "withMountedFile" && c[1] === "/cspipe/bin/log_tee.py")));
    assert.notEqual((program.at(-1)![1] as string[])[1], "/cspipe/bin/log_tee.py");
    assert.deepEqual(job.lines, ["hi"]);
  }
});

test("run: by default the wrapper mounted is the log_tee.py next to the executor", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: () => "done\n", exportFrom: containerOut() });
  const ex = new DaggerExecutor({ env: { CSPIPE_DAGGER_GPU: "1" }, connect: async () => world.connection() });
  assert.equal((await ex.runContainer(job)).ok, true);
  const mount = world.evaluated[0]!.find((c) => c[0] === "withMountedFile" && c[1] === "/cspipe/bin/log_tee.py");
  assert.ok(mount);
  assert.match(mount[2] as string, /pipeline\/executors\/dagger\/log_tee\.py$/);
  assert.ok(existsSync(mount[2] as string));
});
