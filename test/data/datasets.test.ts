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
import { DENSE_METRICS, HAS_TITLES, INPUT_FORM } from "../../pipeline/definitions/dense/setup.ts";
import { NAMES } from "../../pipeline/definitions/dcsr/tables.ts";
import { SWITCH_GROUPS, switchGroupsOf } from "../../pipeline/definitions/dcsr/findings.ts";
import { table1Bm25Spec } from "../../pipeline/definitions/lexical.ts";
import { QA_DATASETS, QA_REFERENCES, QA_SETUPS, qaReferenceFiles } from "../../pipeline/definitions/qa/setup.ts";
import { QUESTION_TYPE_ORDER } from "../../steps/eval/outputs.ts";
import { diagnosisType } from "../../steps/diagnose/conversations.ts";
import { EVIDENCE_DATASETS } from "../../steps/dcsr/evidence.ts";

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

test("each descriptor's claim metric is one the paper reports on it and every dense evaluation computes", () => {
  for (const d of DATASET_DESCRIPTORS) {
    assert.ok((d.evaluation.metrics as readonly string[]).includes(d.claimMetric), d.name);
    assert.ok(DENSE_METRICS.includes(d.claimMetric), d.name);
  }
});

test("the QA stage's datasets, scoring, reference files and answer lengths come from the descriptors with QA facts", () => {
  assert.deepEqual(QA_DATASETS, DATASET_DESCRIPTORS.filter((d) => "qa" in d).map((d) => d.name));
  assert.deepEqual(QA_DATASETS, ["qrecc", "topiocqa"]);
  assert.deepEqual(QA_REFERENCES, { qrecc: { scoring: "qrecc", files: ["scai-qrecc21-test-turns.json"] }, topiocqa: { scoring: "topiocqa", files: ["topiocqa_dev.json", "topiocqa_valid.jsonl"] } });
  assert.deepEqual([qaReferenceFiles("qrecc", "dev"), qaReferenceFiles("topiocqa", "dev")], [["scai-qrecc21-training-turns.json"], ["topiocqa_dev.json", "topiocqa_valid.jsonl"]]);
  assert.throws(() => qaReferenceFiles("topiocqa", "test"), /topiocqa names no reference file for split 'test' \(it has: dev\)/);
  // The paper's 30 on QReCC and 10 elsewhere, whatever the data source and profile; mini-nq's 10 is the setup's.
  for (const profiles of Object.values(QA_SETUPS)) for (const q of Object.values(profiles)) assert.deepEqual(q.reader.maxAnswerLength, { qrecc: 30, topiocqa: 10, nq: 10 });
});

test("question-type groups: each descriptor's order lists its three types, and the tables, the switch claims and the steps' literals follow the registry", () => {
  for (const d of DATASET_DESCRIPTORS) {
    const t = d.questionTypes;
    assert.deepEqual([...d.questionTypeOrder].sort(), [t.first, t.switch, t.noSwitch].sort(), d.name);
    assert.equal(d.questionTypeOrder[0], t.first, d.name);
    // diagnose's spellings (a step's own code) read every dataset's names as the three roles.
    assert.deepEqual([t.first, t.switch, t.noSwitch].map(diagnosisType), ["first", "switch", "no-switch"], d.name);
  }
  assert.deepEqual(descriptorOf("topiocqa").questionTypeOrder, ["first", "topic-continues", "topic-switch"]);
  assert.deepEqual(table1Bm25Spec("mini").columns.filter((c) => c.header === "MRR").map((c) => c.group?.value ?? "all"), ["all", "first", "switch", "no-switch"]);
  assert.deepEqual(SWITCH_GROUPS, { qrecc: { switch: "switch", noSwitch: "no-switch" }, topiocqa: { switch: "topic-switch", noSwitch: "topic-continues" } });
  // Evaluation's group order stays a literal in the evaluate steps' code (editing it re-keys every
  // evaluation): it must be the registry's orders, in registry order, each name once.
  assert.deepEqual(QUESTION_TYPE_ORDER, [...new Set(DATASET_DESCRIPTORS.flatMap((d) => d.questionTypeOrder))]);
  for (const d of DATASETS) assert.ok(EVIDENCE_DATASETS.includes(d), `DCSR's evidence readers know ${d}`);
});

test("a fourth descriptor in a registry reaches a table built from it, the other three unchanged", () => {
  const fourth: DatasetDescriptor<"coqa"> = {
    ...descriptorOf("orquac"),
    name: "coqa",
    label: "CoQA",
    evaluation: { split: "dev", metrics: ["mrr"] },
    switchTurns: true,
  };
  const table = tableOf([...DATASET_DESCRIPTORS, fourth], (d) => d.evaluation.split);
  assert.deepEqual(table, { qrecc: "test", topiocqa: "dev", orquac: "test", coqa: "dev" });
  assert.deepEqual(Object.keys(switchGroupsOf([...DATASET_DESCRIPTORS, fourth])), ["qrecc", "topiocqa", "coqa"]);
});
