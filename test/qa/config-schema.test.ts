/**
 * The readers' config keys have one source (steps/qa/config-schema.ts): the schemas the Python
 * programs check against are generated from it (test/training/generated-python.test.ts), and the
 * steps' params default as they do.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { FID_FIELDS, paramsShape, READER_FIELDS } from "../../steps/qa/config-schema.ts";

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
