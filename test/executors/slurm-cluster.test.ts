/**
 * `--executor slurm` against a real Slurm 22.05 cluster (scripts/slurm-cluster.sh; SLURM_CONF
 * names it). Nothing about Slurm is faked: jobs are submitted, scheduled on the cluster's nodes,
 * polled, cancelled and accounted by Slurm itself. Without a cluster every test here fails with
 * the command that starts one.
 *
 * The tests in the first group run at once (the cluster has 12 CPUs and 6 fake GPUs); the node
 * failure runs alone afterwards, since it kills a node's slurmd.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createHash } from "node:crypto";
import { accounting, cli, CLUSTER_SCRIPT, clusterDir, FIXTURE, killSpawned, manifests, queuedJobs, requireCluster, sleep, slurmConfig, tempDir, type Event } from "./slurm-helpers.ts";

before(() => {
  requireCluster();
});
after(killSpawned);

/** Every file under each entry's outputs/, by path relative to the store's entries/ (the key is in the path), with its sha256. */
function outputDigests(store: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, name.name);
      if (name.isDirectory()) walk(p);
      else if (p.includes("/outputs/")) out.set(relative(join(store, "entries"), p), createHash("sha256").update(readFileSync(p)).digest("hex"));
    }
  };
  walk(join(store, "entries"));
  return out;
}

const failureOf = (events: readonly Event[]): Record<string, unknown> | undefined => events.find((e) => e.type === "failed")?.failure as Record<string, unknown> | undefined;

describe("the Slurm executor on a cluster", { concurrency: true }, () => {
  test("a lexical target runs as Slurm jobs with the local executor's keys and bytes", async () => {
    const dir = tempDir("cspipe-slurm-lexical-");
    const config = slurmConfig(dir);
    const local = cli(["run", "table1-bm25", "--store", join(dir, "local")], {}, { compiled: true });
    assert.equal(await local.code, 0, local.stderr());
    const run = cli(["run", "table1-bm25", "--executor", "slurm", "--concurrency", "4", "--store", join(dir, "slurm")], { CSPIPE_SLURM_CONFIG: config }, { compiled: true });
    assert.equal(await run.code, 0, run.stderr());

    const a = outputDigests(join(dir, "local"));
    const b = outputDigests(join(dir, "slurm"));
    assert.ok(a.size >= 9, `the local run published ${a.size} output files`);
    assert.deepEqual([...b.entries()].sort(), [...a.entries()].sort(), "same keys, same bytes");
    // Every executed step was a Slurm job that Slurm accounts as COMPLETED.
    const started = run.events.filter((e) => e.type === "started").map((e) => e.step!);
    const m = manifests(join(dir, "slurm"));
    assert.equal(started.length, m.size);
    for (const step of started) {
      const entry = m.get(step)!;
      assert.equal(entry.executor, "slurm", step);
      assert.match(entry.tools["slurm.job"] ?? "", /^\d+$/, step);
      assert.equal(accounting(entry.tools["slurm.job"]!).state, "COMPLETED", step);
    }
    assert.ok(run.events.some((e) => e.type === "queue" && e.state === "running" && /on n\d/.test(String(e.detail))), "queue state reaches the reporters");
  });

  test("a GPU step is scheduled with --gres and sees the device Slurm gave it", async () => {
    const dir = tempDir("cspipe-slurm-gpu-");
    const run = cli(["run", "gpu", "--executor", "slurm", "--store", join(dir, "store")], { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: "gpu" });
    assert.equal(await run.code, 0, run.stderr());
    const m = manifests(join(dir, "store")).get("record-gpu")!;
    const seen = readFileSync(join(dir, "store", "entries", "record-gpu", m.key, "outputs", "out.txt"), "utf8");
    assert.match(seen, /^[01]$/, "CUDA_VISIBLE_DEVICES from Slurm (the node's two fake GPUs)");
    assert.match(accounting(m.tools["slurm.job"]!).tres, /gres\/gpu=1/);
    const log = readFileSync(join(dir, "store", "logs", "record-gpu", `${m.key}.log`), "utf8");
    assert.match(log, /sbatch .*--gres=gpu:1/);
  });

  test("a failing program fails its step: the job, the log and its tail, exit code 1", async () => {
    const dir = tempDir("cspipe-slurm-fail-");
    const run = cli(["run", "fail", "--executor", "slurm", "--store", join(dir, "store")], { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: "fail" });
    assert.equal(await run.code, 1, run.stderr());
    const f = failureOf(run.events)!;
    assert.equal(f.reason, "job-failed");
    assert.match(String(f.message), /^command exited with 1 in Slurm job \d+ \(FAILED on n\d\): .*python/);
    assert.match(String(f.log), /logs\/fail-loudly\/[0-9a-f]{64}\.log$/);
    assert.ok((f.tail as string[]).includes("line 12"), `tail: ${JSON.stringify(f.tail)}`);
    assert.match(readFileSync(String(f.log), "utf8"), /line 1\n[^]*line 12\n/, "the job's output was streamed into the step's log");
  });

  test("a step past its time limit fails TIMEOUT, naming the flag that raises it", async () => {
    const dir = tempDir("cspipe-slurm-timeout-");
    const run = cli(["run", "timeout", "--executor", "slurm", "--slurm-time-factor", "1", "--store", join(dir, "store")], { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: "timeout" });
    assert.equal(await run.code, 1, run.stderr());
    const f = failureOf(run.events)!;
    assert.match(String(f.message), /^Slurm job (\d+) reached its time limit of 00:01:00 on n\d \(TIMEOUT\)$/);
    assert.match(String(f.fix), /--slurm-time-factor 2 \(the limit is the step's expected 0\.5 min x 1\)/);
    assert.ok((f.tail as string[]).includes("sleeping"));
  });

  test("Ctrl-C cancels the run's running and queued jobs: exit 130, nothing left in the queue, the run recorded as interrupted", async () => {
    const dir = tempDir("cspipe-slurm-stop-");
    const store = join(dir, "store");
    const tag = `stop${process.pid}`;
    const run = cli(["run", "sleepers", "--executor", "slurm", "--concurrency", "3", "--slurm-extra=--nodelist=n3", "--store", store], { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: tag });
    // Each asks for 3 of n3's 4 CPUs: one runs, two wait.
    await run.until((e) => e.type === "queue" && e.state === "running");
    await run.until((e) => e.type === "queue" && e.state === "pending" && /Resources|Priority/.test(String(e.detail)));
    assert.equal(queuedJobs("cspipe.sleep-long").length, 3);
    run.child.kill("SIGINT");
    assert.equal(await run.code, 130, run.stderr());
    let left = queuedJobs("cspipe.sleep-long");
    for (let i = 0; i < 40 && left.length > 0; i++) {
      await sleep(250);
      left = queuedJobs("cspipe.sleep-long");
    }
    assert.deepEqual(left, [], "scancel left nothing queued or running");
    const records = readdirSync(join(store, "runs")).filter((n) => n.endsWith(".json"));
    const record = JSON.parse(readFileSync(join(store, "runs", records[0]!), "utf8")) as { status: string; signal: string };
    assert.equal(record.status, "interrupted");
    assert.equal(record.signal, "SIGINT");
    assert.deepEqual(readdirSync(join(store, "leases")), [], "no lease left");
  });

  test("two runs on one store compute each key once", async () => {
    const dir = tempDir("cspipe-slurm-twice-");
    const counter = join(dir, "counter.txt");
    const env = { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: `twice${process.pid}`, CSPIPE_TEST_COUNTER: counter };
    const args = ["run", "chain", "--executor", "slurm", "--concurrency", "4", "--store", join(dir, "store")];
    const [a, b] = [cli(args, env), cli(args, env)];
    assert.equal(await a.code, 0, a.stderr());
    assert.equal(await b.code, 0, b.stderr());
    const executed = (c: typeof a) => c.events.filter((e) => e.type === "succeeded" && e.reused === false).length;
    assert.equal(executed(a) + executed(b), 4, "four steps computed once between the two runs");
    assert.deepEqual(readFileSync(counter, "utf8").trim().split("\n").sort(), ["a", "b", "c", "d"], "each body ran once, on a node");
  });

  test("plan prints each step's sbatch request and refuses what no partition offers, before anything runs", () => {
    const dir = tempDir("cspipe-slurm-plan-");
    const env = { ...process.env, CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: "plan" };
    const plan = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join("pipeline", "main.ts"), "plan", ...args, "--executor", "slurm", "--store", join(dir, "store")], { cwd: join(FIXTURE, "..", "..", "..", ".."), env, encoding: "utf8" });
    const ok = plan(["gpu"]);
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /record-gpu \S+ +sbatch cpus 1, mem 256M, gpu 1, time 00:10:00 \(expected 5 min x 2\)/);
    const big = plan(["oversized"]);
    assert.equal(big.status, 2);
    assert.match(big.stderr, /ask-too-much: slurm cannot run it: it asks for 64 CPUs, 256 MB and 00:10:00 on one node; partition debug offers at most 4 CPUs, 8000 MB and 2 GPUs on one node, no time limit\. Fix: lower the request in cspipe\.slurm\.json/);
    const nowhere = plan(["gpu", "--slurm-partition", "nope"]);
    assert.equal(nowhere.status, 2);
    assert.match(nowhere.stderr, /no partition nope in this cluster \(sinfo lists debug\)/);
  });
});

