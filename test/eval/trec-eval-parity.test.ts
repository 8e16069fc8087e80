import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { evaluateRun } from "../../steps/eval/evaluate.ts";
import { readTrecRun } from "../../steps/eval/trec-run.ts";
import { readQrels } from "../../steps/eval/qrels.ts";
import { formatFixed } from "../../steps/eval/format.ts";

/*
 * Parity with trec_eval itself. The qrels and the run are hand-written for this test (graded
 * relevance 0..3, a -1 judgement, float32 ties broken by docno, fewer hits than k, a gold query absent
 * from the run, a query judged only 0, a run-only query). expected-trec_eval-9.0.8.txt is the output of
 *   trec_eval -q -c -m recip_rank -m map -m P.1,3,5,10 -m recall.1,3,5,10 -m ndcg -m ndcg_cut.1,3,5,10
 *             -m success.1,3,5 -m map_cut.3,10 qrels.txt run.txt
 * with trec_eval 9.0.8 built from its sources (trec_eval is not packaged by Debian or npm, so CI
 * cannot run the tool; 10.0 prints the same values). -c averages over every qrels query with the
 * no-gold query scored 0: cspipe's --no-gold raw --missing zero.
 */
const dir = fileURLToPath(new URL("./fixtures/trec-eval/", import.meta.url));
const NAMES: Record<string, string> = { recip_rank: "mrr", map: "map", ndcg: "ndcg" };
for (const c of [1, 3, 5, 10]) Object.assign(NAMES, { [`P_${c}`]: `p@${c}`, [`recall_${c}`]: `recall@${c}`, [`ndcg_cut_${c}`]: `ndcg@${c}` });
for (const c of [1, 3, 5]) NAMES[`success_${c}`] = `success@${c}`;
for (const c of [3, 10]) NAMES[`map_cut_${c}`] = `map@${c}`;

test("every per-query and averaged value equals trec_eval 9.0.8's printed output", async () => {
  const run = await readTrecRun(`${dir}run.txt`);
  const qrels = await readQrels(`${dir}qrels.txt`);
  const ev = evaluateRun(run, qrels, { metrics: Object.values(NAMES), noGold: "raw", missing: "zero" });
  const byQid = new Map(ev.perQuery.map((r) => [r.qid, r.metrics]));
  let compared = 0;
  for (const line of readFileSync(`${dir}expected-trec_eval-9.0.8.txt`, "utf8").trim().split("\n")) {
    const [measure, qid, value] = line.trim().split(/\s+/) as [string, string, string];
    if (measure === "runid") continue;
    const name = NAMES[measure];
    assert.ok(name !== undefined, `unexpected measure ${measure}`);
    const ours = qid === "all" ? ev.aggregate.metrics[name] : byQid.get(qid)?.[name];
    assert.ok(ours !== undefined, `${measure} ${qid} missing`);
    assert.equal(formatFixed(ours, 4), value, `${measure} ${qid}`);
    compared++;
  }
  assert.equal(compared, 120);
  assert.equal(ev.aggregate.n, 6);
});

test("hand-computed: query 101 (graded gains, a -1 judgement, float32 ties by docno descending)", async () => {
  // trec_eval order: d9 (judged -1: not relevant), d2 ~ d1 tie at 8.25 -> d2 first (docno descending),
  // d7 (unjudged), d4 (6.000000001 is 6 in float32: tie with d3, d4 first), d3 (judged 0).
  // Relevant: d2 (1), d1 (2), d4 (3) at ranks 2, 3, 5.
  const run = await readTrecRun(`${dir}run.txt`);
  const qrels = await readQrels(`${dir}qrels.txt`);
  const m = evaluateRun(new Map([["101", run.get("101")!]]), new Map([["101", qrels.get("101")!]]), {
    metrics: ["mrr", "p@3", "p@10", "map", "ndcg@3", "ndcg", "recall@3"],
    noGold: "raw",
    missing: "zero",
  }).perQuery[0]!.metrics;
  const close = (a: number | undefined, b: number) => assert.ok(a !== undefined && Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
  close(m.mrr, 1 / 2);
  close(m["p@3"], 2 / 3);
  close(m["p@10"], 3 / 10); // fewer hits than k: the missing ranks count as non-relevant
  close(m.map, (1 / 2 + 2 / 3 + 3 / 5) / 3);
  close(m["recall@3"], 2 / 3);
  // DCG@3 = 1/log2(3) + 2/log2(4); ideal (3, 2, 1) = 3/1 + 2/log2(3) + 1/log2(4).
  close(m["ndcg@3"], (1 / Math.log2(3) + 2 / 2) / (3 + 2 / Math.log2(3) + 1 / 2));
  close(m.ndcg, (1 / Math.log2(3) + 2 / 2 + 3 / Math.log2(6)) / (3 + 2 / Math.log2(3) + 1 / 2));
});

test("printf rounding: exact binary ties go to the even digit, as trec_eval prints", () => {
  assert.equal(formatFixed(0.03125, 4), "0.0312");
  assert.equal(formatFixed(0.96875, 4), "0.9688");
  assert.equal(formatFixed(1 / 3, 4), "0.3333");
  assert.equal(formatFixed(0.12345, 4), "0.1235"); // not a binary tie: 0.12345000000000000417...
  assert.equal(formatFixed(2.5, 0), "2");
  assert.equal(formatFixed(-0.03125, 4), "-0.0312");
});
