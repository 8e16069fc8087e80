/**
 * Overrides in the graph (nothing runs): an override changes exactly the steps that read the
 * overridden value and everything downstream of them, and nothing else; overrides are part of
 * the memo structure (equal overrides share steps, different ones never do); a bad `--set`, or
 * one given to a target that takes none, is an analysis failure naming the targets.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalHash } from "../../pipeline/engine/canonical.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import type { Graph } from "../../pipeline/engine/graph.ts";
import { EXPERIMENTS_DIR, experimentId } from "../../pipeline/engine/targets.ts";
import { describeFailure } from "../../pipeline/engine/failures.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { modelOf, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { denseContext } from "../../pipeline/definitions/dense/base.ts";
import { ibn } from "../../pipeline/definitions/dense/variants.ts";
import { project } from "../engine/helpers.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";

const targets = buildTargets();

/** Each step's structural identity (id, version, params, and its producers' identities): what its key is made of besides sources and bytes. */
function identities(g: Graph): Map<string, string> {
  const ids = new Map<AnyStep, string>();
  for (const s of g.order) {
    const inputs: Record<string, string> = {};
    // by name: a builder that is not memoised makes equal step objects the graph merged into one (graph.byName)
    for (const { name, ref } of wiredInputs(s)) inputs[name] = `${ids.get(g.byName.get(ref.step.name)!)}:${ref.output}`;
    ids.set(s, canonicalHash({ id: s.def.id, v: s.def.version, params: g.params.get(s) ?? null, inputs }));
  }
  return new Map(g.order.map((s) => [s.name, ids.get(s)!]));
}

function graphOf(target: string, sets: string[] = []): Graph {
  const g = project(targets).graph([target], sets);
  assert.ok(g.ok, g.ok ? "" : g.failures.map(describeFailure).join("\n"));
  return g.graph;
}

/** Steps that are `seed` steps or downstream of one. */
function downstreamOf(g: Graph, seed: (s: AnyStep) => boolean): Set<string> {
  const out = new Set<string>();
  for (const s of g.order) if (seed(s) || wiredInputs(s).some((w) => out.has(w.ref.step.name))) out.add(s.name);
  return out;
}

const changed = (a: Map<string, string>, b: Map<string, string>): string[] => [...a.keys()].filter((n) => a.get(n) !== b.get(n)).sort();

test("schedule.qrecc.lr changes QReCC's trainings and what they feed, nothing else (θ0, BM25, TopiOCQA stay as they are)", () => {
  const plain = graphOf("table2");
  const lr = graphOf("table2", ["schedule.qrecc.lr=1e-4"]);
  assert.deepEqual([...lr.byName.keys()].sort(), [...plain.byName.keys()].sort(), "the same steps by name");
  const diff = changed(identities(plain), identities(lr));
  const trains = (s: AnyStep) => s.def.id === "train-dpr" && s.name.startsWith("train-dpr.mini-qrecc.");
  assert.deepEqual(diff, [...downstreamOf(lr, trains)].sort());
  // What the change reaches: 9 QReCC trainings (shortcut, IBN, IHN-2 × 3 seeds) with their lr, IHN-2's examples and
  // negatives (mined by the IBN models), every QReCC model's index, searches, evaluations, and the table.
  const byKind = (names: string[]) => {
    const counts: Record<string, number> = {};
    for (const n of names) counts[lr.byName.get(n)!.def.id] = (counts[lr.byName.get(n)!.def.id] ?? 0) + 1;
    return counts;
  };
  const kinds = byKind(diff);
  assert.equal(kinds["train-dpr"], 9);
  assert.equal(kinds["render-table"], 1);
  assert.equal(kinds["pretrain-dpr"], undefined);
  assert.equal(kinds["search-bm25"], undefined);
  assert.ok(!diff.some((n) => n.includes("topiocqa")));
  for (const n of diff.filter((n) => lr.byName.get(n)!.def.id === "train-dpr")) assert.equal((lr.params.get(lr.byName.get(n)!) as { lr: number }).lr, 1e-4, n);
  // An override to the value the code has changes nothing at all.
  assert.deepEqual(changed(identities(plain), identities(graphOf("table2", ["schedule.qrecc.lr=4e-4"]))), []);
});

