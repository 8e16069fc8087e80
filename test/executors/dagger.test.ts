/**
 * The Dagger executor run against a recording fake of the engine (dagger-fixtures.ts): the
 * call chain, the export/unpack path with a real tar, error mapping, connection handling,
 * secret hygiene and session detection. The plan alone: dagger-plan.test.ts; live logs:
 * dagger-logs.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobOutcome } from "../../pipeline/engine/executor.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { createDaggerExecutor, DaggerExecutor } from "../../pipeline/executors/dagger.ts";
import { createExecutor } from "../../pipeline/executors/index.ts";
import { planDaggerJob } from "../../pipeline/executors/dagger/plan.ts";
import { outcomeOfError, signalOfExitCode } from "../../pipeline/executors/dagger/run.ts";
import { daggerSessionProblem } from "../../pipeline/executors/dagger/session.ts";
import { ARGV, containerOut, execError, executor, FakeWorld, IMAGE, makeJob, SECRET, stage, TEE_SCRIPT, tmp } from "./dagger-fixtures.ts";

const SESSION = { DAGGER_SESSION_PORT: "41234", DAGGER_SESSION_TOKEN: "tok" };

test("run: the call chain, then ONE archive exported and unpacked into the job's output paths", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: () => "loading\nPROGRESS 1 2\nepoch 1 done\n", exportFrom: containerOut() });
  const ex = executor(world);
  const outcome = await ex.runContainer(job);
  assert.deepEqual(outcome, { ok: true, argv: ARGV(root), tools: { "container-image": IMAGE, dagger: "v0.21.9-fake" } } satisfies JobOutcome);

  // The program chain as the fake received it (the same order as the plan).
  const program = world.evaluated[0]!;
  assert.deepEqual(program[0], ["from", IMAGE]);
  assert.deepEqual(program[1], ["withMountedCache", "/root/.cache/pip", "cspipe-pip"]);
  assert.deepEqual(program[8], ["withExec", ["python3", "-m", "pip", "install", "numpy==1.26.4", "torch==2.2.0"]]);
  assert.deepEqual(
    program.filter((c) => c[0] === "withMountedDirectory" || c[0] === "withMountedFile"),
    [
      ["withMountedDirectory", "/cspipe/in/passages", `${root}/store/prep/outputs/passages`, { readOnly: true }],
      ["withMountedFile", "/cspipe/in/queries/queries.parquet", `${root}/store/q/outputs/queries.parquet`],
      ["withMountedFile", "/cspipe/params.json", `${root}/staging/work/params.json`],
      ["withMountedDirectory", "/cspipe/src", "/repo", { readOnly: true, exclude: ["node_modules/", "artifacts/", "dist/", "report/", ".git/", "**/__pycache__/", "**/.pytest_cache/"] }],
      ["withMountedFile", "/cspipe/bin/log_tee.py", TEE_SCRIPT],
    ],
  );
  assert.deepEqual(
    program.filter((c) => c[0] === "withGpus" || c[0] === "withSecretVariable"),
    [
      ["withSecretVariable", "HF_TOKEN"],
      ["withGpus", ["0"]],
    ],
  );
  // The program runs under the log wrapper, which reaches this host through the binding.
  const port = program.at(-3)![2] as number;
  assert.ok(Number.isInteger(port) && port > 0);
  assert.deepEqual(program.slice(-3), [
    ["withServiceBinding", "cspipe-log", port],
    ["withWorkdir", "/cspipe/work"],
    ["withExec", ["python3", "/cspipe/bin/log_tee.py", "--host", "cspipe-log", "--port", String(port), "--", ...ARGV(root)]],
  ]);
  assert.ok(program.some((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_LOG_STREAM_TOKEN" && c[2] === "T0KEN"));
  assert.equal(world.secretValues.get("HF_TOKEN"), SECRET);

  // The export chain: the program chain + tar + one file export into the work dir.
  const exported = world.evaluated[1]!;
  assert.deepEqual(exported.slice(0, program.length), program);
  assert.deepEqual(exported.slice(program.length), [
    ["withExec", ["tar", "-C", "/cspipe/out", "-cf", "/cspipe/outputs.tar", "."]],
    ["exportFile", "/cspipe/outputs.tar", `${root}/staging/work/dagger-outputs.tar`],
  ]);
  assert.equal(world.evaluated.length, 2);

  // Unpacked where the engine looks; undeclared files and the archive are gone.
  assert.equal(readFileSync(job.outputs.run!.path, "utf8"), "q1 Q0 d1 1 2.5 dpr\n");
  assert.equal(readFileSync(join(job.outputs.index!.path, "a.bin"), "utf8"), "AAAA");
  assert.equal(readFileSync(join(job.outputs.index!.path, "sub", "b.bin"), "utf8"), "BB");
  assert.deepEqual(readdirSync(join(root, "staging", "outputs")).sort(), ["index", "runs"]);
  assert.ok(!existsSync(join(job.workDir, "dagger-outputs.tar")));
  assert.ok(!existsSync(join(job.workDir, "dagger-outputs")));
  // Output lines reach the engine (which turns PROGRESS lines into progress events).
  assert.deepEqual(job.lines, ["loading", "PROGRESS 1 2", "epoch 1 done"]);
  await ex.close();
  assert.equal(world.closes, 1);
});

test("run: a declared output missing from the archive is left for the engine to report", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const out = tmp();
  mkdirSync(join(out, "index"));
  writeFileSync(join(out, "index", "a.bin"), "A");
  const outcome = await executor(new FakeWorld({ exportFrom: out })).runContainer(job);
  assert.equal(outcome.ok, true);
  assert.ok(!existsSync(job.outputs.run!.path));
  assert.equal(readFileSync(join(job.outputs.index!.path, "a.bin"), "utf8"), "A");
});

