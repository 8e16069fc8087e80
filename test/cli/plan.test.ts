/**
 * `plan` on the command line: nodes and edges as JSON, Graphviz dot and Mermaid (full and
 * collapsed to the stage graph), the expected duration, and the same refusals as `run`
 * (same messages, exit code 2), in-process for datasets that are not pinned.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir as outDir, file, use } from "../../pipeline/engine/step.ts";
import { pythonArgv } from "../../steps/pytrain/launch.ts";
import { planRun } from "../../pipeline/session.ts";
import { ROOT, project, registry, run, tempDir } from "../engine/helpers.ts";
import { planDocument, planDot, planMermaid, planText, type PlanDocument } from "../../pipeline/commands/plan.ts";
import { buildTargets } from "../fixtures/engine/targets.ts";
import type { LockFile } from "../../pipeline/engine/datasets-lock.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "targets.ts");

function cli(args: string[]) {
  return spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...process.env, CSPIPE_DEFINITIONS: DEFS }, encoding: "utf8" });
}

test("plan --format json|dot|mermaid: every step, every edge, and the stage graph", async () => {
  const store = join(tempDir(), "store");
  // The command end to end once; the other formats render the same document in-process.
  const json = cli(["--store", store, "plan", "chain", "--json"]);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as PlanDocument;
  assert.equal(doc.schema, "cspipe.plan/1");
  assert.deepEqual(doc.nodes.map((n) => [n.step, n.stepId, n.status, n.expectedSeconds]), [
    ["slow-a", "slow-write", "run", 1],
    ["slow-b", "slow-write", "run", 1],
    ["join-ab", "join-text", "pending", 1],
    ["slow-c", "slow-write", "run", 1],
    ["join-abc", "join-text", "pending", 1],
  ]);
  assert.ok(doc.nodes.filter((n) => n.status === "run").every((n) => /^[0-9a-f]{64}$/.test(n.key ?? "")));
  assert.deepEqual(doc.edges.map((e) => `${e.from} -${e.input}-> ${e.to} (${e.kind})`), [
    "slow-a -a-> join-ab (text:plain)",
    "slow-b -b-> join-ab (text:plain)",
    "join-ab -a-> join-abc (text:plain)",
    "slow-c -b-> join-abc (text:plain)",
  ]);
  // 2 slots, 1 s each: a and b, then c beside join-ab, then join-abc.
  // The fixture's definitions have no reference run: every duration is a cost hint (a guess).
  assert.deepEqual(doc.summary, { steps: 5, cached: 0, run: 3, pending: 2, expectedSeconds: 3, concurrency: 2, estimates: { recorded: 0, reference: 0, hint: 5, seconds: 5, hintSeconds: 5 } });
  assert.ok(doc.nodes.every((n) => n.estimate === "hint"));
  const p = project(buildTargets(), { store });
  const r = await planRun(p, { targets: ["chain"], executor: "local" });
  assert.ok(r.ok);
  const same = planDocument(["chain"], r.graph, r.rows, r.estimates, 2, { scanner: p.scanner });
  assert.deepEqual(same, doc, "the CLI prints the document");
  assert.ok(doc.nodes.every((n) => n.sources?.includes("test/fixtures/engine/targets.ts") === true && n.argv === undefined), "in-process steps: their module's closure, no argv");

  const dot = planDot(doc, false);
  assert.match(dot, /^digraph plan \{/);
  assert.match(dot, /"slow-a" -> "join-ab" \[tooltip="a \(text:plain\)"\];/);
  assert.match(dot, /"join-abc" \[label="join-abc\\njoin-text · pending", fillcolor="#eeeeee"\];/);
  const stages = planDot(doc, true);
  assert.match(stages, /"slow-write" \[label="slow-write ×3", fillcolor="#eef2f7"\];/);
  assert.match(stages, /"slow-write" -> "join-text" \[label="3"\];/);
  assert.doesNotMatch(stages, /"join-text" -> "join-text"/, "edges inside a stage are not drawn");
  const mermaid = planMermaid(doc, false);
  assert.match(mermaid, /^flowchart TD\n {2}n0\["slow-a<br\/>slow-write · run"\]:::run\n/);
  assert.match(mermaid, /\n {2}n0 --> n2\n/);
  assert.match(planMermaid(doc, true), /\n {2}s0 -->\|3\| s1\n/);
  const text = planText(doc);
  assert.match(text, /^run {6}slow-a [0-9a-f]{12}$/m);
  assert.match(text, /^5 steps: 0 cached, 3 to run, 2 pending on upstream; expected 0:03 with 2 at once \(a guess: durations: 5 guessed from cost hints\)$/m);
});

test("plan refuses what run refuses, with the same message and exit code", async () => {
  const store = join(tempDir(), "store");
  // On the command line once (the exit code and the lines a person reads) ...
  const pc = cli(["--store", store, "plan", "chain", "--force", "nope"]);
  const rc = cli(["--store", store, "run", "chain", "--force", "nope"]);
  const errors = (x: { stdout: string; stderr: string }) => `${x.stdout}${x.stderr}`.split("\n").filter((l) => l.startsWith("error: "));
  assert.deepEqual([pc.status, rc.status], [2, 2]);
  assert.deepEqual(errors(pc), ["error: unknown step 'nope' ('plan <target>' lists the 5 steps of a target's graph)"]);
  assert.deepEqual(errors(pc), errors(rc));
  // ... and every kind of refusal in-process: the same failure values.
  const p = project(buildTargets(), { store });
  for (const req of [{ force: ["nope"] }, { only: "ghost" }, { executor: "dagger" as const }, { only: "join-ab" }]) {
    const planned = await planRun(p, { targets: ["chain"], executor: "local", ...req });
    const ran = await run(p, ["chain"], req);
    assert.equal(planned.ok, false, JSON.stringify(req));
    assert.deepEqual(ran.outcome.analysis, !planned.ok && planned.failures, JSON.stringify(req));
    assert.deepEqual(ran.executed, []);
  }
});

const dir = tempDir();
writeFileSync(join(dir, "fixture.ts"), "export const fixture = 1;\n");
const fetchLike = defineStep({
  id: "read-locked",
  version: 1,
  source: join(dir, "fixture.ts"),
  params: z.object({}).strict(),
  inputs: {},
  datasets: ["loose"],
  outputs: { out: file("text:plain", "out.txt") },
  runtime: { type: "in-process", run: async () => undefined },
});

test("an unpinned dataset to fetch: plan reports exactly the failures run stops at", async () => {
  const lock: LockFile = { version: 1, entries: { loose: { description: "x", urls: ["https://example.org/x"], file: "x", sha256: null, size: null, license: "x", unpack: "none" } } };
  const p = project(registry({ t: () => [use(fetchLike, { name: "read-loose", inputs: {} })] }), { lock });
  const planned = await planRun(p, { targets: ["t"], executor: "local" });
  const ran = await run(p, ["t"]);
  assert.equal(planned.ok, false);
  assert.deepEqual(!planned.ok && planned.failures, [{ reason: "dataset-unpinned", step: "read-loose", dataset: "loose", file: "x", urls: ["https://example.org/x"] }]);
  assert.deepEqual(ran.outcome.analysis, !planned.ok && planned.failures);
  assert.deepEqual(ran.executed, []);
  const allowed = await planRun(p, { targets: ["t"], executor: "local", settings: { allowUnpinned: true } });
  assert.equal(allowed.ok, true);
});

test("plan --format json: a program step's sources are its program's import closure, and its argv is shown, while its key is pending", async () => {
  const make = defineStep({
    id: "make-text",
    version: 1,
    source: import.meta.url,
    params: z.object({}),
    inputs: {},
    outputs: { out: file("text:plain", "a.txt") },
    runtime: { type: "in-process", run: async (ctx) => writeFileSync(ctx.outputs.out, "a") },
  });
  const argv = pythonArgv("training.dpr.train", ["--config", "{params}", "--inputs", "{in:text}", "--out", "{out:model}"]);
  const train = defineStep({
    id: "train-on-text",
    version: 1,
    source: import.meta.url,
    params: z.object({}),
    inputs: { text: "text:plain" },
    outputs: { model: outDir("dpr:model", "model") },
    runtime: { type: "container", image: `x@sha256:${"c".repeat(64)}`, argv },
  });
  const p = project(registry({ t: () => [use(train, { inputs: { text: use(make, { inputs: {} }).out.out } })] }));
  const r = await planRun(p, { targets: ["t"], executor: "local" });
  assert.ok(r.ok);
  const node = planDocument(["t"], r.graph, r.rows, r.estimates, 2, { scanner: p.scanner }).nodes.find((n) => n.stepId === "train-on-text")!;
  assert.equal(node.status, "pending");
  assert.equal(node.key, undefined);
  assert.deepEqual(node.argv, argv);
  const sources = node.sources;
  assert.ok(sources !== undefined, "a plan asked for its code lists every node's sources");
  for (const f of ["steps/__main__.py", "steps/training/dpr/train.py", "steps/training/dpr/trainer.py", "steps/pytrain/run.py", "steps/pytrain/loop.py", "test/cli/plan.test.ts"]) assert.ok(sources.includes(f), f);
  assert.ok(!sources.includes("steps/qa/fid/fid.py"));
});