test("maxPassageLength reaches θ0 (its pre-training tokenizes passages too); seeds changes which models exist", () => {
  const plain = graphOf("table4");
  const long = graphOf("table4", ["maxPassageLength=128"]);
  const diff = changed(identities(plain), identities(long));
  assert.deepEqual(diff, [...downstreamOf(long, (s) => s.def.id === "tokenize-passages")].sort());
  assert.ok(diff.includes("pretrain-dpr.mini.theta0"));
  assert.ok(!diff.some((n) => n.startsWith("search-bm25") || n.startsWith("tokenize-queries")));
  const trains = (g: Graph) => g.order.filter((s) => s.def.id === "train-dpr").map((s) => s.name).sort();
  assert.deepEqual(trains(graphOf("table4", ["seeds=7"])), ["train-dpr.mini-qrecc.ibn.s7", "train-dpr.mini-qrecc.ihn-2.s7", "train-dpr.mini-qrecc.shortcut.s7"]);
  assert.equal(trains(plain).length, 9);
});

test("overrides are memoised by structure: equal overrides share steps, different ones never do", () => {
  const a: DenseContext = { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 1e-4 } };
  const b: DenseContext = { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 1e-4 } };
  const c: DenseContext = { data: "mini", profile: "paper", overrides: { "schedule.qrecc.lr": 3e-4 } };
  const v = ibn("qrecc", 1);
  assert.equal(modelOf(a, v), modelOf(b, v));
  assert.notEqual(modelOf(a, v), modelOf(c, v));
  assert.notEqual(modelOf(a, v), modelOf({ data: "mini", profile: "paper" }, v));
  // No overrides and empty overrides are the same context.
  assert.deepEqual(denseContext({ data: "mini", overrides: {} }, "paper"), { data: "mini", profile: "paper" });
  assert.equal(modelOf(denseContext({ data: "mini", overrides: {} }, "paper"), v), modelOf({ data: "mini", profile: "paper" }, v));
});

test("a bad --set, or one for a target that takes none, fails analysis naming the targets (once per message)", () => {
  const p = project(targets);
  const bad = p.graph(["table2", "table4"], ["schedule.qrecc.lr=-1"]);
  assert.ok(!bad.ok);
  assert.deepEqual(bad.failures.map(describeFailure), [
    "--set 'schedule.qrecc.lr=-1': schedule.qrecc.lr is out of range: expects a number in (0, 1], got '-1'. Fix: give schedule.qrecc.lr a number in (0, 1] (now 0.0004): AdamW learning rate of every training on the dataset. [targets table2, table4]",
  ]);
  const none = p.graph(["demo"], ["seeds=1"]);
  assert.ok(!none.ok);
  assert.equal(none.failures.length, 1);
  assert.match(describeFailure(none.failures[0]!), /^target 'demo' takes no --set overrides \(its steps read no typed setup\)\. Fix: drop --set, or use a target that takes them \(ablation-dcsr, ablation-gold-negatives, data, dev-selection, figure2a-bm25, figure2b, .*report, report-smoke, table-dcsr, table-dcsr-smoke, .*table6, theta0-nq\); 'params <target>' lists them \[target demo\]$/);
  const lexical = p.graph(["table2-bm25"], ["seeds=1"]);
  assert.ok(!lexical.ok);
  assert.deepEqual(lexical.failures.map(describeFailure), [
    "--set 'seeds=1': unknown parameter 'seeds' in the BM25 and preprocessing setup (mini). Fix: 'params <target>' lists every path with its type and value. [target table2-bm25]",
  ]);
  const ok = p.graph(["report-smoke"], ["schedule.*.epochs=2"]);
  assert.ok(ok.ok);
  assert.deepEqual(ok.overrides, { "schedule.orquac.epochs": 2, "schedule.qrecc.epochs": 2, "schedule.topiocqa.epochs": 2 });
  // The report says what it was built with.
  const write = ok.graph.byName.get("write-report-smoke")!;
  assert.ok((ok.graph.params.get(write) as { notes: string[] }).notes.includes("Built with hyperparameters overridden on the command line: --set schedule.orquac.epochs=2 --set schedule.qrecc.epochs=2 --set schedule.topiocqa.epochs=2 (the other values are the code's)."));
  assert.equal(EXPERIMENTS_DIR, "experiments");
  assert.match(experimentId(ok.overrides), /^exp-[0-9a-f]{10}$/);
  assert.equal(experimentId({ b: 1, a: [1, 2] }), experimentId({ a: [1, 2], b: 1 }));
});

