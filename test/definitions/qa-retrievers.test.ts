/**
 * The QA stage's retrievers are records (pipeline/definitions/qa/retrievers.ts; nothing runs):
 * a DCSR row is one more record in a Table 5 row list, no edit to the readers; its readers train,
 * are selected and answer on the DCSR model's own HasAns runs, the very search steps table-dcsr
 * evaluates; ids and labels come from the registry.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { graphOf, inputsIn, producer } from "./graph-helpers.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { dcsr, dcsrIhn } from "../../pipeline/definitions/dcsr/variants.ts";
import { dcsrSearch } from "../../pipeline/definitions/dcsr/graph.ts";
import { shortcut } from "../../pipeline/definitions/dense/variants.ts";
import { retrieverId, retrieverLabel, type QaRetriever } from "../../pipeline/definitions/qa/retrievers.ts";
import { table5, table5Rows, table5Spec, type QaRows } from "../../pipeline/definitions/qa/table5.ts";

const SMOKE: DenseContext = { data: "mini", profile: "smoke" };

/** Table 5 with one more row: FiD on DCSR's passages (the smoke profile: one seed, one epoch). */
const withDcsr: QaRows = (ctx, dataset, seed) => [...table5Rows(ctx, dataset, seed), { retriever: { kind: "dcsr", variant: dcsr(dataset, seed) }, reader: "fid" }];

test("a DCSR row is one record: the graph analyzes and DCSR's search steps feed the FiD reader's data", () => {
  const table = table5(SMOKE, withDcsr).step;
  const g = graphOf([table]);
  const spec = table5Spec(SMOKE, withDcsr);
  assert.deepEqual(spec.rows.at(-1), { id: "dcsr/fid", label: "DCSR / FiD" }, "not a paper row");
  assert.deepEqual(inputsIn(table, "metrics").filter((n) => n.includes("dcsr")), ["qrecc_dcsr_fid_s1", "topiocqa_dcsr_fid_s1"]);
  const evaluate = producer(table, "metrics[qrecc_dcsr_fid_s1]");
  assert.equal(evaluate.name, "evaluate-qa.mini-smoke-qrecc.dcsr.fid.s1");
  const predict = producer(evaluate, "predictions");
  const model = producer(predict, "model");
  assert.equal(model.name, "train-fid.mini-smoke-qrecc.dcsr.s1");
  const inputs = producer(model, "inputs");
  const data: [AnyStep, string][] = [[producer(inputs, "train"), "train"], [producer(inputs, "dev"), "dev"], [producer(producer(predict, "inputs"), "data"), "test"]];
  for (const [d, split] of data) {
    assert.equal(d.name, `build-reader-data.mini-smoke-qrecc.dcsr.s1.${split}`);
    assert.equal(producer(d, "run"), dcsrSearch(SMOKE, dcsr("qrecc", 1), "history", split).run.step, `${d.name} reads DCSR's ${split} run`);
  }
  // The test-split search is table-dcsr-smoke's own step: one model, one search, shared.
  const dcsrTable = graphOf(buildTargets().get("table-dcsr-smoke")!.steps({ data: "mini" }));
  assert.ok(dcsrTable.order.includes(producer(data[2]![0], "run")));
  assert.ok(g.order.some((s) => s.name === "train-dcsr.mini-smoke-qrecc.dcsr.s1"));
});

test("ids and labels come from the registry; a trained retriever's seed stays out of its id", () => {
  const cases: [QaRetriever, string, string][] = [
    [{ kind: "bm25", form: "history" }, "bm25", "BM25(X_t)"],
    [{ kind: "bm25", form: "q_t" }, "bm25.q_t", "BM25(q_t)"],
    [{ kind: "dpr", variant: shortcut("qrecc", 2) }, "dpr-shortcut", "DPR (shortcut)"],
    [{ kind: "dcsr", variant: dcsr("qrecc", 2) }, "dcsr", "DCSR"],
    [{ kind: "dcsr", variant: dcsrIhn("qrecc", 2, 1) }, "dcsr-ihn-2", "DCSR (dcsr-ihn-2)"],
  ];
  // A record is type-checked: a DPR record holds a DPR variant, a BM25 record a query form.
  // @ts-expect-error a DCSR variant is no DPR variant
  const wrongVariant: QaRetriever = { kind: "dpr", variant: dcsr("qrecc", 1) };
  // @ts-expect-error "X_t" is the paper's name, not a query form
  const wrongForm: QaRetriever = { kind: "bm25", form: "X_t" };
  void [wrongVariant, wrongForm];
  for (const [r, id, label] of cases) assert.deepEqual([retrieverId(SMOKE, "qrecc", r), retrieverLabel(SMOKE, "qrecc", r)], [id, label]);
  const [ibn, ihn] = table5Rows(SMOKE, "topiocqa", 1).map((r) => r.retriever);
  assert.deepEqual([retrieverLabel(SMOKE, "topiocqa", ibn!), retrieverLabel(SMOKE, "topiocqa", ihn!)], ["DPR (IBN)", "DPR (IHN)"]);
});

test("a row list that names other rows for another seed is refused", () => {
  const shifting: QaRows = (ctx, dataset, seed) => (seed === 1 ? table5Rows(ctx, dataset, seed) : table5Rows(ctx, dataset, seed).slice(1));
  assert.throws(() => table5({ data: "mini", profile: "paper" }, shifting), /Table 5 row 1 on qrecc is dpr-ibn\/dpr-reader for the first seed but dpr-ihn\/dpr-reader for seed 2/);
});
