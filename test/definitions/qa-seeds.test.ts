/**
 * Table 5 over seeds (nothing runs): the readers of seed s fine-tune with s on the passages of
 * DPR trained with s (BM25's passages are one run for every seed), from one shared starting point;
 * each cell reads one evaluation per seed; the start of a mini fine-tuning is a candidate for
 * the kept checkpoint, bert-base-uncased's untrained head is not.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { graphOf, inputsIn, producer } from "./graph-helpers.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { modelOf, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { ibn, ihn } from "../../pipeline/definitions/dense/variants.ts";
import { qaEvaluation } from "../../pipeline/definitions/qa/readers.ts";
import { paperRetrievers, retrieverSeed } from "../../pipeline/definitions/qa/retrievers.ts";
import { QA_SETUPS } from "../../pipeline/definitions/qa/setup.ts";

const MINI: DenseContext = { data: "mini", profile: "paper" };
const params = <T>(s: AnyStep) => s.params as T;

/** The model step a seed's evaluation reads, and the reader-data steps it trained and answered on. */
type Paper = "bm25" | "ibn" | "ihn";
const evaluationOf = (dataset: "qrecc" | "topiocqa", retriever: Paper, reader: "dpr-reader" | "fid", seed: number) => qaEvaluation(MINI, dataset, paperRetrievers(MINI, dataset, seed)[retriever], reader, seed);

function chain(dataset: "qrecc" | "topiocqa", retriever: Paper, reader: "dpr-reader" | "fid", seed: number) {
  const predict = producer(evaluationOf(dataset, retriever, reader, seed).step, "predictions");
  const model = producer(predict, "model");
  const inputs = producer(model, "inputs");
  const evalData = reader === "fid" ? producer(producer(predict, "inputs"), "data") : producer(predict, "data");
  return { model, train: producer(inputs, "train"), dev: producer(inputs, "dev"), evalData };
}

test("seed s's readers train with s on DPR of seed s; BM25's passages are shared; the starting points are one", () => {
  assert.deepEqual(QA_SETUPS.mini.paper.seeds, [1, 2, 3]);
  for (const dataset of ["qrecc", "topiocqa"] as const) {
    for (const reader of ["dpr-reader", "fid"] as const) {
      const starts = new Set<AnyStep>();
      const bm25Data = new Set<AnyStep>();
      for (const seed of [1, 2, 3]) {
        for (const retriever of ["bm25", "ibn", "ihn"] as const) {
          const c = chain(dataset, retriever, reader, seed);
          assert.equal(params<{ seed: number }>(c.model).seed, seed, c.model.name);
          assert.ok(c.model.name.endsWith(`.${retriever === "bm25" ? "bm25" : `dpr-${retriever}`}.s${seed}`), c.model.name);
          starts.add(producer(c.model, "init"));
          for (const data of [c.train, c.dev, c.evalData]) {
            const search = producer(data, "run");
            if (retriever === "bm25") {
              bm25Data.add(data);
              assert.equal(search.def.id, "search-bm25");
              continue;
            }
            const iterations = dataset === "qrecc" ? 2 : 3;
            const want = retriever === "ibn" ? ibn(dataset, seed) : ihn(dataset, iterations, seed);
            assert.equal(producer(producer(search, "queries"), "model"), modelOf(MINI, want).step, `${data.name} reads DPR seed ${seed}`);
          }
        }
      }
      assert.equal(starts.size, 1, "one pre-trained reader serves every seed");
      const [start] = [...starts];
      assert.equal(params<{ seed: number }>(start!).seed, 1, "the start trains with the first seed");
      // TopiOCQA's evaluation split is its dev split: one step.
      assert.equal(bm25Data.size, dataset === "qrecc" ? 3 : 2, "BM25's train, dev and evaluation data, once for all seeds");
    }
  }
});

test("Table 5's cells are mean ± sd over the seeds: one render input per seed", () => {
  const steps = buildTargets().get("table5")!.steps({ data: "mini" });
  const table = graphOf(steps).order.find((s) => s.name === "render-table5")!;
  assert.equal(inputsIn(table, "metrics").length, 2 * 6 * 3);
  assert.equal(producer(table, "metrics[qrecc_dpr_ihn_fid_s2]"), evaluationOf("qrecc", "ihn", "fid", 2).step);
  assert.equal(producer(table, "metrics[topiocqa_bm25_dpr_reader_s3]"), evaluationOf("topiocqa", "bm25", "dpr-reader", 3).step);
});

test("a mini fine-tuning keeps its start unless an epoch beats it; pre-trainings and real data's untrained heads do not", () => {
  const mini = graphOf(buildTargets().get("table5")!.steps({ data: "mini" })).order;
  // Unset means the config's default, false (steps/qa/config-schema.ts).
  const flag = (s: AnyStep) => params<{ start_is_candidate?: boolean }>(s).start_is_candidate ?? false;
  for (const s of mini.filter((x) => x.def.id === "train-dpr-reader" || x.def.id === "train-fid")) assert.equal(flag(s), true, s.name);
  for (const s of mini.filter((x) => x.def.id === "pretrain-dpr-reader" || x.def.id === "pretrain-fid")) assert.equal(flag(s), false, s.name);
  const real = graphOf(buildTargets().get("table5")!.steps({ data: "real" })).order;
  const fineTunings = real.filter((x) => x.def.id === "train-dpr-reader" || x.def.id === "train-fid");
  assert.equal(fineTunings.length, 12, "real data: one seed");
  for (const s of fineTunings) assert.equal(flag(s), false, s.name);
});

test("a QA seed the retrievers do not train is refused, naming their seeds; BM25 needs none; a retriever reads its own dataset only", () => {
  assert.equal(retrieverSeed(MINI, "qrecc", paperRetrievers(MINI, "qrecc", 7).bm25), null);
  assert.equal(retrieverSeed(MINI, "qrecc", paperRetrievers(MINI, "qrecc", 2).ihn), 2);
  assert.throws(() => retrieverSeed(MINI, "qrecc", paperRetrievers(MINI, "qrecc", 7).ibn), /QA seed 7: the mini paper retrievers train seeds 1, 2, 3 only/);
  assert.throws(() => qaEvaluation({ data: "mini", profile: "smoke" }, "qrecc", paperRetrievers(MINI, "qrecc", 3).ihn, "fid", 3), /seeds 1 only/);
  assert.throws(() => retrieverSeed(MINI, "topiocqa", paperRetrievers(MINI, "qrecc", 1).ibn), /a dpr-ibn retriever trained on qrecc cannot retrieve for topiocqa's readers/);
});
