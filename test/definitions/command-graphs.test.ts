/**
 * The graphs of `bm25` and `diagnose`, built in pipeline/definitions/ (nothing runs): the step
 * names and params the commands have always used (so their keys stay), file locations out of
 * every param, and a dataset's diagnosis sharing the lexical targets' BM25 index step.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { bm25Search, collectionIndex } from "../../pipeline/definitions/user-files.ts";
import { datasetDiagnosisBase, diagnosis, userDiagnosisBase, type DiagnosisParams } from "../../pipeline/definitions/diagnose.ts";
import { table2Bm25Target } from "../../pipeline/definitions/lexical.ts";
import { graphOf } from "./graph-helpers.ts";

const file = (name: string, c: string) => ({ name, sha256: c.repeat(64), size: 10, path: `/somewhere/${name}` });
const params: DiagnosisParams = { title: "t", source: [], split: "test", cutoffs: [10, 100], samples: 10, seed: 1, level: 0.9, k1: 0.9, b: 0.4 };

test("bm25 index and search: the commands' step names, params by content (no path in any param)", () => {
  const index = collectionIndex([file("a.jsonl", "a"), file("b.tsv", "b")], 1000);
  assert.deepEqual(index.params, { files: [{ name: "a.jsonl", sha256: "a".repeat(64), size: 10 }, { name: "b.tsv", sha256: "b".repeat(64), size: 10 }], maxPostingsInMemory: 1000 });
  const search = bm25Search({ index: file("bm25.idx", "c"), topics: file("topics.tsv", "d"), topicField: null, search: { k: 5, k1: 0.82, b: 0.68, tag: "x" }, threads: 2 });
  const g = graphOf([index, search]);
  assert.deepEqual(g.order.map((s) => s.name), ["import-bm25-index", "index-collection-files", "read-topics-file", "search-bm25-topics"]);
  assert.doesNotMatch(JSON.stringify([...g.params.values()]), /somewhere/);
});

test("diagnose over user files: BM25's three forms evaluated, one render step; with a dense model its two forms too", () => {
  const base = () => userDiagnosisBase(file("conv.jsonl", "e"), [file("p.jsonl", "f")], "test");
  const bm25Only = graphOf([diagnosis(base(), params, 1)]).order.map((s) => s.name);
  assert.equal(bm25Only.length, 7);
  assert.ok(bm25Only.includes("diagnose.evaluate.user.history_without_q"));
  const dense = graphOf([diagnosis(base(), params, 1, { files: [file("query_encoder.onnx", "1"), file("passage_encoder.onnx", "2")], vocab: file("vocab.txt", "3") })]);
  // + model, vocabulary, passages, their tokens, embeddings and index; per form tokens, embeddings, run, evaluation
  assert.equal(dense.order.length, 7 + 6 + 2 * 4);
  const render = dense.byName.get("render-diagnosis")!;
  assert.equal((dense.params.get(render) as { model: string }).model, `query_encoder.onnx (sha256 ${"1".repeat(12)}), passage_encoder.onnx (sha256 ${"2".repeat(12)}), vocabulary ${"3".repeat(12)}`);
});

test("diagnose --dataset reuses the lexical targets' BM25 index: one graph with table2-bm25, no duplicate names", () => {
  const g = graphOf([diagnosis(datasetDiagnosisBase("qrecc", "mini", "test"), params, 1), ...table2Bm25Target.steps({ data: "mini" })]);
  assert.equal(g.order.filter((s) => s.def.id === "build-bm25-index" && s.name === "build-bm25-index.mini-qrecc").length, 1);
  assert.ok(g.byName.has("diagnose.summarize-turns.mini-qrecc"));
});
