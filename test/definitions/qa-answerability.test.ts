/**
 * Table 5's ceilings (nothing runs): one `measure-answerability` per dataset, retriever and
 * retriever seed over the dev split the readers read (the same runs, at the readers' depths,
 * the DPR reader's max answer length), gold answers from the dataset's own dev file; on mini also
 * mini-nq dev from its turns; the table in `table5`, in its own target and in report-full; no
 * reader trains for it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { graphOf, producer } from "./graph-helpers.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { paperRetrievers, retrieverRun } from "../../pipeline/definitions/qa/retrievers.ts";
import { answerabilityOf, qaCeilingsSection } from "../../pipeline/definitions/qa/answerability.ts";

const MINI: DenseContext = { data: "mini", profile: "paper" };
const params = <T>(s: AnyStep) => s.params as T;

test("the ceilings target measures each dataset's dev split under the runs the readers read, and trains no reader", () => {
  const targets = buildTargets();
  const g = graphOf(targets.get("table5-ceilings")!.steps({ data: "mini" }));
  const measured = g.order.filter((s) => s.def.id === "measure-answerability").map((s) => s.name);
  // BM25 once, DPR IBN / IHN once per seed (1-3), per dataset; mini-nq once.
  assert.equal(measured.length, 2 * (1 + 2 * 3) + 1);
  assert.ok(measured.includes("measure-answerability.mini-nq.bm25.dev"));
  assert.ok(!g.order.some((s) => /reader|fid/.test(s.def.id) && s.def.id !== "measure-answerability"), "no reader step");
  const m = answerabilityOf(MINI, "topiocqa", paperRetrievers(MINI, "topiocqa", 2).ihn).step;
  assert.equal(m.name, "measure-answerability.mini-topiocqa.dpr-ihn.s2.dev");
  assert.deepEqual(params(m), { split: "dev", scoring: "topiocqa", ks: [3, 10], maxAnswerTokens: 10 });
  assert.equal(producer(m, "run"), retrieverRun(MINI, "topiocqa", paperRetrievers(MINI, "topiocqa", 2).ihn, "dev").step);
  const q = answerabilityOf(MINI, "qrecc", paperRetrievers(MINI, "qrecc", 3).bm25).step;
  assert.equal(q, answerabilityOf(MINI, "qrecc", paperRetrievers(MINI, "qrecc", 1).bm25).step, "BM25 has no seed");
  assert.deepEqual(params(q), { split: "dev", scoring: "qrecc", ks: [3, 10], maxAnswerTokens: 30 });
  assert.deepEqual(params(producer(q, "references")), { files: ["scai-qrecc21-training-turns.json"] });
  // The table rides along with Table 5; report-full lists its section.
  assert.ok(targets.get("table5")!.steps({ data: "mini" }).some((s) => s.name === "render-table5-ceilings"));
  assert.equal(qaCeilingsSection("paper").build({ data: "mini" }).step.name, "render-table5-ceilings");
});
