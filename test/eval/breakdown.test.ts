import { test } from "node:test";
import assert from "node:assert/strict";
import { breakdown, parseLabelsFile } from "../../steps/eval/breakdown.ts";
import type { PerQueryRow } from "../../steps/eval/evaluate.ts";
import { InputError } from "../../pipeline/engine/errors.ts";

const row = (qid: string, mrr: number, r10: number): PerQueryRow => ({ qid, nGold: 1, nRetrieved: 10, metrics: { mrr, "recall@10": r10 } });
const rows = [row("1_1", 1, 1), row("1_2", 0.5, 1), row("1_3", 0, 0), row("2_1", 0.25, 1), row("3_4", 0.2, 0)];

test("labels file parses into a qid -> {questionType, domain} map", () => {
  const labels = parseLabelsFile({ nq: ["1_1", "1_2", "1_3", "2_1"], trec: [], quac: ["3_4"], first: ["1_1", "2_1"], switch: ["1_3"], "no-switch": ["1_2"] });
  assert.deepEqual(labels.get("1_1"), { domain: "nq", questionType: "first" });
  assert.deepEqual(labels.get("3_4"), { domain: "quac" });
  assert.equal(labels.size, 5);
});

test("breakdown by question type: means and N per group, paper order, unlabelled counted", () => {
  const labels = parseLabelsFile({ nq: ["1_1", "1_2", "1_3", "2_1"], quac: ["3_4"], first: ["1_1", "2_1"], switch: ["1_3"], "no-switch": ["1_2"] });
  const b = breakdown(rows, labels, { by: "questionType", order: ["first", "switch", "no-switch"] });
  assert.deepEqual(b.groups, [
    { group: "first", n: 2, metrics: { mrr: 0.625, "recall@10": 1 } },
    { group: "switch", n: 1, metrics: { mrr: 0, "recall@10": 0 } },
    { group: "no-switch", n: 1, metrics: { mrr: 0.5, "recall@10": 1 } },
  ]);
  assert.equal(b.unlabelled, 1);
  assert.deepEqual(b.all, { group: "all", n: 5, metrics: { mrr: (1 + 0.5 + 0 + 0.25 + 0.2) / 5, "recall@10": 0.6 } });
  const d = breakdown(rows, labels, { by: "domain", metrics: ["mrr"] });
  assert.deepEqual(d.groups.map((g) => [g.group, g.n]), [["nq", 4], ["quac", 1]]);
  assert.deepEqual(Object.keys(d.groups[0]!.metrics), ["mrr"]);
});

test("bad labels files name the offending key", () => {
  const at = (field: string, pattern: RegExp) => (e: unknown): boolean => e instanceof InputError && e.field === field && pattern.test(e.message) && e.file === "types.json";
  assert.throws(() => parseLabelsFile({ first: ["1_1"], topic: [] }, "types.json"), at("topic", /unknown label key 'topic'/));
  assert.throws(() => parseLabelsFile({ switch: "1_1" }, "types.json"), at("switch", /must be an array/));
  assert.throws(() => parseLabelsFile({ nq: ["1_1", 7] }, "types.json"), at("nq[1]", /not a non-empty string/));
  assert.throws(() => parseLabelsFile({ first: ["1_1"], switch: ["1_1"] }, "types.json"), at("switch", /labelled both 'first' and 'switch'/));
  assert.throws(() => parseLabelsFile([], "types.json"), /must be a JSON object/);
});
