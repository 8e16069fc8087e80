/**
 * `assemble-dpr-examples` through the engine on a 6-passage collection, with its optional inputs
 * absent and present: mined negatives add train_neg.npy (and count the ids they miss); a dev
 * collection replaces the whole collection as the dev passages; each combination has its own key.
 * The type check at the end fails `tsc --noEmit` if a wrong kind ever fits an optional slot.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, use, type AnyStep, type OutputDecl } from "../../pipeline/engine/step.ts";
import { planTargets } from "../../pipeline/session.ts";
import { writeParquetFile } from "../../steps/lib/parquet.ts";
import { readNpy, writeNpy } from "../../steps/lib/npy.ts";
import { turnsSchema, type TurnRow } from "../../steps/data/schemas.ts";
import { negativesSchema } from "../../steps/mining/steps.ts";
import { assembleExamples } from "../../steps/training/assemble-step.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";

// Fixture steps get a stand-alone source file (see test/dense/steps.test.ts).
const FIXTURE_SOURCE = join(tempDir("cspipe-assemble-step-"), "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");
const VOCAB_DIGEST = "ab".repeat(32);

const fixture = <K extends string>(id: string, output: OutputDecl<K>, write: (out: string) => Promise<void> | void) =>
  defineStep({ id, version: 1, source: FIXTURE_SOURCE, params: z.object({}).strict(), inputs: {}, outputs: { out: output }, runtime: { type: "in-process", run: async (ctx) => write(ctx.outputs.out) } });

/** A token directory: a row of 2 token ids per id (row r: base + r, base + 100 + r), the ids one a line in `idsFile`. */
function writeTokens(out: string, idsFile: string, ids: readonly string[], base: number): void {
  writeFileSync(join(out, idsFile), ids.map((id) => `${id}\n`).join(""));
  writeNpy(join(out, "ids.npy"), { dtype: "int32", shape: [ids.length, 2], data: Int32Array.from(ids.flatMap((_, r) => [base + r, base + 100 + r])) });
  writeNpy(join(out, "type_ids.npy"), { dtype: "int32", shape: [ids.length, 2], data: Int32Array.from(ids.flatMap((_, r) => [0, r])) });
  writeFileSync(join(out, "meta.json"), JSON.stringify({ vocabSize: 500, vocabDigest: VOCAB_DIGEST }));
}

const turn = (qid: string, split: string, gold: string[]): TurnRow => ({
  dataset: "qrecc", split, conversation_id: qid, turn: 1, qid, question: qid, rewrite: null, answer: null, history: [], gold_passage_ids: gold,
  source_domain: null, question_type: null, topic: null, topic_section: null,
});
// t2's only gold passage is not in the collection: no example. d1, d2: the dev queries.
const TURNS = [turn("t1", "train", ["p1", "p4"]), turn("t2", "train", ["gone"]), turn("t3", "train", ["p3"]), turn("d1", "dev", ["p5"]), turn("d2", "dev", ["p2"])];

const passages = fixture("test-assemble-passages", dir("tokens:passages", "tokens"), (o) => writeTokens(o, "pids.txt", ["p0", "p1", "p2", "p3", "p4", "p5"], 0));
const trainQueries = fixture("test-assemble-train-queries", dir("tokens:queries", "tokens"), (o) => writeTokens(o, "qids.txt", ["t1", "t2", "t3"], 1000));
const devQueries = fixture("test-assemble-dev-queries", dir("tokens:queries", "tokens"), (o) => writeTokens(o, "qids.txt", ["d1", "d2"], 2000));
const turns = fixture("test-assemble-turns", file("parquet:turns", "turns.parquet"), async (o) => void (await writeParquetFile(o, turnsSchema(), TURNS)));
// k = 2 keeps t1's first two known ids (zz is not in the collection); t3 has one.
const negatives = fixture("test-assemble-negatives", file("parquet:negatives", "negatives.parquet"), async (o) =>
  void (await writeParquetFile(o, negativesSchema(), [{ qid: "t1", pids: ["p2", "zz", "p0", "p5"], scores: [4, 3, 2, 1] }, { qid: "t3", pids: ["p1"], scores: [1] }])),
);
const devCollection = fixture("test-assemble-dev-ids", file("ids:passages", "ids.txt"), (o) => writeFileSync(o, "p0\nq9\n"));

function graph(withNegatives: boolean, withDev: boolean): AnyStep[] {
  const common = {
    trainQueries: use(trainQueries, { inputs: {} }).out.out,
    devQueries: use(devQueries, { inputs: {} }).out.out,
    passages: use(passages, { inputs: {} }).out.out,
    turns: use(turns, { inputs: {} }).out.out,
  };
  const optionals = { ...(withNegatives ? { negatives: use(negatives, { inputs: {} }).out.out } : {}), ...(withDev ? { devCollection: use(devCollection, { inputs: {} }).out.out } : {}) };
  return [use(assembleExamples, { name: "assemble", params: { k: 2 }, inputs: { ...common, ...optionals } })];
}

const VARIANTS = { bare: [false, false], negatives: [true, false], dev: [false, true], both: [true, true] } as const;
const p = project(registry(Object.fromEntries(Object.entries(VARIANTS).map(([t, [n, d]]) => [t, () => graph(n, d)]))));