test("schedule.qrecc.k re-keys exactly what it claims: QReCC's dense searches, its BM25 over train and dev turns, mining, examples, and what they feed; never the tables' BM25 rows", () => {
  const plain = graphOf("table2");
  const deep = graphOf("table2", ["schedule.qrecc.k=50"]);
  const diff = changed(identities(plain), identities(deep));
  const claimed = (s: AnyStep) =>
    s.name.includes("mini-qrecc") && (s.def.id === "search-dense" || s.def.id === "mine-negatives" || s.def.id.startsWith("assemble-dpr-examples") || (s.def.id === "search-bm25" && /\.(train|dev)$/.test(s.name)));
  assert.deepEqual(diff, [...downstreamOf(deep, claimed)].sort());
  assert.ok(diff.includes("search-bm25.mini-qrecc.history.dev"));
  assert.ok(!diff.some((n) => /^(search-bm25|evaluate\.bm25)\.mini-qrecc\.[a-z_]+$/.test(n)), "the BM25 rows of the table keep depth 100");
  assert.ok(!diff.some((n) => n.includes("topiocqa")));
});

test("bm25.<dataset>.k1 and b: the lexical targets take them, and they re-key every BM25 search on that dataset and what it feeds, nothing else", () => {
  const lexical = graphOf("table2-bm25");
  const k1 = graphOf("table2-bm25", ["bm25.qrecc.k1=1.2"]);
  const searches = (s: AnyStep) => s.def.id === "search-bm25" && s.name.includes("mini-qrecc");
  const diff = changed(identities(lexical), identities(k1));
  assert.deepEqual(diff, [...downstreamOf(k1, searches)].sort());
  assert.deepEqual(diff.filter((n) => n.startsWith("search-bm25")), ["search-bm25.mini-qrecc.a_prev", "search-bm25.mini-qrecc.history", "search-bm25.mini-qrecc.history_without_q", "search-bm25.mini-qrecc.q_t"]);
  for (const n of diff.filter((x) => x.startsWith("search-bm25"))) assert.deepEqual(((k1.params.get(k1.byName.get(n)!) as { k1: number; b: number })), { ...(k1.params.get(k1.byName.get(n)!) as object), k1: 1.2, b: 0.68 });
  // In the dense graph the same path also reaches the searches that mine negatives and build the dev collection.
  const dense = changed(identities(graphOf("table2")), identities(graphOf("table2", ["bm25.qrecc.b=0.5"])));
  assert.ok(dense.includes("search-bm25.mini-qrecc.history.dev") && dense.includes("search-bm25.mini-qrecc.q_t"));
  assert.ok(!dense.some((n) => n.includes("topiocqa")));
  assert.ok(!project(targets).graph(["table3-bm25"], ["bm25.qrecc.k1=1.2"]).ok, "table3-bm25 reads no QReCC");
});

test("data.<dataset>.allowMissingGold reaches the dataset's preprocessing (params allowMissingGold: true) from the command line", () => {
  const g = graphOf("table1-bm25", ["data.qrecc.allowMissingGold=true"]);
  const prep = g.order.filter((s) => s.def.id === "preprocess-qrecc");
  assert.deepEqual(prep.map((s) => [s.name, (g.params.get(s) as { allowMissingGold: boolean }).allowMissingGold]), [["preprocess-mini-qrecc.test", true]]);
  const plain = graphOf("table1-bm25");
  const diff = changed(identities(plain), identities(g));
  assert.deepEqual(diff, [...downstreamOf(g, (s) => s.def.id === "preprocess-qrecc")].sort());
});
