/**
 * Bad inputs fail in the step that reads them: the QReCC preprocessing step on a raw
 * directory laid out as the release is (hand-written fixtures), with one file broken at a
 * time: an empty test-turns file, gold passages missing from the collection (an error
 * unless `allowMissingGold`, then counted in the report), a TSV where a JSON array belongs.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, use } from "../../pipeline/engine/step.ts";
import type { RunFailure } from "../../pipeline/engine/failures.ts";
import { preprocess, preprocessCollectionSteps } from "../../steps/data/steps.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";

const FIX = join(import.meta.dirname, "formats", "fixtures", "qrecc");

/** A raw QReCC directory in the release layout, with `edit` applied. */
function rawDir(edit: (root: string) => void = () => {}): string {
  const root = tempDir("cspipe-raw-qrecc-");
  cpSync(join(FIX, "scai-qrecc21-train.json"), join(root, "scai-qrecc21-training-turns.json"));
  cpSync(join(FIX, "qrecc_test.json"), join(root, "scai-qrecc21-test-turns.json"));
  cpSync(join(FIX, "qrecc_test_qrels.json"), join(root, "qrels.txt"));
  mkdirSync(join(root, "collection-paragraph"));
  cpSync(join(FIX, "passages.jsonl"), join(root, "collection-paragraph", "part-0.jsonl"));
  edit(root);
  return root;
}

/** A step that publishes a directory as `raw:qrecc` (what fetch + assemble do for real data). */
const placeRaw = defineStep({
  id: "place-raw-qrecc",
  version: 1,
  source: import.meta.url,
  params: z.object({ from: z.string() }).strict(),
  inputs: {},
  outputs: { raw: dir("raw:qrecc", "raw") },
  runtime: { type: "in-process", async run(ctx) { cpSync(ctx.params.from, ctx.outputs.raw, { recursive: true }); } },
});

async function preprocessRaw(raw: string, params: Record<string, unknown> = {}) {
  const p = project(
    registry({
      t: () => {
        const placed = use(placeRaw, { name: "raw", params: { from: raw }, inputs: {} });
        const collection = use(preprocessCollectionSteps.qrecc, { name: "preprocess-collection-qrecc", params: {}, inputs: { raw: placed.out.raw } });
        return [use(preprocess.qrecc, { name: "preprocess-qrecc", params: { devConversations: 0, ...params }, inputs: { raw: placed.out.raw, passages: collection.out.passages } })];
      },
    }),
  );
  const r = await run(p, ["t"]);
  assert.deepEqual(r.outcome.analysis, []);
  const res = "result" in r.outcome ? r.outcome.result : undefined;
  const failure: RunFailure | undefined = res?.failures[0];
  return { failure, entry: res?.results.get("preprocess-qrecc")?.entry, p };
}

test("gold passages missing from the collection fail the preprocessing step, naming the count, a turn and the flag", async () => {
  const { failure } = await preprocessRaw(rawDir());
  assert.equal(failure?.reason, "bad-input");
  if (failure?.reason !== "bad-input") return;
  assert.match(failure.message, /turn 10_2: gold passage 'http:\/\/f\.com\/qubit_p2' is not in the collection \(1 gold passage id of 1 turn missing in all\)/);
  assert.match(failure.fix ?? "", /allowMissingGold/);
});

test("with allowMissingGold the step succeeds and its report counts the missing gold", async () => {
  const { failure, entry, p } = await preprocessRaw(rawDir(), { allowMissingGold: true });
  assert.equal(failure, undefined);
  const report = JSON.parse(readFileSync(p.store.outputPath(entry!, "report"), "utf8")) as { counts: Record<string, number> };
  assert.equal(report.counts["gold_not_in_collection"], 1);
});

test("an empty test-turns file fails the step that reads it, naming the file", async () => {
  for (const empty of ["[]\n", ""]) {
    const raw = rawDir((root) => writeFileSync(join(root, "scai-qrecc21-test-turns.json"), empty));
    const { failure } = await preprocessRaw(raw, { allowMissingGold: true });
    assert.equal(failure?.reason, "bad-input", JSON.stringify(failure));
    if (failure?.reason !== "bad-input") return;
    assert.match(failure.file ?? "", /\/outputs\/raw\/scai-qrecc21-test-turns\.json$/);
    assert.match(failure.message, /no test turns/);
  }
});

test("an empty collection fails the step, naming the collection files", async () => {
  const raw = rawDir((root) => writeFileSync(join(root, "collection-paragraph", "part-0.jsonl"), ""));
  const { failure } = await preprocessRaw(raw, { allowMissingGold: true });
  assert.equal(failure?.reason, "bad-input");
  if (failure?.reason !== "bad-input") return;
  assert.match(failure.message, /no passages/);
  assert.match(failure.file ?? "", /part-0\.jsonl$/);
});

test("a TSV where the test turns' JSON array belongs: the step says which format it expected", async () => {
  const raw = rawDir((root) => writeFileSync(join(root, "scai-qrecc21-test-turns.json"), "Conversation_no\tTurn_no\tQuestion\n10\t1\twhat is a qubit\n"));
  const { failure } = await preprocessRaw(raw, { allowMissingGold: true });
  assert.equal(failure?.reason, "bad-input");
  if (failure?.reason !== "bad-input") return;
  assert.match(failure.message, /expected a JSON array of records or JSONL.*looks like TSV/);
});
