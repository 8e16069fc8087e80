/**
 * Issue 12, defect 6: model selection on the paper's dev collections. Real data: OR-QuAC's
 * released dev blocks (list-passage-ids over the locked dev_blocks.txt) plus the dev gold;
 * QReCC and TopiOCQA samples of the paper's sizes (7.3k, 11k). Mini builds its dev collections
 * as DPR's dev files are made: the dev gold plus each dev query's top BM25 passages and a sample.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { wiredInput } from "../../pipeline/engine/wiring.ts";
import { modelOf, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { ihn } from "../../pipeline/definitions/dense/variants.ts";
import { buildDevCollection, readBlockIds } from "../../steps/data/dev-collection.ts";
import { buildExamples } from "../../steps/training/examples.ts";
import { tempDir } from "../tmp.ts";

const producer = (s: AnyStep, input: string): AnyStep => {
  const ref = (s.inputs as Record<string, { step: AnyStep } | undefined>)[input];
  assert.ok(ref, `${s.name} has no input ${input}`);
  return ref.step;
};

const REAL: DenseContext = { data: "real", profile: "paper" };
const examplesOf = (ctx: DenseContext, dataset: "qrecc" | "topiocqa" | "orquac", i: number): AnyStep => producer(modelOf(ctx, ihn(dataset, i, ctx.data === "real" ? 42 : 1)).step, "examples");

test("real data: OR-QuAC selects on its released dev blocks, QReCC and TopiOCQA on 7.3k / 11k samples", () => {
  const orquac = examplesOf(REAL, "orquac", 1);
  assert.equal(orquac.def.id, "assemble-dpr-examples");
  assert.equal(wiredInput(orquac, "negatives"), undefined, "iteration 1 trains on in-batch negatives only");
  const ids = producer(orquac, "devCollection");
  assert.deepEqual([ids.def.id, ids.params], ["list-passage-ids", { file: "dev_blocks.txt" }]);
  assert.equal(producer(ids, "files").name, "fetch-dataset.orquac-dev-blocks");
  // iteration 2 (mined negatives) uses the same dev collection
  const orquac2 = examplesOf(REAL, "orquac", 2);
  assert.equal(orquac2.def.id, "assemble-dpr-examples");
  assert.equal(producer(orquac2, "devCollection").name, ids.name);
  assert.equal(producer(orquac2, "negatives").def.id, "mine-negatives");
  for (const [dataset, size] of [["qrecc", 7300], ["topiocqa", 11000]] as const) {
    const ex = examplesOf(REAL, dataset, 1);
    assert.equal(ex.def.id, "assemble-dpr-examples");
    assert.equal(wiredInput(ex, "devCollection"), undefined, "a sample, no dev collection input");
    assert.equal((ex.params as { devPassages: number }).devPassages, size);
  }
});

test("mini: the dev collection is the dev gold, each dev query's top BM25 passages and a sample, shared by every variant", () => {
  const MINI: DenseContext = { data: "mini", profile: "paper" };
  const ex = examplesOf(MINI, "orquac", 1);
  assert.equal(ex.def.id, "assemble-dpr-examples");
  const dev = producer(ex, "devCollection");
  assert.equal(dev.def.id, "build-dev-collection");
  assert.deepEqual(dev.params, { split: "dev", perQuery: 5, size: 2000 });
  const bm25 = producer(dev, "run");
  assert.equal(bm25.def.id, "search-bm25");
  assert.deepEqual([(bm25.params as { form: string }).form, (bm25.params as { split: string }).split], ["questions", "dev"]);
  assert.equal(producer(examplesOf(MINI, "orquac", 2), "devCollection"), dev);
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

test("buildDevCollection: gold, then each query's top non-gold BM25 passages, then a seeded sample, in collection order", () => {
  const order = ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9"];
  const gold = new Map([["q2", ["p5"]], ["q1", ["p1", "gone"]]]);
  const run = new Map([
    ["q1", [{ docid: "p1", rank: 1 }, { docid: "p7", rank: 2 }, { docid: "p3", rank: 3 }, { docid: "p9", rank: 4 }]],
    ["q2", [{ docid: "p7", rank: 2 }, { docid: "p0", rank: 1 }, { docid: "p5", rank: 3 }]],
  ]);
  // q1: p1 is gold, so its top 2 hard negatives are p7 and p3; q2: p0 (rank 1) and p7 (already in)
  const hardOnly = buildDevCollection({ gold, run, order, perQuery: 2, size: 1, seed: 7 });
  assert.deepEqual(hardOnly, { ids: ["p0", "p1", "p3", "p5", "p7"], gold: 2, hard: 3, sampled: 0 });
  const filled = buildDevCollection({ gold, run, order, perQuery: 2, size: 7, seed: 7 });
  assert.equal(filled.ids.length, 7);
  assert.deepEqual(filled.ids.filter((id) => hardOnly.ids.includes(id)), hardOnly.ids);
  assert.deepEqual(filled, buildDevCollection({ gold, run, order, perQuery: 2, size: 7, seed: 7 }), "seeded");
  assert.deepEqual(buildDevCollection({ gold, run, order, perQuery: 2, size: 100, seed: 7 }).ids, order, "capped at the collection");
});
