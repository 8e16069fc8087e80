/**
 * Table 5's wiring (nothing runs): each reader is fine-tuned on its own retriever's passages
 * of the training split (gold added) and selected on that retriever's dev passages, answers
 * from that retriever's passages of the evaluation split, starts from the reader pre-trained
 * on mini-nq, and is scored against the dataset's own reference file by its own rule; the
 * default report stays without the QA stage.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { graphOf, producer } from "./graph-helpers.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { modelOf, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { ibn, ihn } from "../../pipeline/definitions/dense/variants.ts";
import { qaEvaluation } from "../../pipeline/definitions/qa/readers.ts";
import { paperRetrievers, retrieverId, retrieverRun } from "../../pipeline/definitions/qa/retrievers.ts";
import { qaSection } from "../../pipeline/definitions/qa/table5.ts";

const MINI: DenseContext = { data: "mini", profile: "paper" };

const params = <T>(s: AnyStep) => s.params as T;

test("table5 analyzes on mini: 2 pre-trainings on mini-nq and 12 fine-tunings per seed, none of them in the default report", () => {
  const targets = buildTargets();
  const g = graphOf(targets.get("table5")!.steps({ data: "mini" }));
  const ids = (id: string) => g.order.filter((s) => s.def.id === id).map((s) => s.name);
  assert.deepEqual(ids("pretrain-dpr-reader"), ["pretrain-dpr-reader.mini-nq"]);
  assert.deepEqual(ids("pretrain-fid"), ["pretrain-fid.mini-nq"]);
  assert.equal(ids("train-dpr-reader").length, 6 * 3);
  assert.equal(ids("train-fid").length, 6 * 3);
  assert.equal(ids("evaluate-qa-predictions").length, 12 * 3);
  assert.ok(g.order.some((s) => s.def.id === "render-table" && s.name === "render-table5"));
  const report = graphOf(targets.get("report")!.steps({ data: "mini" }));
  assert.ok(!report.order.some((s) => s.def.id.includes("reader") || s.def.id.includes("fid")));
  // The smoke section builds on the smoke retrievers.
  const smoke = graphOf([qaSection("smoke").build({ data: "mini" }).step]);
  assert.ok(smoke.order.some((s) => s.name === "train-fid.mini-smoke-qrecc.dpr-ihn.s1"));
  assert.equal(smoke.order.filter((s) => s.def.id === "train-fid").length, 6, "the smoke profile trains one seed");
});

test("on real data the readers start from the locked bert-base-uncased and t5-base, as GPU steps, with t5-base's spiece.model", () => {
  const g = graphOf(buildTargets().get("table5")!.steps({ data: "real" }));
  assert.ok(!g.order.some((s) => s.name.includes("mini") || s.def.id.startsWith("pretrain-")));
  const fetched = (s: AnyStep, input: string) => producer(s, input).name;
  for (const s of g.order.filter((x) => x.def.id === "train-dpr-reader" || x.def.id === "train-fid")) {
    assert.equal(s.def.runtime.type === "container" && s.def.runtime.gpu?.required, true, s.name);
    const init = producer(s, "init");
    const [weights, config] = s.def.id === "train-fid" ? ["t5-base", "t5-base-config"] : ["bert-base-uncased", "bert-base-uncased-config"];
    assert.deepEqual([fetched(init, "weights"), fetched(init, "config")], [`fetch-dataset.${weights}`, `fetch-dataset.${config}`]);
  }
  // Gold answers come from each release's own turn file: TopiOCQA's dev from the Hugging Face copy (Answer + Additional_answers).
  const refs = g.order.filter((s) => s.def.id === "extract-qa-references");
  const topiocqa = refs.find((s) => s.name === "extract-qa-references.real-topiocqa.dev")!;
  assert.deepEqual(params(topiocqa), { files: ["topiocqa_dev.json", "topiocqa_valid.jsonl"] });
  assert.ok(Object.keys(producer(topiocqa, "raw").inputs).includes("topiocqa-turns-dev"), "the raw dev turns hold the release's topiocqa_valid.jsonl");
  assert.deepEqual(params(refs.find((s) => s.name === "extract-qa-references.real-qrecc.test")!), { files: ["scai-qrecc21-test-turns.json"] });
  const spm = g.order.find((s) => s.def.id === "import-spiece-model")!;
  assert.equal(fetched(spm, "files"), "fetch-dataset.t5-base-spiece");
  assert.ok(!g.order.some((s) => s.def.id === "train-sentencepiece"));
});

test("each reader trains, is selected and answers on its own retriever's passages (seed 1)", () => {
  for (const dataset of ["qrecc", "topiocqa"] as const) {
    const paper = paperRetrievers(MINI, dataset, 1);
    for (const retriever of [paper.bm25, paper.ibn, paper.ihn]) {
      for (const reader of ["dpr-reader", "fid"] as const) {
        const evaluate = qaEvaluation(MINI, dataset, retriever, reader, 1).step;
        assert.deepEqual(params(evaluate), { split: dataset === "qrecc" ? "test" : "dev", scoring: dataset });
        assert.equal(producer(evaluate, "references").def.id, "extract-qa-references");
        const predict = producer(evaluate, "predictions");
        assert.ok(predict.name.endsWith(`${dataset}.${retrieverId(MINI, dataset, retriever)}.s1`), predict.name);
        const evalData = reader === "fid" ? producer(producer(predict, "inputs"), "data") : producer(predict, "data");
        const model = producer(predict, "model");
        assert.equal(model.def.id, reader === "fid" ? "train-fid" : "train-dpr-reader");
        assert.equal(producer(model, "init").def.id, reader === "fid" ? "pretrain-fid" : "pretrain-dpr-reader");
        const inputs = producer(model, "inputs");
        const [train, dev] = [producer(inputs, "train"), producer(inputs, "dev")];
        const runOf = (split: string) => retrieverRun(MINI, dataset, retriever, split).step;
        const cases: [AnyStep, string, boolean][] = [[train, "train", true], [dev, "dev", false], [evalData, dataset === "qrecc" ? "test" : "dev", false]];
        for (const [data, split, gold] of cases) {
          assert.equal(data.def.id, "build-reader-data");
          assert.equal(producer(data, "run"), runOf(split), `${data.name} reads ${split} of ${retriever}`);
          assert.deepEqual([params<{ split: string }>(data).split, params<{ addGold: boolean }>(data).addGold], [split, gold]);
        }
      }
    }
    // DPR (IBN) is the first seed's in-batch model; DPR (IHN) the first seed's last iteration.
    const searchModel = (r: typeof paper.ibn | typeof paper.ihn) => producer(producer(retrieverRun(MINI, dataset, r, "train").step, "queries"), "model");
    assert.equal(searchModel(paper.ibn), modelOf(MINI, ibn(dataset, 1)).step);
    assert.equal(searchModel(paper.ihn), modelOf(MINI, ihn(dataset, dataset === "qrecc" ? 2 : 3, 1)).step);
    assert.deepEqual([retrieverId(MINI, dataset, paper.ibn), retrieverId(MINI, dataset, paper.ihn), retrieverId(MINI, dataset, paper.bm25)], ["dpr-ibn", "dpr-ihn", "bm25"]);
    assert.equal(retrieverRun(MINI, dataset, paper.bm25, "train").step.def.id, "search-bm25");
  }
});

test("table5 exports its table, its findings and its ceilings, none hiding another (both tables are a `table/` folder)", () => {
  const exports = buildTargets().get("table5")!.exports!({ data: "mini" });
  assert.deepEqual(
    Object.entries(exports).map(([path, ref]) => `${path} <- ${ref.step.name}:${ref.output}`).sort(),
    [
      "results/table5/answerability.json <- measure-answerability.mini-nq.bm25.dev:metrics",
      "results/table5/findings.json <- check-findings-qa:findings",
      "results/table5/findings.md <- check-findings-qa:markdown",
      "results/table5/per-query.parquet <- measure-answerability.mini-nq.bm25.dev:perQuery",
      "results/table5/render-table5 <- render-table5:table",
      "results/table5/render-table5-ceilings <- render-table5-ceilings:table",
    ],
  );
});
