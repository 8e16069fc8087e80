import { test } from "node:test";
import assert from "node:assert/strict";
import { evaluateRun } from "../../steps/eval/evaluate.ts";
import { parseMetric, parseMetrics } from "../../steps/eval/metrics.ts";
import { compareUtf8, orderForEvaluation } from "../../steps/eval/ranking.ts";
import type { Qrels, Run } from "../../steps/eval/types.ts";
import { InputError } from "../../pipeline/engine/errors.ts";

const close = (actual: number | undefined, expected: number): void => {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-12, `expected ${expected}, got ${actual}`);
};

// q1: a tie between the gold 'a' and 'b' (trec_eval puts 'b' first: docno descending).
// q2: three gold passages, two retrieved at ranks 1 and 3.
// q3: has gold, absent from the run. q4: QReCC-style turn without gold. q5: run only.
const run: Run = new Map([
  ["q1", [{ docid: "a", score: 1 }, { docid: "b", score: 1 }, { docid: "c", score: 0.5 }]],
  ["q2", [{ docid: "n2", score: 0.6 }, { docid: "y", score: 0.7 }, { docid: "x", score: 0.9 }, { docid: "n1", score: 0.8 }]],
  ["q4", [{ docid: "a", score: 3 }]],
  ["q5", [{ docid: "a", score: 3 }]],
]);
const qrels: Qrels = new Map([
  ["q1", new Map([["a", 1], ["c", 0]])],
  ["q2", new Map([["x", 1], ["y", 2], ["z", 1], ["n1", 0]])],
  ["q3", new Map([["a", 1]])],
  ["q4", new Map()],
]);
const metrics = ["mrr", "recall@1", "recall@3", "success@1", "map", "map@2", "mrr@1"];

test("metric names parse through the registry, with aliases and errors", () => {
  assert.equal(parseMetric("R@10").name, "recall@10");
  assert.equal(parseMetric("hits@5").name, "success@5");
  assert.equal(parseMetric("recip_rank").name, "mrr");
  assert.equal(parseMetric("mrr@10").cutoff, 10);
  assert.throws(() => parseMetric("err@10"), (e: unknown) => e instanceof InputError && /unknown metric 'err@10'/.test(e.message) && e.field === "metrics");
  // trec_eval's own spellings.
  assert.equal(parseMetric("P.10").name, "p@10");
  assert.equal(parseMetric("P_5").name, "p@5");
  assert.equal(parseMetric("precision@3").name, "p@3");
  assert.equal(parseMetric("ndcg_cut.10").name, "ndcg@10");
  assert.equal(parseMetric("recall_100").name, "recall@100");
  assert.equal(parseMetric("map_cut_5").name, "map@5");
  assert.equal(parseMetric("ndcg").cutoff, undefined);
  assert.throws(() => parseMetric("p"), /needs a cutoff/);
  assert.throws(() => parseMetric("recall"), /needs a cutoff/);
  assert.throws(() => parseMetric("recall@0"), /cutoff 0/);
  assert.throws(() => parseMetric("recall@ten"), /cannot parse/);
  assert.throws(() => parseMetrics(["r@5", "recall@5"]), /requested twice/);
});