test("run: a file where a directory is declared fails with both kinds named", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const out = tmp();
  writeFileSync(join(out, "index"), "not a dir");
  const outcome = await executor(new FakeWorld({ exportFrom: out })).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ["tar", "-C", "/cspipe/out", "-cf", "/cspipe/outputs.tar", "."], exitStatus: null, signal: "dagger-error" });
  assert.ok(job.lines.some((l) => /output index: the container produced a file at index, the step declares a directory/.test(l)), job.lines.join("\n"));
});

test("run: a non-zero exit becomes an exit outcome with the program's output in the log, secrets redacted", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const world = new FakeWorld({ run: (calls) => execError(calls.at(-1)![1] as string[], 3, "step 1\n", `Traceback\nValueError: bad token ${SECRET}\n`) });
  const outcome = await executor(world).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: 3, signal: null });
  assert.deepEqual(job.lines, ["step 1", "Traceback", "ValueError: bad token ***"]);
  assert.equal(world.evaluated.length, 1, "no export after a failure");
});

test("run: a failing pip layer names the pip command, not the program", () => {
  const pip = ["python3", "-m", "pip", "install", "torch==9.9.9"];
  const { outcome, lines } = outcomeOfError(execError(pip, 1, "", "ERROR: No matching distribution found for torch==9.9.9\n"), ["python3", "train.py"]);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: pip, exitStatus: 1, signal: null });
  assert.deepEqual(lines, ["ERROR: No matching distribution found for torch==9.9.9", "# dagger: the failing command was a setup step, not the program: python3 -m pip install torch==9.9.9"]);
});

test("run: death by signal (137) and engine errors (image pull) map to outcomes", async () => {
  assert.equal(signalOfExitCode(137), "SIGKILL");
  assert.equal(signalOfExitCode(143), "SIGTERM");
  assert.equal(signalOfExitCode(1), null);
  assert.deepEqual(outcomeOfError(execError(["python3"], 137, "", "Killed\n"), ["python3"]).outcome, { ok: false, kind: "exit", argv: ["python3"], exitStatus: 137, signal: "SIGKILL" });

  const root = tmp();
  const job = makeJob(root);
  stage(job);
  const outcome = await executor(new FakeWorld({ run: () => new Error("failed to resolve source metadata for docker.io/library/python: not found") })).runContainer(job);
  assert.deepEqual(outcome, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "dagger-error" });
  assert.deepEqual(job.lines, ["# dagger error: failed to resolve source metadata for docker.io/library/python: not found"]);
  const f = { reason: "exit-nonzero" as const, step: "s", argv: ARGV(root), exitStatus: null, signal: "dagger-error", log: "l", tail: [] };
  assert.match(describeFailure(f), /dagger-error/);
});

test("run: a connection failure is an outcome, and the next job retries the connection", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  let attempts = 0;
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = new DaggerExecutor({
    env: { CSPIPE_DAGGER_GPU: "1" },
    connect: async () => {
      attempts++;
      if (attempts === 1) throw new Error("connection refused");
      return world.connection();
    },
  });
  const first = await ex.runContainer(job);
  assert.deepEqual(first, { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "dagger-error" });
  assert.deepEqual(job.lines, ["# dagger: cannot connect to the Dagger session: connection refused"]);
  assert.equal((await ex.runContainer(job)).ok, true);
  assert.equal(attempts, 2);
});