test("a node that dies under a running job: the step is resubmitted on another node and the run finishes green", async () => {
  const dir = tempDir("cspipe-slurm-node-");
  const store = join(dir, "store");
  const marker = join(dir, "first-attempt.txt");
  const run = cli(["run", "node-fail", "--executor", "slurm", "--store", store], { CSPIPE_DEFINITIONS: FIXTURE, CSPIPE_SLURM_CONFIG: slurmConfig(dir), CSPIPE_TEST_TAG: `node${process.pid}`, CSPIPE_TEST_MARKER: marker });
  await run.until((e) => e.type === "log" && /first attempt/.test(String(e.line)));
  const node = readFileSync(marker, "utf8").trim();
  assert.match(node, /^n\d$/);
  const cluster = clusterDir();
  const kill = spawnSync("bash", [CLUSTER_SCRIPT, "kill-node", cluster, node], { encoding: "utf8" });
  assert.equal(kill.status, 0, kill.stderr);
  try {
    assert.equal(await run.code, 0, run.stderr());
    const m = manifests(store).get("survive-node")!;
    assert.equal(m.tools["slurm.attempt"], "2");
    assert.notEqual(m.tools["slurm.node"], node);
    assert.equal(readFileSync(join(store, "entries", "survive-node", m.key, "outputs", "out.txt"), "utf8"), "done");
    const log = readFileSync(join(store, "logs", "survive-node", `${m.key}.log`), "utf8");
    assert.match(log, new RegExp(`ended NODE_FAIL on ${node}; attempt 2 of 3 without ${node}`));
    assert.match(log, new RegExp(`--exclude=${node}`));
    assert.ok(!existsSync(join(store, "staging")) || readdirSync(join(store, "staging")).every((n) => !n.startsWith(m.key)), "no staging of the step left");
  } finally {
    const start = spawnSync("bash", [CLUSTER_SCRIPT, "start-node", cluster, node], { encoding: "utf8" });
    assert.equal(start.status, 0, start.stderr);
  }
});
