/**
 * The default mini world is calibrated to the real data's lexical statistics: every BM25
 * number the paper prints (final Tables 2 and 3, early Tables 1 and 3, and DPR's BM25 on
 * NQ for the mini NQ-style set) lands within a factor BAND of it on the mini datasets,
 * computed with the pipeline's own BM25, query forms and trec_eval rules
 * (scripts/mini-calibration.ts). `npx tsx scripts/calibrate-mini.ts` prints the table.
 * A generator change that moves a number out of the band fails here: re-calibrate the
 * knobs against BM25 (never against dense results) and document the change.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateWorld, resolveParams } from "../../../steps/data/mini/index.ts";
import { BAND, bm25Targets, measureBm25, type CalibratedDataset } from "../../../scripts/mini-calibration.ts";

const targets = bm25Targets();

test("the targets are the paper's BM25 numbers: 12 + 12 + 8 + 3 values, as fractions", () => {
  const count = (d: CalibratedDataset) => targets.filter((t) => t.dataset === d).length;
  // QReCC: Table 2 (4 forms x 3 metrics) + early Table 1 breakdowns (BM25 on X_t over 3 types, without q_t over 2 types, x 3 metrics)
  assert.deepEqual([count("qrecc"), count("topiocqa"), count("orquac"), count("nq")], [12 + 15, 12, 8, 3]);
  const q = targets.find((t) => t.dataset === "qrecc" && t.form === "q_t" && t.metric === "recall@10" && t.group === undefined);
  assert.equal(q?.paper, 0.111);
  const nq = targets.find((t) => t.dataset === "nq" && t.metric === "recall@20");
  assert.equal(nq?.paper, 0.591);
});

for (const dataset of ["qrecc", "topiocqa", "orquac", "nq"] as const) {
  test(`mini-${dataset}: every BM25 number within x${BAND} of the paper's`, () => {
    const measured = measureBm25(generateWorld(resolveParams(`mini-${dataset}`)), dataset, targets);
    const out = measured.filter((m) => !m.inBand).map((m) => `${m.target.form}${m.target.group ? `/${m.target.group}` : ""} ${m.target.metric}: mini ${m.mini.toFixed(3)} vs paper ${m.target.paper} (x${m.ratio.toFixed(2)})`);
    assert.deepEqual(out, []);
    assert.ok(measured.every((m) => m.n >= 40), "enough evaluated turns per number");
  });
}
