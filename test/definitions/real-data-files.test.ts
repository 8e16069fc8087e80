/**
 * Issue 12, defect 5: a target fetches exactly the datasets.lock entries its steps read. A
 * test-split table on real data must not need the training turn files, and the collection is
 * preprocessed by one step shared by every split set (no second 54M-passage parse).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { table1Bm25Target, table2Bm25Target, table3Bm25Target } from "../../pipeline/definitions/lexical.ts";
import { dataTarget } from "../../pipeline/definitions/datasets.ts";

const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));

function stepNames(steps: readonly AnyStep[]): string[] {
  const a = analyze(steps, lock);
  assert.ok(a.ok, a.ok ? "" : JSON.stringify(a.failures));
  return a.graph.order.map((s) => s.name).sort();
}

const fetched = (steps: readonly AnyStep[]): string[] => stepNames(steps).filter((n) => n.startsWith("fetch-dataset.")).map((n) => n.slice("fetch-dataset.".length));

test("table1-bm25 --data real fetches the QReCC collection and test files only", () => {
  assert.deepEqual(fetched(table1Bm25Target.steps({ data: "real" })), ["qrecc-collection", "qrecc-qrels", "qrecc-question-types", "qrecc-scai-turns-test"]);
});

test("table2-bm25 and table3-bm25 --data real fetch no training turns either", () => {
  assert.deepEqual(fetched(table2Bm25Target.steps({ data: "real" })), [
    "qrecc-collection", "qrecc-qrels", "qrecc-question-types", "qrecc-scai-turns-test", "topiocqa-all-history-dev", "topiocqa-wiki-segments",
  ]);
  assert.deepEqual(fetched(table3Bm25Target.steps({ data: "real" })), ["orquac-all-blocks", "orquac-qrels", "orquac-test"]);
});

test("the data target reads every split, and one collection step serves both split sets", () => {
  const names = stepNames([...dataTarget.steps({ data: "real" }), ...table1Bm25Target.steps({ data: "real" })]);
  assert.ok(names.includes("fetch-dataset.qrecc-scai-turns-train"));
  assert.deepEqual(names.filter((n) => n.startsWith("preprocess-") && n.includes("qrecc")), ["preprocess-collection-real-qrecc", "preprocess-real-qrecc", "preprocess-real-qrecc.test"]);
  assert.deepEqual(names.filter((n) => n.startsWith("assemble-raw-qrecc")), ["assemble-raw-qrecc-collection", "assemble-raw-qrecc-turns.test", "assemble-raw-qrecc-turns.test+train"]);
});