async function assembled(target: keyof typeof VARIANTS): Promise<{ key: string; inputs: string[]; files: string[]; npy: (f: string) => number[]; meta: unknown }> {
  const r = await run(p, [target]);
  assert.ok("result" in r.outcome, JSON.stringify(r.outcome));
  const entry = r.outcome.result.results.get("assemble")!.entry!;
  const out = p.store.outputPath(entry, "examples");
  const plan = await planTargets(p, [target]);
  assert.ok(plan.ok);
  return {
    key: entry.key,
    inputs: Object.keys(plan.rows.find((row) => row.step === "assemble")!.fingerprint!.inputs),
    files: readdirSync(out).sort(),
    npy: (f) => [...(readNpy(join(out, f)).data as Int32Array)],
    meta: JSON.parse(readFileSync(join(out, "meta.json"), "utf8")),
  };
}

const FILES = ["dev_gold.npy", "dev_passage_ids.npy", "dev_passage_type_ids.npy", "dev_query_ids.npy", "meta.json", "train_gold.npy", "train_pos.npy", "train_query_ids.npy"];
const COUNTS = { train_turns: 3, train_no_gold: 1, gold_missing: 1, negatives_missing_ids: 0, negatives_without_list: 0, examples: 2, dev_queries: 2 };
const meta = (counts: object, negatives: boolean) => ({ counts: { ...COUNTS, ...counts }, negatives, k: 2, devPassages: 0, seed: 42, vocabDigest: VOCAB_DIGEST });

test("assemble-dpr-examples: optional negatives and dev collection, absent and present", async () => {
  const bare = await assembled("bare");
  assert.deepEqual(bare.inputs, ["devQueries", "passages", "trainQueries", "turns"]);
  assert.deepEqual(bare.files, FILES);
  assert.deepEqual(bare.npy("train_query_ids.npy"), [1000, 1100, 1002, 1102]);
  assert.deepEqual([bare.npy("train_pos.npy"), bare.npy("train_gold.npy")], [[1, 3], [1, 4, 3, -1]]);
  assert.deepEqual(bare.npy("dev_query_ids.npy"), [2000, 2100, 2001, 2101]);
  // No dev collection, devPassages 0: the whole collection, the dev gold as its rows.
  assert.deepEqual(bare.npy("dev_passage_ids.npy"), [0, 100, 1, 101, 2, 102, 3, 103, 4, 104, 5, 105]);
  assert.deepEqual(bare.npy("dev_gold.npy"), [5, 2]);
  assert.deepEqual(bare.meta, meta({ dev_passages: 6 }, false));

  const negs = await assembled("negatives");
  assert.deepEqual(negs.inputs, ["devQueries", "negatives", "passages", "trainQueries", "turns"]);
  assert.deepEqual(negs.files, [...FILES, "train_neg.npy"].sort());
  assert.deepEqual(negs.npy("train_neg.npy"), [2, 0, 1, -1]);
  assert.deepEqual(negs.npy("dev_passage_ids.npy"), bare.npy("dev_passage_ids.npy"));
  assert.deepEqual(negs.meta, meta({ negatives_missing_ids: 1, dev_passages: 6 }, true));

  // The dev collection (p0, and q9 not in the collection) plus the dev gold (p2, p5).
  const dev = await assembled("dev");
  assert.deepEqual(dev.inputs, ["devCollection", "devQueries", "passages", "trainQueries", "turns"]);
  assert.deepEqual(dev.files, FILES);
  assert.deepEqual(dev.npy("dev_passage_ids.npy"), [0, 100, 2, 102, 5, 105]);
  assert.deepEqual(dev.npy("dev_passage_type_ids.npy"), [0, 0, 0, 2, 0, 5]);
  assert.deepEqual(dev.npy("dev_gold.npy"), [2, 1]);
  assert.deepEqual(dev.meta, meta({ dev_passages: 3, dev_collection_missing: 1 }, false));

  const both = await assembled("both");
  assert.deepEqual(both.files, negs.files);
  assert.deepEqual([both.npy("train_neg.npy"), both.npy("dev_passage_ids.npy")], [[2, 0, 1, -1], [0, 100, 2, 102, 5, 105]]);
  assert.deepEqual(both.meta, meta({ negatives_missing_ids: 1, dev_passages: 3, dev_collection_missing: 1 }, true));
  assert.equal(new Set([bare.key, negs.key, dev.key, both.key]).size, 4, "present and absent optional inputs never share a key");
});

/** Never called: `tsc --noEmit` fails if an `@ts-expect-error` below stops being an error. */
export function wrongAssembleWiringDoesNotCompile(): void {
  const t = use(turns, { inputs: {} }).out.out;
  const tokens = { trainQueries: use(trainQueries, { inputs: {} }).out.out, devQueries: use(devQueries, { inputs: {} }).out.out, passages: use(passages, { inputs: {} }).out.out };
  use(assembleExamples, { inputs: { ...tokens, turns: t } });
  // @ts-expect-error an optional input still checks its kind: turns are not negatives
  use(assembleExamples, { inputs: { ...tokens, turns: t, negatives: t } });
  // @ts-expect-error nor a dev collection
  use(assembleExamples, { inputs: { ...tokens, turns: t, devCollection: t } });
  // @ts-expect-error the required inputs stay required
  use(assembleExamples, { inputs: { ...tokens, negatives: use(negatives, { inputs: {} }).out.out } });
}
