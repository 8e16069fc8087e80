/**
 * A dataset is one descriptor record (steps/data/datasets/): every per-dataset table of the
 * pipeline is derived from the registry, so its keys are exactly the registered names, and a
 * descriptor added to a registry reaches a table built from it without another module changing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DATASET_DESCRIPTORS, DATASETS, descriptorOf, tableOf } from "../../steps/data/datasets/registry.ts";
import type { DatasetDescriptor } from "../../steps/data/datasets/descriptor.ts";
import { RAW_ASSEMBLY } from "../../steps/data/assemble.ts";
import { preprocessors } from "../../steps/data/preprocess/registry.ts";
import { generateMini, preprocess, preprocessCollectionSteps } from "../../steps/data/steps.ts";
import { BM25_PRESETS } from "../../steps/sparse/presets.ts";
import { EVAL_SETUP } from "../../pipeline/definitions/lexical.ts";
import { HAS_TITLES, INPUT_FORM } from "../../pipeline/definitions/dense/setup.ts";
import { NAMES } from "../../pipeline/definitions/dcsr/tables.ts";

const sortedKeys = (o: object, without: readonly string[] = []) => Object.keys(o).filter((k) => !without.includes(k)).sort();

test("the registry lists qrecc, topiocqa and orquac, each name once", () => {
  assert.deepEqual(DATASETS, ["qrecc", "topiocqa", "orquac"]);
  assert.equal(new Set(DATASET_DESCRIPTORS.map((d) => d.name)).size, DATASET_DESCRIPTORS.length);
});

test("every table derived from the registry is keyed by exactly the registered datasets (nq apart)", () => {
  const names = [...DATASETS].sort();
  const tables: Record<string, [object, string[]?]> = {
    RAW_ASSEMBLY: [RAW_ASSEMBLY], preprocessors: [preprocessors], preprocessCollectionSteps: [preprocessCollectionSteps], preprocess: [preprocess],
    generateMini: [generateMini, ["nq"]], BM25_PRESETS: [BM25_PRESETS, ["nq"]], EVAL_SETUP: [EVAL_SETUP], HAS_TITLES: [HAS_TITLES], INPUT_FORM: [INPUT_FORM], "dcsr NAMES": [NAMES, ["nq"]],
  };
  for (const [table, [t, without]] of Object.entries(tables)) assert.deepEqual(sortedKeys(t, without), names, table);
});

test("the tables carry each descriptor's values and the step defs its name", () => {
  const q = descriptorOf("qrecc");
  assert.equal(preprocessors.qrecc, q.preprocessor);
  assert.deepEqual(BM25_PRESETS.qrecc, { k1: 0.82, b: 0.68 });
  assert.deepEqual(EVAL_SETUP.topiocqa, { split: "dev", metrics: ["mrr", "recall@5", "recall@20", "recall@100"] });
  assert.deepEqual([INPUT_FORM.orquac, HAS_TITLES.qrecc, NAMES.orquac], ["questions", false, "OR-QuAC"]);
  for (const d of DATASETS) {
    assert.deepEqual([preprocess[d].id, preprocess[d].inputs.raw], [`preprocess-${d}`, `raw:${d}`]);
    assert.deepEqual([preprocessCollectionSteps[d].id, generateMini[d].id, generateMini[d].outputs.raw.kind], [`preprocess-collection-${d}`, `generate-mini-${d}`, `raw:${d}`]);
  }
  assert.throws(() => descriptorOf("msmarco"), /unknown dataset 'msmarco' \(known: qrecc, topiocqa, orquac\)/);
});

test("a fourth descriptor in a registry reaches a table built from it, the other three unchanged", () => {
  const fourth: DatasetDescriptor<"coqa"> = {
    ...descriptorOf("orquac"),
    name: "coqa",
    label: "CoQA",
    evaluation: { split: "dev", metrics: ["mrr"] },
  };
  const table = tableOf([...DATASET_DESCRIPTORS, fourth], (d) => d.evaluation.split);
  assert.deepEqual(table, { qrecc: "test", topiocqa: "dev", orquac: "test", coqa: "dev" });
});