test("run: one lazy connection shared by jobs; none for a run that never executes a container", async () => {
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = executor(world);
  await ex.check([], {});
  await ex.close();
  assert.equal(world.connects, 0);
  const a = makeJob(tmp());
  const b = makeJob(tmp());
  stage(a);
  stage(b);
  const [ra, rb] = await Promise.all([ex.runContainer(a), ex.runContainer(b)]);
  assert.equal(ra.ok && rb.ok, true);
  assert.equal(world.connects, 1);
  await ex.close();
  assert.equal(world.closes, 1);
});

test("run: cancellation returns at once with a cancelled outcome", async () => {
  const ac = new AbortController();
  const root = tmp();
  const job = makeJob(root, { signal: ac.signal });
  stage(job);
  const world = new FakeWorld({ hang: () => ac.abort() });
  const ex = executor(world);
  assert.deepEqual(await ex.runContainer(job), { ok: false, kind: "exit", argv: ARGV(root), exitStatus: null, signal: "cancelled" });
});

test("secrets never appear in the plan, the recorded env/argv, or the log lines", async () => {
  const root = tmp();
  const job = makeJob(root);
  stage(job);
  assert.ok(!JSON.stringify(planDaggerJob(job, { gpuAvailable: true })).includes(SECRET));
  const world = new FakeWorld({ run: () => `token is ${SECRET}\n`, exportFrom: containerOut() });
  await executor(world).runContainer(job);
  assert.ok(!JSON.stringify(world.evaluated).includes(SECRET));
  assert.deepEqual(job.lines, ["token is ***"]);
  // …yet the value reached the container as a secret.
  assert.equal(world.secretValues.get("HF_TOKEN"), SECRET);
});

test("run: under --allow-cpu on a GPU-less engine no GPU is requested and the log says so", async () => {
  const root = tmp();
  const job = makeJob(root, { settings: { allowCpu: true } });
  stage(job);
  const world = new FakeWorld({ exportFrom: containerOut() });
  const ex = new DaggerExecutor({ env: { CSPIPE_DAGGER_GPU: "0" }, connect: async () => world.connection() });
  assert.equal((await ex.runContainer(job)).ok, true);
  assert.ok(!world.evaluated[0]!.some((c) => c[0] === "withGpus"));
  assert.ok(world.evaluated[0]!.some((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_DEVICE_HINT" && c[2] === "cpu-allowed"));
  assert.deepEqual(job.lines, ["# dagger: running without a GPU (--allow-cpu): CSPIPE_DAGGER_GPU=0 says the Dagger engine has no GPU"]);
});

// ---- session detection ----------------------------------------------------------------

test("session: both variables are needed, and the port must be a port", () => {
  assert.match(daggerSessionProblem({})!, /not inside a Dagger session.*dagger run \.\/cspipe run/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_PORT: "1234" })!, /DAGGER_SESSION_TOKEN is unset/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_TOKEN: "t" })!, /DAGGER_SESSION_PORT is unset/);
  assert.match(daggerSessionProblem({ DAGGER_SESSION_PORT: "http://x", DAGGER_SESSION_TOKEN: "t" })!, /not a TCP port/);
  assert.equal(daggerSessionProblem(SESSION), undefined);
});

test("session: the factory fails fast outside a session and never connects when it succeeds", async () => {
  const out = await createDaggerExecutor({});
  assert.ok("reason" in out && out.reason === "executor-unavailable");
  assert.match(describeFailure(out), /executor dagger is unavailable: not inside a Dagger session/);
  // process.env (what the SDK reads) has no session in tests: without an injected connection the factory refuses.
  if (!process.env.DAGGER_SESSION_PORT) {
    const r = await createDaggerExecutor(SESSION);
    assert.ok("reason" in r);
  }
  let connects = 0;
  const ex = await createDaggerExecutor(SESSION, {
    connect: async () => {
      connects++;
      throw new Error("unused");
    },
  });
  assert.ok(!("reason" in ex));
  assert.equal(ex.name, "dagger");
  assert.equal(connects, 0);
});

test("session: --executor auto outside a session stays local; --executor dagger fails fast", async () => {
  const auto = await createExecutor("auto", {});
  assert.ok(!("reason" in auto));
  assert.equal(auto.name, "local");
  const r = await createExecutor("dagger", {});
  assert.ok("reason" in r && r.reason === "executor-unavailable");
});

test("session: the SDK connection refuses to start without a session (no CLI download)", async () => {
  const { openSdkSession } = await import("../../pipeline/executors/dagger/sdk.ts");
  await assert.rejects(openSdkSession({}), /not inside a Dagger session/);
  await assert.rejects(openSdkSession({ DAGGER_SESSION_PORT: "1" }), /DAGGER_SESSION_TOKEN is unset/);
});

