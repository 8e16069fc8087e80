/**
 * DCSR's graph builds and analyzes (nothing runs): DCSR x IHN is wired as IHN is (every
 * iteration trains from θ0, iteration i's negative sentences are mined by iteration i-1 of
 * the same seed on the training turns), DCSR reads the very queries, BM25 negatives and dev
 * collection DPR reads (the graph merges them: one step per name), table-dcsr is a target of
 * its own (not in the reports) wired to the report's DPR evaluations, and the real-data graph
 * asks for a GPU and BERT's [unused0] marker.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { graphOf, inputsIn, producer } from "../definitions/graph-helpers.ts";
import { wiredInput } from "../../pipeline/engine/wiring.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { dcsrModelOf } from "../../pipeline/definitions/dcsr/graph.ts";
import { dcsrIhn } from "../../pipeline/definitions/dcsr/variants.ts";
import { modelOf, theta0Id, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { mined } from "../../pipeline/definitions/dense/variants.ts";

const MINI: DenseContext = { data: "mini", profile: "paper" };

test("DCSR x IHN: every iteration trains from its seed's θ0; iteration i > 1 learns from sentences mined by iteration i-1 of the same seed", () => {
  for (const seed of [1, 2]) {
    const theta0 = modelOf(MINI, theta0Id(MINI, seed)).step;
    const iters = [1, 2, 3].map((i) => dcsrModelOf(MINI, dcsrIhn("topiocqa", i, seed)).step);
    for (const s of iters) {
      assert.equal(s.def.id, "train-dcsr");
      assert.equal(producer(s, "init"), theta0);
      assert.equal((s.params as { seed: number }).seed, seed);
      assert.equal((s.params as { in_passage_negatives: number }).in_passage_negatives, 1);
    }
    const first = producer(iters[0]!, "examples");
    assert.equal(producer(first, "negatives").name, "mine-negatives.mini-topiocqa.bm25");
    for (const i of [1, 2]) {
      const examples = producer(iters[i]!, "examples");
      assert.match(examples.def.id, /^assemble-dcsr-examples-mined/);
      const mine = producer(examples, "negatives");
      assert.equal(mine.def.id, "mine-dcsr-negatives");
      const search = producer(mine, "sentences");
      assert.equal(search.def.id, "search-dcsr");
      const queries = producer(search, "queries");
      assert.equal(producer(queries, "model"), iters[i - 1], `iteration ${i + 1} mines with iteration ${i}`);
      assert.equal((producer(queries, "tokens").params as { split: string }).split, "train");
      for (const shard of ["shards[0]", "shards[1]"]) assert.equal(producer(producer(search, shard), "model"), iters[i - 1]);
    }
    // DPR's batch halved (each example brings a negative passage), as DPR's with hard negatives.
    assert.deepEqual(iters.map((s) => (s.params as { batch_size: number }).batch_size), [16, 16, 16]);
  }
  // On real data the last iteration (I = 3 on TopiOCQA) trains 40 epochs, the others 10, as DPR's IHN.
  const real: DenseContext = { data: "real", profile: "paper" };
  assert.deepEqual([1, 2, 3].map((i) => (dcsrModelOf(real, dcsrIhn("topiocqa", i, 42)).step.params as { epochs: number }).epochs), [10, 10, 40]);
});

test("DCSR and DPR train on the same tokenized queries, BM25 negatives and dev collection (merged by the graph)", () => {
  const dcsrExamples = producer(dcsrModelOf(MINI, dcsrIhn("qrecc", 1, 1)).step, "examples");
  const dprExamples = producer(modelOf(MINI, mined("qrecc", "bm25", 1)).step, "examples");
  for (const input of ["trainQueries", "devQueries", "negatives", "devCollection"]) assert.equal(producer(dcsrExamples, input).name, producer(dprExamples, input).name, input);
  const g = graphOf([dcsrExamples, dprExamples]);
  assert.equal(g.order.filter((s) => s.name === "mine-negatives.mini-qrecc.bm25").length, 1);
});

test("real data: DCSR's examples take OR-QuAC's released dev collection as an input and sample QReCC's (no devCollection input)", () => {
  const real: DenseContext = { data: "real", profile: "paper" };
  const examplesOf = (dataset: "qrecc" | "orquac", i: number) => producer(dcsrModelOf(real, dcsrIhn(dataset, i, 42)).step, "examples");
  const [orquac1, orquac2, qrecc1, qrecc2] = [examplesOf("orquac", 1), examplesOf("orquac", 2), examplesOf("qrecc", 1), examplesOf("qrecc", 2)];
  assert.deepEqual([orquac1, orquac2, qrecc1, qrecc2].map((s) => s.def.id), ["assemble-dcsr-examples", "assemble-dcsr-examples-mined", "assemble-dcsr-examples", "assemble-dcsr-examples-mined"]);
  for (const s of [orquac1, orquac2]) assert.equal(producer(s, "devCollection").def.id, "list-passage-ids");
  for (const s of [qrecc1, qrecc2]) {
    assert.equal(wiredInput(s, "devCollection"), undefined);
    assert.equal((s.params as { devPassages: number }).devPassages, 7300);
  }
});

test("table-dcsr is its own target, not in report or report-smoke; table-dcsr-smoke trains DCSR on QReCC only, one epoch; ablations are a target of their own", () => {
  const targets = buildTargets();
  const trainings = (name: string) => graphOf(targets.get(name)!.steps({ data: "mini" })).order.filter((s) => s.def.id === "train-dcsr" || s.def.id === "pretrain-dcsr");
  // The default report is over its time budget already: no DCSR training there, nor in CI's smoke report.
  assert.deepEqual(trainings("report"), []);
  assert.deepEqual(trainings("report-smoke"), []);
  // DCSR on QReCC, TopiOCQA, OR-QuAC + DCSR x IHN iterations 2 (QReCC, OR-QuAC) and 2, 3 (TopiOCQA), each with the three mini seeds
  const models = ["orquac.dcsr-ihn-2", "orquac.dcsr", "qrecc.dcsr-ihn-2", "qrecc.dcsr", "topiocqa.dcsr-ihn-2", "topiocqa.dcsr-ihn-3", "topiocqa.dcsr"];
  assert.deepEqual(trainings("table-dcsr").map((s) => s.name).sort(), models.flatMap((m) => [1, 2, 3].map((seed) => `train-dcsr.mini-${m}.s${seed}`)).sort());
  const smoke = trainings("table-dcsr-smoke");
  assert.deepEqual(smoke.map((s) => s.name).sort(), ["train-dcsr.mini-smoke-qrecc.dcsr-ihn-2.s1", "train-dcsr.mini-smoke-qrecc.dcsr.s1"]);
  for (const s of smoke) assert.equal((s.params as { epochs: number }).epochs, 1);
  const ablation = trainings("ablation-dcsr").map((s) => s.name);
  assert.equal(ablation.length, 30);
  assert.equal(ablation.filter((n) => n.startsWith("pretrain-dcsr.mini-nq")).length, 3);
  assert.ok(ablation.includes("train-dcsr.mini-qrecc.dcsr-bm25-2.s1") && ablation.includes("train-dcsr.mini-qrecc.dcsr.s1"));
});

test("table-dcsr: four rows per dataset; the DPR rows are the report's own evaluations; TopiOCQA's topic-switch / topic-continues fill the switch / no-switch columns", () => {
  const render = buildTargets().get("table-dcsr")!.steps({ data: "mini" })[0]!;
  assert.equal(render.name, "render-table-dcsr");
  const p = render.params as { spec: { rows: { id: string; paperRow?: string }[] }; cells: Record<string, { row: string; columns: string[]; group?: { value: string } }[]> };
  assert.deepEqual(p.spec.rows.map((r) => r.id), ["qrecc", "topiocqa", "orquac"].flatMap((d) => ["dpr-ibn", "dpr-ihn", "dcsr", "dcsr-ihn"].map((m) => `${d}/${m}`)));
  assert.deepEqual(p.spec.rows.filter((r) => r.paperRow !== undefined).map((r) => [r.id, r.paperRow]), [["qrecc/dpr-ibn", "dpr"], ["qrecc/dpr-ihn", "dpr-model-negs"]]);
  assert.deepEqual(inputsIn(render, "metrics").filter((n) => n.startsWith("orquac_")).sort(), ["dcsr_ihn", "dcsr", "dpr_ibn", "dpr_ihn"].flatMap((m) => [1, 2, 3].map((s) => `orquac_${m}_s${s}`)).sort());
  assert.equal(producer(render, "metrics[qrecc_dpr_ibn_s1]").name, "evaluate.dense.mini-qrecc.ibn.s1.history");
  assert.equal(producer(render, "metrics[topiocqa_dpr_ihn_s1]").name, "evaluate.dense.mini-topiocqa.ihn-3.s1.history");
  assert.equal(producer(render, "metrics[qrecc_dcsr_ihn_s1]").name, "evaluate.dcsr.mini-qrecc.dcsr-ihn-2.s1.history");
  assert.deepEqual(p.cells.topiocqa_dcsr_s1!.map((m) => [m.columns[0], m.group?.value ?? "all"]), [["all-mrr", "all"], ["first-mrr", "first"], ["switch-mrr", "topic-switch"], ["no-switch-mrr", "topic-continues"]]);
  assert.deepEqual(p.cells.qrecc_dpr_ibn_s1!.map((m) => m.group?.value ?? "all"), ["all", "first", "switch", "no-switch"]);
});

test("on real data table-dcsr analyzes: trainings require a GPU, the marker is BERT's [unused0], TopiOCQA reads its raw turns for Rationale", () => {
  const g = graphOf(buildTargets().get("table-dcsr")!.steps({ data: "real" }));
  const train = g.order.filter((s) => s.def.id === "train-dcsr");
  assert.equal(train.length, 7);
  for (const s of train) assert.equal(s.def.runtime.type === "container" && s.def.runtime.gpu?.required, true);
  const tokenize = g.order.filter((s) => s.def.id === "tokenize-dcsr-passages");
  assert.deepEqual(tokenize.map((s) => (s.params as { marker: string }).marker), ["[unused0]", "[unused0]", "[unused0]"]);
  assert.ok(g.order.some((s) => s.name === "fetch-dataset.topiocqa-turns-train"));
});
