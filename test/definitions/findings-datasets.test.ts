/**
 * The findings' per-dataset claims (pipeline/definitions/findings.ts): one "hard negatives help"
 * and one "dense beats BM25" claim per registered descriptor, in its `claimMetric` and on its
 * `inputForm`, quoting the paper's numbers of that column from paper-numbers.json
 * (findings-paper.ts): the texts that were typed by hand before, and what an edited descriptor gets.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { findingsStep } from "../../pipeline/definitions/findings.ts";
import { claimColumn, claimPaperTexts } from "../../pipeline/definitions/findings-paper.ts";
import { DATASET_DESCRIPTORS, DATASETS, descriptorOf } from "../../steps/data/datasets/registry.ts";
import { loadPaperNumbers, paperTable } from "../../steps/report/paper-numbers.ts";
import type { ClaimSpec, Operand } from "../../steps/findings/claims.ts";

interface Gain {
  readonly kind: "gain";
  readonly better: Operand;
  readonly worse: Operand;
}

test("each descriptor has its two claims, in registry order, in its claim metric, against BM25 on its input form", () => {
  const { claims } = findingsStep({ data: "mini", profile: "paper" }).step.params as { claims: ClaimSpec[] };
  const ids = (family: string) => claims.filter((c) => c.id.startsWith(`${family}-`) && !c.id.endsWith("-switch-most")).map((c) => c.id);
  assert.deepEqual(ids("hard-negatives-help"), DATASETS.map((d) => `hard-negatives-help-${d}`));
  assert.deepEqual(ids("dense-beats-bm25"), DATASETS.map((d) => `dense-beats-bm25-${d}`));
  for (const d of DATASET_DESCRIPTORS) {
    const hn = claims.find((c) => c.id === `hard-negatives-help-${d.name}`)!.rule as Gain;
    const vs = claims.find((c) => c.id === `dense-beats-bm25-${d.name}`)!;
    const rule = vs.rule as Gain;
    assert.deepEqual([hn.better.metric, hn.worse.metric, rule.better.metric, rule.worse.metric], Array(4).fill(d.claimMetric), d.name);
    assert.deepEqual(rule.worse.inputs, [`${d.name}_bm25_${d.inputForm}`], d.name);
  }
  assert.deepEqual(DATASET_DESCRIPTORS.map((d) => [d.claimMetric, d.inputForm]), [["recall@10", "history"], ["recall@5", "history"], ["mrr", "questions"]]);
  assert.equal(claims.find((c) => c.id === "dense-beats-bm25-orquac")!.measure, "mrr of DPR (IHN, last iteration) minus BM25 on Q_t");
});

test("the paper texts come out of final Tables 2 and 3 exactly as they were typed by hand", () => {
  const texts = DATASET_DESCRIPTORS.map((d) => claimPaperTexts(d));
  assert.deepEqual(texts, [
    { hardNegatives: "QReCC R@10 59.7 -> 74.8 (+15.1)", denseVsBm25: "QReCC R@10: DPR (IHN) 74.8 vs BM25(X_t) 65.1" },
    { hardNegatives: "TopiOCQA R@5 48.6 -> 61.5 (+12.9)", denseVsBm25: "TopiOCQA R@5: DPR (IHN) 61.5 vs BM25(X_t) 12.6" },
    { hardNegatives: "OR-QuAC MRR 0.525 -> 0.633 (+0.108)", denseVsBm25: "OR-QuAC MRR: DPR (IHN) 0.633 vs BM25(Q_t) 0.198" },
  ]);
  assert.deepEqual(DATASET_DESCRIPTORS.map((d) => `${claimColumn(d)!.table.id}.${claimColumn(d)!.column.id}`), ["final-table2.qrecc-r10", "final-table2.topiocqa-r5", "final-table3.orquac-mrr"]);
});

test("an edited descriptor's metric and form reach the texts; a dataset the paper lacks says so; a metric in two tables is an error", () => {
  assert.deepEqual(claimPaperTexts({ ...descriptorOf("orquac"), claimMetric: "recall@5" }), {
    hardNegatives: "OR-QuAC R@5 63.9 -> 75.9 (+12.0)",
    denseVsBm25: "OR-QuAC R@5: DPR (IHN) 75.9 vs BM25(Q_t) 24.9",
  });
  assert.deepEqual(claimPaperTexts({ ...descriptorOf("qrecc"), claimMetric: "mrr" }), {
    hardNegatives: "QReCC MRR 0.394 -> 0.516 (+0.122)",
    denseVsBm25: "QReCC MRR: DPR (IHN) 0.516 vs BM25(X_t) 0.467",
  });
  // Table 2 has no BM25(Q_t) row.
  assert.equal(claimPaperTexts({ ...descriptorOf("qrecc"), inputForm: "questions" }).denseVsBm25, "QReCC R@10: not in the paper");
  assert.deepEqual(claimPaperTexts({ name: "coqa", label: "CoQA", claimMetric: "mrr", inputForm: "history" }), { hardNegatives: "CoQA mrr: not in the paper", denseVsBm25: "CoQA mrr: not in the paper" });
  const doc = loadPaperNumbers();
  const twice = { ...doc, tables: [...doc.tables, { ...paperTable("final-table3", doc), id: "final-table3-copy" }] };
  assert.throws(() => claimColumn(descriptorOf("orquac"), twice), /orquac mrr is in final-table3\.orquac-mrr and final-table3-copy\.orquac-mrr/);
});
