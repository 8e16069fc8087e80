/**
 * The Slurm executor's pure cores, without a cluster: its configuration, the request a step's
 * resources become, sinfo/squeue/sacct text as Slurm 22.05 prints it (lines captured from the
 * test cluster), the batch script (run here with bash: the environment it leaves the program and
 * the exit-code file), failure messages, submit retries and the log follower.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { parseSlurmConfig, slurmSettings, flagProblems } from "../../pipeline/executors/slurm/config.ts";
import { describeRequest, formatSlurmTime, resourceFlags, slurmRequest } from "../../pipeline/executors/slurm/request.ts";
import { gpusInGres, parseSinfo, parseSlurmMinutes, requestProblem, targetPartitions } from "../../pipeline/executors/slurm/cluster.ts";
import { isTransient, parseSacct, parseSqueue, queueDetail, stateClass } from "../../pipeline/executors/slurm/queue.ts";
import { batchScript, parseExitCode } from "../../pipeline/executors/slurm/script.ts";
import { endFailure } from "../../pipeline/executors/slurm/outcome.ts";
import { parseSbatchId, withRetries, type CommandResult } from "../../pipeline/executors/slurm/commands.ts";
import { expandNodes } from "../../pipeline/executors/slurm/job.ts";
import { attemptPaths } from "../../pipeline/executors/slurm/attempt.ts";
import { FileFollower } from "../../pipeline/executors/slurm/log-follow.ts";

const settings = slurmSettings({}, {}, "defaults");

test("cspipe.slurm.json: errors name the file, the field and the fix; flags override the file", () => {
  const bad = parseSlurmConfig(JSON.stringify({ partition: "gpu", pollSeconds: -1, partiton: "x", extra: ["constraint=a100"] }), "/p/cspipe.slurm.json");
  assert.equal(bad.ok, false);
  const errors = !bad.ok ? bad.errors.join("\n") : "";
  assert.match(errors, /\/p\/cspipe\.slurm\.json: field 'pollSeconds': .*Fix: give pollSeconds a valid value/);
  assert.match(errors, /field '\(top level\)': .*partiton.*Fix: remove it or use one of partition, account/);
  assert.match(errors, /field 'extra\.0': .*an sbatch flag starting with - or --/);
  assert.match(parseSlurmConfig("{", "f.json").ok ? "" : "not json", /not json/);
  const ok = parseSlurmConfig(JSON.stringify({ partition: "cpu", account: "lab", extra: ["--constraint=a100"], timeFactor: 3, resources: { "train-dpr": { memoryGiB: 96 } } }), "f");
  assert.ok(ok.ok);
  const s = slurmSettings(ok.config, { partition: "gpu", extra: ["--exclusive"] }, "f");
  assert.equal(s.partition, "gpu");
  assert.equal(s.account, "lab");
  assert.deepEqual(s.extra, ["--constraint=a100", "--exclusive"]);
  assert.equal(s.timeFactor, 3);
  assert.deepEqual(flagProblems({ extra: ["constraint"], timeFactor: 0.5 }).length, 2);
});

test("a step's resources as an sbatch request: overrides, memory in MiB, time limit = expected x factor", () => {
  const r = slurmRequest("train-dpr", { cpus: 8, memoryGiB: 64, expectedMinutes: 90, gpus: 1 }, { ...settings, resources: { "train-dpr": { memoryGiB: 96 } } });
  assert.deepEqual([r.cpus, r.memMiB, r.gpus, r.timeMinutes, r.overridden], [8, 96 * 1024, 1, 180, true]);
  assert.deepEqual(resourceFlags(r, 1), ["--nodes=1", "--ntasks=1", "--cpus-per-task=8", "--mem=98304M", "--time=03:00:00", "--gres=gpu:1"]);
  assert.equal(describeRequest(r), "cpus 8, mem 96G, gpu 1, time 03:00:00 (expected 90 min x 2) [cspipe.slurm.json]");
  assert.equal(slurmRequest("x", { cpus: 1, memoryGiB: 0.25, expectedMinutes: 0.2, gpus: 0 }, settings).timeMinutes, 1, "at least a minute, Slurm's granularity");
  assert.equal(slurmRequest("x", { cpus: 1, memoryGiB: 1, expectedMinutes: 1, gpus: 2 }, settings, false).gpus, 0, "no GPUs requested from a cluster without");
  assert.deepEqual([formatSlurmTime(59), formatSlurmTime(60), formatSlurmTime(1441)], ["00:59:00", "01:00:00", "1-00:01:00"]);
});

// `sinfo -h -a -N -o '%N|%P|%c|%m|%G|%l'` of the test cluster, plus a second partition.
const SINFO = ["n1|debug*|4|8000|gpu:2|infinite", "n2|debug*|4|8000|gpu:2|infinite", "n3|debug*|4|8000|gpu:2|infinite", "big1|large|64|512000|gpu:a100:8(S:0-1)|2-00:00:00", ""].join("\n");

test("sinfo's partitions, and which requests fit them (with the fix)", () => {
  const all = parseSinfo(SINFO);
  assert.deepEqual(
    all.map((p) => [p.name, p.isDefault, p.maxMinutes, p.nodes.length]),
    [
      ["debug", true, Infinity, 3],
      ["large", false, 2880, 1],
    ],
  );
  assert.equal(all[1]!.nodes[0]!.gpus, 8);
  assert.deepEqual([parseSlurmMinutes("30"), parseSlurmMinutes("30:00"), parseSlurmMinutes("1:00:00"), parseSlurmMinutes("1-12"), parseSlurmMinutes("UNLIMITED")], [30, 30, 60, 2160, Infinity]);
  assert.deepEqual([gpusInGres("(null)"), gpusInGres("gpu:2,nic:1"), gpusInGres("gpu:a100:4(S:0-1),gpu:v100:2")], [0, 2, 6]);
  const debug = targetPartitions(all, undefined);
  assert.ok(debug.ok && debug.partitions.map((p) => p.name).join() === "debug");
  const missing = targetPartitions(all, "gpu");
  assert.ok(!missing.ok && /no partition gpu in this cluster \(sinfo lists debug, large\)/.test(missing.detail));
  const req = slurmRequest("train-dpr", { cpus: 8, memoryGiB: 64, expectedMinutes: 90, gpus: 1 }, settings);
  const p = requestProblem("train-dpr", req, debug.ok ? debug.partitions : [], all)!;
  assert.match(p.detail, /it asks for 8 CPUs, 65536 MB, 1 GPUs and 03:00:00 on one node; partition debug offers at most 4 CPUs, 8000 MB and 2 GPUs on one node, no time limit/);
  assert.match(p.fix, /^run in partition large \(--slurm-partition large\), or lower the request/);
  assert.equal(requestProblem("x", slurmRequest("x", { cpus: 4, memoryGiB: 7, expectedMinutes: 600, gpus: "all" }, settings), debug.ok ? debug.partitions : [], all), undefined);
  assert.throws(() => parseSinfo("n1|debug*|four|8000|(null)|infinite"), /cannot read sinfo's line 'n1\|debug\*\|four/);
});

test("squeue and sacct text, each state's class, and the controller errors worth retrying", () => {
  // Captured from the test cluster (squeue -h --states=all -j ... -o '%i|%T|%r|%N'; sacct -X -n -P -o JobIDRaw,JobName,State,ExitCode,NodeList).
  const q = parseSqueue("1|FAILED|NonZeroExitCode|n1\n22|PENDING|Resources|\n23|RUNNING|None|n2\n");
  assert.deepEqual(q[1], { id: "22", state: "PENDING", reason: "Resources", nodes: "" });
  assert.deepEqual(queueDetail(q[1]!), { state: "pending", detail: "job 22 pending (Resources)" });
  assert.deepEqual(queueDetail(q[2]!), { state: "running", detail: "job 23 running on n2" });
  const a = parseSacct("1|j.sh|FAILED|3:0|n1\n7|cspipe.x|CANCELLED by 0|0:15|None assigned\n");
  assert.deepEqual(a[0]!.exit, { code: 3, signal: 0 });
  assert.deepEqual([a[1]!.state, a[1]!.reason, a[1]!.nodes], ["CANCELLED", "by 0", ""]);
  assert.deepEqual(
    ["PENDING", "COMPLETING", "COMPLETED", "FAILED", "OUT_OF_MEMORY", "TIMEOUT", "CANCELLED", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL"].map(stateClass),
    ["pending", "running", "ended", "ended", "out-of-memory", "timeout", "cancelled", "retry", "retry", "retry"],
  );
  assert.ok(isTransient("sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)"));
  assert.ok(!isTransient("sbatch: error: Batch job submission failed: Invalid account or account/partition combination specified"));
  assert.deepEqual([parseSbatchId("42\n"), parseSbatchId("42;cluster\n"), parseSbatchId("Submitted batch job 42")], ["42", "42", undefined]);
});

test("sbatch that cannot reach the controller is retried with doubling waits; other errors are not", async () => {
  const waits: number[] = [];
  const answers: CommandResult[] = [
    { code: 1, stdout: "", stderr: "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)" },
    { code: 1, stdout: "", stderr: "sbatch: error: Socket timed out on send/recv operation" },
    { code: 0, stdout: "17\n", stderr: "" },
  ];
  const r = await withRetries(async () => answers.shift()!, { retries: 5, backoffMs: 100, sleep: async (ms) => void waits.push(ms) });
  assert.equal(r.stdout, "17\n");
  assert.deepEqual(waits, [100, 200]);
  let calls = 0;
  const refused = await withRetries(async () => (calls++, { code: 1, stdout: "", stderr: "sbatch: error: invalid partition specified: nope" }), { retries: 5, backoffMs: 1, sleep: async () => undefined });
  assert.equal(calls, 1);
  assert.match(refused.stderr, /invalid partition/);
  calls = 0;
  await withRetries(async () => (calls++, { code: 1, stdout: "", stderr: "Unable to contact slurm controller" }), { retries: 2, backoffMs: 1, sleep: async () => undefined });
  assert.equal(calls, 3, "1 + retries attempts at most");
});

test("the batch script leaves the program exactly its environment, keeps Slurm's, and writes the exit status atomically", () => {
  const dir = tempDir("cspipe-slurm-script-");
  const attempt = join(dir, "attempt");
  mkdirSync(attempt);
  const script = join(dir, "job.sh");
  const probe = `env | sort > ${join(dir, "env.txt")}; exit 3`;
  writeFileSync(
    script,
    batchScript({
      title: "t",
      flags: ["--job-name=x", "--gres=gpu:1"],
      env: { PATH: process.env.PATH!, QUOTED: "it's $HOME `x`", "BAD-NAME": "skipped" },
      keep: ["CUDA_VISIBLE_DEVICES", "HF_TOKEN"],
      argv: ["bash", "-c", probe],
      attemptDir: attempt,
    }),
  );
  // What Slurm's login environment would leave: noise, SLURM_*, the devices, a secret passed by --export.
  // stdin /dev/null as under Slurm (a socket would make Debian's bash read ~/.bashrc, as for sshd).
  const r = spawnSync("bash", [script], { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH!, PYENV_ROOT: "/root/.pyenv", HOME: "/root", SLURM_JOB_ID: "9", CUDA_VISIBLE_DEVICES: "1", HF_TOKEN: "s3cret", QUOTED: "old" }, encoding: "utf8" });
  assert.equal(r.status, 3, r.stderr);
  const env = Object.fromEntries(
    readFileSync(join(dir, "env.txt"), "utf8")
      .trim()
      .split("\n")
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  for (const shellOwn of ["PWD", "SHLVL", "_", "OLDPWD"]) delete env[shellOwn];
  assert.deepEqual(env, { PATH: process.env.PATH, QUOTED: "it's $HOME `x`", SLURM_JOB_ID: "9", CUDA_VISIBLE_DEVICES: "1", HF_TOKEN: "s3cret" });
  assert.equal(readFileSync(join(attempt, "exitcode"), "utf8"), "3\n");
  assert.ok(!existsSync(join(attempt, "exitcode.tmp")));
  assert.deepEqual(parseExitCode("3\n"), { code: 3, phase: "program" });

  // A failed preflight (the numerics check) keeps the program from running and says so.
  writeFileSync(script, batchScript({ title: "t", flags: [], env: { PATH: process.env.PATH! }, keep: [], argv: ["touch", join(dir, "ran")], preflight: { argv: ["bash", "-c", "exit 3"], cwd: dir }, attemptDir: attempt }));
  assert.equal(spawnSync("bash", [script], { stdio: "ignore" }).status, 3);
  assert.ok(!existsSync(join(dir, "ran")));
  assert.deepEqual(parseExitCode(readFileSync(join(attempt, "exitcode"), "utf8")), { code: 3, phase: "preflight" });
  assert.throws(() => batchScript({ title: "t", flags: ["--comment=a\n#SBATCH --x"], env: {}, keep: [], argv: ["true"], attemptDir: attempt }), /line break/);
});

test("each way a job can end says what happened and what to change", () => {
  const a = attemptPaths("/s/staging/k.1.r/work", 2);
  const request = slurmRequest("train-dpr", { cpus: 1, memoryGiB: 4, expectedMinutes: 30, gpus: 0 }, settings);
  const c = { stepId: "train-dpr", request, command: "python3 x.py", exitFileGraceMs: 60_000 };
  const job = (state: string, reason = "") => ({ id: "42", state, reason, nodes: "n2" });
  const ended = (state: string, reason = "") => ({ kind: "ended" as const, job: job(state, reason), attempt: a, attempts: 3, excluded: ["n1", "n3"] });
  assert.deepEqual(endFailure(ended("TIMEOUT"), c), {
    message: "Slurm job 42 reached its time limit of 01:00:00 on n2 (TIMEOUT)",
    fix: `raise the limit: --slurm-time-factor 4 (the limit is the step's expected 30 min x 2), or "resources": {"train-dpr": {"expectedMinutes": 60}} in cspipe.slurm.json`,
  });
  assert.match(endFailure(ended("OUT_OF_MEMORY"), c).fix!, /"memoryGiB": 8\}\}/);
  assert.match(endFailure(ended("NODE_FAIL"), c).message, /ended NODE_FAIL on n2 after 3 attempts \(nodes excluded: n1,n3\)/);
  assert.match(endFailure(ended("CANCELLED", "by 1000"), c).message, /ended CANCELLED \(by 1000\) on n2, not by this run/);
  assert.match(endFailure(ended("COMPLETED"), c).message, /exit-code file \/s\/staging\/k\.1\.r\/work\/slurm\/2\/exitcode did not appear within 60 s/);
  assert.match(endFailure({ kind: "exited", code: 1, phase: "program", job: job("FAILED"), attempt: a, attempts: 1 }, c).message, /^command exited with 1 in Slurm job 42 \(FAILED on n2\): python3 x\.py$/);
  assert.match(endFailure({ kind: "not-submitted", message: "sbatch exited 1: invalid account" }, c).fix!, /--slurm-account/);
});

test("node lists expand for --exclude", () => {
  assert.deepEqual(expandNodes("n[1-3],gpu07"), ["n1", "n2", "n3", "gpu07"]);
  assert.deepEqual(expandNodes("c[08-10,15]"), ["c08", "c09", "c10", "c15"]);
  assert.deepEqual(expandNodes(""), []);
});

test("the log follower hands over whole lines as the file grows, UTF-8 split across reads included", async () => {
  const dir = tempDir("cspipe-slurm-follow-");
  const path = join(dir, "job.log");
  const lines: string[] = [];
  const f = new FileFollower(path, (l) => lines.push(l));
  await f.read(); // not there yet: nothing
  appendFileSync(path, "one\ntw");
  await f.read();
  assert.deepEqual(lines, ["one"]);
  const euro = Buffer.from("o €\r\n", "utf8");
  appendFileSync(path, euro.subarray(0, 4)); // splits the euro sign
  await f.read();
  appendFileSync(path, Buffer.concat([euro.subarray(4), Buffer.from("last")]));
  await f.read(true);
  assert.deepEqual(lines, ["one", "two €", "last"]);
});