test("per-query values are hand-computed trec_eval numbers", () => {
  const { perQuery } = evaluateRun(run, qrels, { metrics, noGold: "normalized", missing: "zero" });
  assert.deepEqual(perQuery.map((r) => r.qid), ["q1", "q2", "q3"]);
  const [q1, q2, q3] = perQuery;
  // q1 under trec_eval order: b (tie, docno desc), a, c -> first relevant at rank 2.
  close(q1!.metrics.mrr, 0.5);
  close(q1!.metrics["mrr@1"], 0);
  close(q1!.metrics["recall@1"], 0);
  close(q1!.metrics["success@1"], 0);
  close(q1!.metrics.map, 0.5);
  assert.equal(q1!.nGold, 1); // 'c' is judged 0: not relevant
  assert.equal(q1!.nRetrieved, 3);
  // q2 re-sorted by score: x(rel) n1 y(rel) n2; 3 gold.
  close(q2!.metrics.mrr, 1);
  close(q2!.metrics["recall@1"], 1 / 3);
  close(q2!.metrics["recall@3"], 2 / 3);
  close(q2!.metrics["success@1"], 1);
  close(q2!.metrics.map, (1 / 1 + 2 / 3) / 3);
  close(q2!.metrics["map@2"], 1 / 3);
  assert.equal(q2!.nGold, 3);
  // q3 is missing from the run: all zeros.
  assert.deepEqual(q3, { qid: "q3", nGold: 1, nRetrieved: 0, metrics: Object.fromEntries(metrics.map((m) => [parseMetric(m).name, 0])) });
});

test("the tie rule changes MRR: trec_eval (docno descending) vs our writing order vs run order", () => {
  const only: Qrels = new Map([["q1", qrels.get("q1")!]]);
  const mrr = (tieRule: "trec_eval" | "docid-ascending" | "run-order"): number | undefined =>
    evaluateRun(run, only, { metrics: ["mrr"], noGold: "normalized", missing: "zero", tieRule }).aggregate.metrics.mrr;
  close(mrr("trec_eval"), 0.5);
  close(mrr("docid-ascending"), 1);
  close(mrr("run-order"), 1);
});

test("trec_eval compares scores as float32: differences below float precision are ties", () => {
  const hits = [{ docid: "a", score: 0.1 }, { docid: "b", score: 0.1 - 1e-12 }];
  assert.deepEqual(orderForEvaluation(hits, "trec_eval").map((h) => h.docid), ["b", "a"]);
  assert.deepEqual(orderForEvaluation(hits, "docid-ascending").map((h) => h.docid), ["a", "b"]);
});

test("compareUtf8 follows byte order (astral characters after U+FFFD)", () => {
  assert.ok(compareUtf8("\uFFFD", "\u{1F600}") < 0); // UTF-16 code units would say the opposite
  assert.ok(compareUtf8("ab", "abc") < 0);
  assert.ok(compareUtf8("B", "a") < 0);
  assert.equal(compareUtf8("x", "x"), 0);
});

test("aggregates under normalized/raw and zero/skip, with counts", () => {
  const a = evaluateRun(run, qrels, { metrics: ["mrr"], noGold: "normalized", missing: "zero" }).aggregate;
  close(a.metrics.mrr, (0.5 + 1 + 0) / 3);
  assert.equal(a.n, 3);
  assert.deepEqual(a.counts, { qrelsQueries: 4, runQueries: 4, evaluated: 3, noGold: 1, missingFromRun: 1, ignoredNotInQrels: 1 });

  const raw = evaluateRun(run, qrels, { metrics: ["mrr", "recall@1"], noGold: "raw", missing: "zero" });
  close(raw.aggregate.metrics.mrr, (0.5 + 1 + 0 + 0) / 4);
  assert.equal(raw.aggregate.n, 4);
  const q4 = raw.perQuery.find((r) => r.qid === "q4");
  assert.deepEqual(q4, { qid: "q4", nGold: 0, nRetrieved: 1, metrics: { mrr: 0, "recall@1": 0 } });

  const skip = evaluateRun(run, qrels, { metrics: ["mrr"], noGold: "normalized", missing: "skip" }).aggregate;
  close(skip.metrics.mrr, 0.75);
  assert.equal(skip.n, 2);
  assert.equal(skip.counts.missingFromRun, 1);
});

test("nothing to evaluate is an error, not a 0", () => {
  assert.throws(() => evaluateRun(run, new Map([["zz", new Map([["a", 1]])]]), { metrics: ["mrr"], noGold: "normalized", missing: "skip" }), /no query was evaluated/);
});
