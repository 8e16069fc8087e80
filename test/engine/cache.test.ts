/**
 * Cache hits and misses for each fingerprint component, early cutoff, --force, --only,
 * explain texts and failure values. Steps are defined inline; their `source` points at
 * temp files so the tests control the source component.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { explainStep, planTargets } from "../../pipeline/session.ts";
import type { LockFile } from "../../pipeline/engine/datasets-lock.ts";
import { project, registry, run, tempDir } from "./helpers.ts";

const dir = tempDir();
const srcA = join(dir, "a.ts");
const srcB = join(dir, "b.ts");
const helper = join(dir, "helper.ts");
writeFileSync(helper, "export const h = 1;\n");
writeFileSync(srcA, 'import { h } from "./helper.ts";\nexport const a = h;\n');
writeFileSync(srcB, "export const b = 2;\n");
const counter = join(dir, "executions.log");

const make = defineStep({
  id: "make-text",
  version: 1,
  source: srcA,
  params: z.object({ text: z.string(), note: z.string().default("") }).strict(),
  inputs: {},
  outputs: { text: file("text:plain", "text.txt") },
  datasets: [],
  env: ["CSPIPE_TEST_FLAVOUR"],
  runtime: {
    type: "in-process",
    async run(ctx) {
      appendFileSync(counter, "make\n");
      // `note` does not change the bytes: the early-cutoff test relies on it.
      writeFileSync(ctx.outputs.text, ctx.params.text);
    },
  },
});

const upper = defineStep({
  id: "upper-text",
  version: 1,
  source: srcB,
  params: z.object({}).strict(),
  inputs: { text: "text:plain" },
  outputs: { text: file("text:plain", "upper.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      appendFileSync(counter, "upper\n");
      writeFileSync(ctx.outputs.text, readFileSync(ctx.inputs.text, "utf8").toUpperCase());
    },
  },
});

function chain(params: { text: string; note?: string }, mk = make, up = upper) {
  const m = use(mk, { name: "make", params, inputs: {} });
  return [use(up, { name: "upper", inputs: { text: m.out.text } })];
}

test("a second run is all cache hits; outputs are published", async () => {
  const p = project(registry({ t: () => chain({ text: "hello" }) }));
  const first = await run(p, ["t"]);
  assert.equal(first.outcome.ok, true);
  assert.deepEqual(first.executed, ["make", "upper"]);
  const second = await run(p, ["t"]);
  assert.deepEqual(second.executed, []);
  assert.deepEqual(second.hits, ["make", "upper"]);
  const r = "result" in second.outcome ? second.outcome.result : undefined;
  const entry = r!.results.get("upper")!.entry!;
  assert.equal(readFileSync(p.store.outputPath(entry, "text"), "utf8"), "HELLO");
});

test("params: a changed param reruns the step; explain names it", async () => {
  const p = project(registry({ t: () => chain({ text: "hello" }), t2: () => chain({ text: "bye" }) }));
  await run(p, ["t"]);
  const ex = await explainStep(p, "make", ["t2"]);
  assert.ok(ex.ok);
  assert.equal(ex.explanation.status, "would-run");
  assert.deepEqual(ex.explanation.reasons, ["param text hello -> bye"]);
  const r = await run(p, ["t2"]);
  assert.deepEqual(r.executed, ["make", "upper"]);
});

test("early cutoff: identical upstream bytes keep consumers cached", async () => {
  const p = project(registry({ t: () => chain({ text: "same" }), t2: () => chain({ text: "same", note: "other" }) }));
  await run(p, ["t"]);
  const r = await run(p, ["t2"]);
  assert.deepEqual(r.executed, ["make"]);
  assert.deepEqual(r.hits, ["upper"]);
});

test("inputs: changed upstream bytes rerun the consumer; explain says which input", async () => {
  const p = project(registry({ t: () => chain({ text: "one" }), t2: () => chain({ text: "two" }) }));
  await run(p, ["t"]);
  const pending = await explainStep(p, "upper", ["t2"]);
  assert.ok(pending.ok);
  assert.equal(pending.explanation.status, "pending");
  assert.match(pending.explanation.reasons[0]!, /^input text: upstream step make is not cached/);
  await run(p, ["t2"], { only: "make" });
  const ex = await explainStep(p, "upper", ["t2"]);
  assert.ok(ex.ok);
  assert.match(ex.explanation.reasons[0]!, /^input text changed digest \([0-9a-f]{12} -> [0-9a-f]{12}\)$/);
});

test("sources: editing a helper invalidates exactly the steps whose closure imports it", async () => {
  const p = project(registry({ t: () => chain({ text: "src" }) }));
  await run(p, ["t"]);
  writeFileSync(helper, "export const h = 2; // edited\n");
  try {
    // A fresh project = a fresh process view of the sources.
    const p2 = project(registry({ t: () => chain({ text: "src" }) }), { store: p.store.root });
    const ex = await explainStep(p2, "make", ["t"]);
    assert.ok(ex.ok);
    assert.match(ex.explanation.reasons[0]!, /^source .*helper\.ts changed$/);
    const r = await run(p2, ["t"]);
    assert.deepEqual(r.executed, ["make"], "upper-text does not import helper.ts and its input bytes are unchanged");
    assert.deepEqual(r.hits, ["upper"]);
  } finally {
    writeFileSync(helper, "export const h = 1;\n");
  }
});

test("step version: bumping it reruns the step", async () => {
  const p = project(registry({ t: () => chain({ text: "v" }), t2: () => chain({ text: "v" }, { ...make, version: 2 }) }));
  await run(p, ["t"]);
  const ex = await explainStep(p, "make", ["t2"]);
  assert.ok(ex.ok);
  assert.deepEqual(ex.explanation.reasons, ["step version 1 -> 2"]);
});

test("env: an allow-listed variable enters the key, others do not", async () => {
  const store = join(tempDir(), "store");
  const targets = () => registry({ t: () => chain({ text: "env" }) });
  await run(project(targets(), { store, env: { CSPIPE_TEST_FLAVOUR: "a", UNRELATED: "1" } }), ["t"]);
  const same = await run(project(targets(), { store, env: { CSPIPE_TEST_FLAVOUR: "a", UNRELATED: "2" } }), ["t"]);
  assert.deepEqual(same.executed, []);
  const p = project(targets(), { store, env: { CSPIPE_TEST_FLAVOUR: "b" } });
  const ex = await explainStep(p, "make", ["t"]);
  assert.ok(ex.ok);
  assert.deepEqual(ex.explanation.reasons, ["env CSPIPE_TEST_FLAVOUR a -> b"]);
});

test("datasets: a changed lock entry reruns exactly its readers", async () => {
  const reader = { ...make, datasets: ["corpus"] as const };
  const lock = (sha: string): LockFile => ({
    version: 1,
    entries: { corpus: { description: "c", urls: ["https://example.org/c.jsonl"], file: "c.jsonl", sha256: sha, size: 1, license: "CC0", unpack: "none" } },
  });
  const store = join(tempDir(), "store");
  const targets = () => registry({ t: () => chain({ text: "d" }, reader) });
  await run(project(targets(), { store, lock: lock("a".repeat(64)) }), ["t"]);
  const p = project(targets(), { store, lock: lock("b".repeat(64)) });
  const ex = await explainStep(p, "make", ["t"]);
  assert.ok(ex.ok);
  assert.deepEqual(ex.explanation.reasons, ["dataset corpus lock entry changed"]);
});

test("runtime: a different container image changes the key", async () => {
  const img = (d: string) =>
    defineStep({
      id: "container-step",
      version: 1,
      source: srcB,
      params: z.object({}),
      inputs: {},
      outputs: { out: file("text:plain", "o.txt") },
      runtime: { type: "container", image: `example/img@sha256:${d.repeat(64)}`, argv: ["node", "-e", "0"] },
    });
  const p = project(registry({ a: () => [use(img("a"), { inputs: {} })], b: () => [use(img("b"), { inputs: {} })] }));
  const a = await planTargets(p, ["a"]);
  const b = await planTargets(p, ["b"]);
  assert.ok(a.ok && b.ok);
  assert.notEqual(a.rows[0]!.key, b.rows[0]!.key);
});

test("--force reruns one step; identical output keeps downstream cached", async () => {
  const p = project(registry({ t: () => chain({ text: "force" }) }));
  await run(p, ["t"]);
  const r = await run(p, ["t"], { force: ["make"] });
  assert.deepEqual(r.executed, ["make"]);
  assert.deepEqual(r.hits, ["upper"]);
});

test("--only runs one step from cached inputs and refuses when an input is missing", async () => {
  const p = project(registry({ t: () => chain({ text: "only" }) }));
  const refused = await run(p, ["t"], { only: "upper" });
  assert.equal(refused.outcome.ok, false);
  assert.deepEqual(refused.outcome.analysis.map((f) => f.reason), ["input-not-cached"]);
  assert.deepEqual(refused.executed, []);
  const first = await run(p, ["t"], { only: "make" });
  assert.deepEqual(first.executed, ["make"]);
  const second = await run(p, ["t"], { only: "upper" });
  assert.deepEqual(second.executed, ["upper"]);
});

test("analysis failures are all collected before anything runs", async () => {
  const locked = { ...upper, id: "needs-lock", datasets: ["missing-entry"] };
  const p = project(
    registry({
      t: () => {
        const m = use(make, { name: "make", params: { text: 3 as unknown as string }, inputs: {} });
        return [use(locked, { name: "locked", inputs: { text: m.out.text } })];
      },
    }),
  );
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, false);
  assert.deepEqual(r.outcome.analysis.map((f) => f.reason).sort(), ["dataset-not-locked", "invalid-params"]);
  assert.deepEqual(r.executed, []);
});

test("a wrong kind wired through a cast is caught at analysis", async () => {
  const wantsIndex = defineStep({
    id: "wants-index",
    version: 1,
    source: srcB,
    params: z.object({}),
    inputs: { text: "bm25-index" },
    outputs: { out: file("text:plain", "o.txt") },
    runtime: { type: "in-process", async run() {} },
  });
  const p = project(
    registry({
      t: () => {
        const m = use(make, { name: "make", params: { text: "x" }, inputs: {} });
        return [use(wantsIndex, { name: "w", inputs: { text: m.out.text as never } })];
      },
    }),
  );
  const r = await run(p, ["t"]);
  assert.deepEqual(r.outcome.analysis, [{ reason: "kind-mismatch", step: "w", input: "text", expected: "bm25-index", actual: "text:plain" }]);
});

test("a thrown error is a run failure value with the log path; failure-mode continue runs independent steps", async () => {
  const boom = defineStep({ ...make, id: "boom", runtime: { type: "in-process", async run() { throw new Error("kaput"); } } });
  const p = project(
    registry({
      t: () => [
        use(boom, { name: "boom", params: { text: "x" }, inputs: {} }),
        ...chain({ text: "independent" }),
      ],
    }),
  );
  const r = await run(p, ["t"], { failureMode: "continue", concurrency: 1 });
  assert.equal(r.outcome.ok, false);
  const res = "result" in r.outcome ? r.outcome.result : undefined;
  assert.equal(res!.failures.length, 1);
  const f = res!.failures[0]!;
  assert.equal(f.reason, "step-threw");
  assert.ok(f.reason === "step-threw" && f.message === "kaput" && readFileSync(f.log, "utf8").includes("kaput"));
  assert.deepEqual(r.executed, ["boom", "make", "upper"]);
  assert.equal((await p.store.entries()).filter((e) => e.stepId === "boom").length, 0, "nothing published for a failed step");
});

test("a container step that exits non-zero reports argv, exit status and log", async () => {
  const exits = defineStep({
    id: "exit-three",
    version: 1,
    source: srcB,
    params: z.object({}),
    inputs: {},
    outputs: { out: file("text:plain", "o.txt") },
    runtime: { type: "container", image: `example/img@sha256:${"c".repeat(64)}`, argv: ["node", "-e", "console.log('about to fail'); process.exit(3)", "{out:out}"] },
  });
  const p = project(registry({ t: () => [use(exits, { inputs: {} })] }));
  const r = await run(p, ["t"]);
  const res = "result" in r.outcome ? r.outcome.result : undefined;
  const f = res!.failures[0]!;
  assert.equal(f.reason, "exit-nonzero");
  if (f.reason !== "exit-nonzero") return;
  assert.equal(f.exitStatus, 3);
  assert.equal(f.argv[0], "node");
  assert.match(f.argv[3]!, /staging\/.*\/outputs\/o\.txt$/);
  assert.ok(f.tail.includes("about to fail"));
  assert.ok(readFileSync(f.log, "utf8").includes("about to fail"));
});

test("a container step needing Python modules that are missing names what to install", async () => {
  const py = defineStep({
    id: "needs-python",
    version: 1,
    source: srcB,
    params: z.object({}),
    inputs: {},
    outputs: { out: file("text:plain", "o.txt") },
    runtime: { type: "container", image: `example/img@sha256:${"d".repeat(64)}`, argv: ["python3", "-c", "pass"], pythonModules: ["torch"] },
  });
  const p = project(registry({ t: () => [use(py, { inputs: {} })] }), { env: { CSPIPE_PYTHON: "/nonexistent/python3" } });
  const r = await run(p, ["t"]);
  const res = "result" in r.outcome ? r.outcome.result : undefined;
  const f = res!.failures[0]!;
  assert.equal(f.reason, "interpreter-missing");
  assert.ok(f.reason === "interpreter-missing");
  assert.match(f.message, /\/nonexistent\/python3: not runnable/);
  assert.match(f.message, /apt-get install python3-torch/);
});

test("a tampered entry is recomputed: a plain run sees it by its stat stamp, --verify by re-hashing", async () => {
  const p = project(registry({ t: () => chain({ text: "tamper" }) }));
  const first = await run(p, ["t"]);
  const res = "result" in first.outcome ? first.outcome.result : undefined;
  const entry = res!.results.get("upper")!.entry!;
  const out = p.store.outputPath(entry, "text");
  writeFileSync(out, "EVIL");
  const plain = await run(p, ["t"]);
  assert.deepEqual(plain.executed, ["upper"]);
  assert.deepEqual(plain.events.filter((e) => e.type === "tampered").map((e) => (e as { step: string }).step), ["upper"]);
  assert.equal(readFileSync(out, "utf8"), "TAMPER");

  // Only a forged stamp cache (vouching for the new bytes) hides a change from a plain run; --verify ignores stamps.
  writeFileSync(out, "EVIL");
  await new Promise((r) => setTimeout(r, 150));
  const { statSync } = await import("node:fs");
  const s = statSync(out, { bigint: true });
  const stamps = join(p.store.root, "stamps", `${entry.key}.json`);
  const digest = entry.manifest.outputs.text!.digest;
  writeFileSync(stamps, JSON.stringify({ schema: 1, files: { text: { size: Number(s.size), mtimeNs: String(s.mtimeNs), ctimeNs: String(s.ctimeNs), ino: String(s.ino), dev: String(s.dev), digest, at: Date.now() } } }));
  const fresh = project(registry({ t: () => chain({ text: "tamper" }) }), { store: p.store.root }); // a new process
  const trusting = await run(fresh, ["t"]);
  assert.deepEqual(trusting.executed, [], "the forged stamp is believed");
  const verified = await run(fresh, ["t"], { verify: true });
  assert.deepEqual(verified.executed, ["upper"]);
  assert.deepEqual(verified.events.filter((e) => e.type === "tampered").map((e) => (e as { step: string }).step), ["upper"]);
  assert.equal(readFileSync(out, "utf8"), "TAMPER");
});

test("identical steps in two targets run once (dedup by key)", async () => {
  const p = project(registry({ t1: () => chain({ text: "dup" }), t2: () => chain({ text: "dup" }) }));
  const r = await run(p, ["t1", "t2"]);
  assert.deepEqual(r.executed, ["make", "upper"]);
});

test("gc keeps pinned entries and each target's recent runs, and reports bytes freed", async () => {
  const { collectGarbage, pinTarget } = await import("../../pipeline/session.ts");
  const p = project(registry({ keep: () => chain({ text: "keep" }), drop: () => chain({ text: "drop!" }) }));
  await run(p, ["drop"]);
  await run(p, ["keep"]);
  const pinned = await pinTarget(p, "kept", "keep");
  assert.ok(pinned.ok);
  // --keep-runs counts per target: the later run of 'keep' does not evict 'drop'.
  const perTarget = await collectGarbage(p, { keepRuns: 1 });
  assert.deepEqual([perTarget.removed.length, perTarget.prunedRuns], [0, 0]);
  const r = await collectGarbage(p, { keepRuns: 0 });
  assert.deepEqual(r.removed.map((e) => e.manifest.step.name).sort(), ["make", "upper"]);
  assert.ok(r.bytes > 0);
  assert.equal(r.prunedRuns, 2, "no run record is kept with --keep-runs 0");
  assert.equal((await p.store.runs()).length, 0);
  const again = await run(p, ["keep"]);
  assert.deepEqual(again.executed, [], "the pinned target's entries stay");
});

test("a deep graph with fan-in analyses (identities stay bounded)", async () => {
  // 40 layers x 3 steps, each reading two steps of the previous layer: before identities were
  // hashed, this shape overflowed the maximum string length at ~14 layers.
  const { analyze } = await import("../../pipeline/engine/graph.ts");
  const join2 = defineStep({
    id: "join-two",
    version: 1,
    source: srcB,
    params: z.object({ at: z.string() }),
    inputs: { a: "text:plain", b: "text:plain" },
    outputs: { text: file("text:plain", "t.txt") },
    runtime: { type: "in-process", async run() {} },
  });
  let layer = [0, 1, 2].map((j) => use(make, { name: `l0-${j}`, params: { text: String(j) }, inputs: {} }).out.text);
  for (let l = 1; l < 40; l++) {
    layer = [0, 1, 2].map((j) => use(join2, { name: `l${l}-${j}`, params: { at: `${l}-${j}` }, inputs: { a: layer[j]!, b: layer[(j + 1) % 3]! } }).out.text);
  }
  const r = analyze([layer[0]!.step], { version: 1, entries: {} });
  assert.ok(r.ok);
  // Reachable from l39-0: itself, l38-0 and l38-1, then all 3 steps of layers 0..37: 1 + 2 + 38 * 3 = 117.
  assert.equal(r.graph.order.length, 117);
});

test("gc keeps steps' scratch unless asked, and never removes it while a run holds a live lease", async () => {
  const { collectGarbage } = await import("../../pipeline/session.ts");
  const p = project(registry({ t: () => chain({ text: "scratch" }) }));
  await run(p, ["t"]);
  const partial = join(p.store.scratchDir("fetch-dataset"), "some-entry", ".partial");
  mkdirSync(partial, { recursive: true });
  writeFileSync(join(partial, "big.zip"), "x".repeat(1000));
  const kept = await collectGarbage(p, { keepRuns: 1 });
  assert.deepEqual({ ...kept.scratch, busy: kept.scratch.busy.length }, { bytes: 1000, dirs: 1, removed: false, busy: 0 });
  assert.ok(existsSync(join(partial, "big.zip")));

  // A live lease (this process, fresh heartbeat): another run may be writing to scratch.
  const lease = await p.store.lease("f".repeat(64));
  try {
    const busy = await collectGarbage(p, { keepRuns: 1, scratch: true });
    assert.equal(busy.scratch.removed, false);
    assert.deepEqual(busy.scratch.busy.map((h) => h.pid), [process.pid]);
    assert.ok(existsSync(join(partial, "big.zip")));
  } finally {
    await lease.release();
  }
  const dry = await collectGarbage(p, { keepRuns: 1, scratch: true, dryRun: true });
  assert.equal(dry.scratch.removed, true);
  assert.equal(dry.bytes, 1000);
  assert.ok(existsSync(join(partial, "big.zip")), "a dry run removes nothing");
  const done = await collectGarbage(p, { keepRuns: 1, scratch: true });
  assert.equal(done.bytes, 1000);
  assert.ok(!existsSync(join(p.store.scratchDir("fetch-dataset"), "some-entry")));
  const again = await run(p, ["t"]);
  assert.deepEqual(again.executed, [], "entries are untouched");
});
