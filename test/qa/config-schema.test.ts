/**
 * The readers' config keys have one source (steps/qa/config-schema.ts): the JSON schemas the
 * Python programs validate against are generated from it and must not go stale
 * (`npx tsx scripts/gen-qa-schemas.ts` rewrites them), and the steps' params default as they do.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { FID_FIELDS, paramsShape, QA_SCHEMAS, qaSchemaJson, READER_FIELDS } from "../../steps/qa/config-schema.ts";

test("the generated config_schema.json files match steps/qa/config-schema.ts", () => {
  const root = findProjectRoot();
  for (const file of Object.keys(QA_SCHEMAS) as (keyof typeof QA_SCHEMAS)[]) {
    assert.equal(readFileSync(join(root, file), "utf8"), qaSchemaJson(file), `${file} is stale: run npx tsx scripts/gen-qa-schemas.ts`);
  }
});

test("params from the fields: defaults filled, ranges enforced", () => {
  const reader = z.object(paramsShape(READER_FIELDS)).strict();
  const d = reader.parse({});
  assert.equal(d.passages_per_question, 24);
  assert.equal(d.eval_top_docs, 50);
  assert.equal(d.threads, null);
  assert.ok(!reader.safeParse({ passages_per_question: 1 }).success);
  assert.ok(!reader.safeParse({ amp: "fp8" }).success);
  assert.ok(!reader.safeParse({ warmup_ratio: 1 }).success);
  const fid = z.object(paramsShape(FID_FIELDS)).strict().parse({});
  assert.deepEqual([fid.n_context, fid.answer_max_length, fid.amp, fid.weight_decay], [50, 100, "bf16", 0.01]);
});
