/**
 * Issue 12, defect 6: model selection on the paper's dev collections. Real data: OR-QuAC's
 * released dev blocks (list-passage-ids over the locked dev_blocks.txt) plus the dev gold;
 * QReCC and TopiOCQA samples of the paper's sizes (7.3k, 11k). Mini keeps its small samples.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { DenseWorld } from "../../pipeline/definitions/dense/models.ts";
import { readBlockIds } from "../../steps/data/dev-collection.ts";
import { buildExamples } from "../../steps/training/examples.ts";
import { tempDir } from "../tmp.ts";

const producer = (s: AnyStep, input: string): AnyStep => {
  const ref = (s.inputs as Record<string, { step: AnyStep } | undefined>)[input];
  assert.ok(ref, `${s.name} has no input ${input}`);
  return ref.step;
};

test("real data: OR-QuAC selects on its released dev blocks, QReCC and TopiOCQA on 7.3k / 11k samples", () => {
  const world = new DenseWorld("orquac", { data: "real", profile: "paper" });
  const orquac = producer(world.ihn(1).step, "examples");
  assert.equal(orquac.def.id, "assemble-dpr-examples-released-dev");
  const ids = producer(orquac, "devCollection");
  assert.deepEqual([ids.def.id, ids.params], ["list-passage-ids", { file: "dev_blocks.txt" }]);
  assert.equal(producer(ids, "files").name, "fetch-dataset.orquac-dev-blocks");
  // iteration 2 (mined negatives) uses the same dev collection
  const orquac2 = producer(world.ihn(2).step, "examples");
  assert.equal(orquac2.def.id, "assemble-dpr-examples-with-negatives-released-dev");
  assert.equal(producer(orquac2, "devCollection").name, ids.name);
  for (const [dataset, size] of [["qrecc", 7300], ["topiocqa", 11000]] as const) {
    const ex = producer(new DenseWorld(dataset, { data: "real", profile: "paper" }).ihn(1).step, "examples");
    assert.equal(ex.def.id, "assemble-dpr-examples");
    assert.equal((ex.params as { devPassages: number }).devPassages, size);
  }
  const mini = producer(new DenseWorld("orquac", { data: "mini", profile: "paper" }).ihn(1).step, "examples");
  assert.equal((mini.params as { devPassages: number }).devPassages, 1000);
});

test("a released dev collection replaces the sample: its passages plus the dev gold, missing ids counted", () => {
  const rowOf = new Map(["b0", "b1", "b2", "b3", "b4", "b5"].map((p, i) => [p, i]));
  const gold = new Map([["d1", ["b4"]], ["t1", ["b0"]]]);
  const ex = buildExamples({ trainQids: ["t1"], devQids: ["d1"], trainGold: gold, devGold: gold, rowOf, passages: 6, k: 1, devPassages: 0, devCollection: ["b2", "b1", "gone"], seed: 1 });
  assert.deepEqual(ex.devPassageRows, [1, 2, 4]);
  assert.equal(ex.counts["dev_collection_missing"], 1);
  assert.deepEqual(Array.from(ex.devGold.data), [2]);
});

test("OR-QuAC dev_blocks.txt (JSONL blocks): ids in file order; a line without an id names the line", async () => {
  const dir = tempDir("cspipe-devblocks-");
  const f = join(dir, "dev_blocks.txt");
  writeFileSync(f, [
    '{"id": "C_2d5e1b0c2b5b4fd4a1e6b1c6a5d3f2e1_1@3", "title": "Ernie Banks", "text": "Banks was born in Dallas, Texas."}',
    '{"id": "C_2d5e1b0c2b5b4fd4a1e6b1c6a5d3f2e1_1@0", "title": "Ernie Banks", "text": "Ernest Banks was an American professional baseball player."}',
    '{"id": "5551234@0", "title": "Wrigley Field", "text": "Wrigley Field is a baseball park on the North Side of Chicago."}',
  ].join("\n") + "\n");
  assert.deepEqual(await readBlockIds(f), ["C_2d5e1b0c2b5b4fd4a1e6b1c6a5d3f2e1_1@3", "C_2d5e1b0c2b5b4fd4a1e6b1c6a5d3f2e1_1@0", "5551234@0"]);
  const g = join(dir, "bad.txt");
  writeFileSync(g, '{"id": "a@0", "text": "x"}\n{"title": "no id", "text": "y"}\n');
  await assert.rejects(readBlockIds(g), (e: unknown) => e instanceof InputError && e.line === 2 && e.field === "id");
});
