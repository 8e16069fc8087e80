/**
 * analyze() and the report's provenance parse params without zod's JIT (graph.ts parseParams):
 * the same data, defaults and issues as zod's compiled parser, whose first parse of a schema
 * compiles a function.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { parseParams } from "../../pipeline/engine/graph.ts";

const schema = z
  .object({ lr: z.number().positive(), epochs: z.number().int().default(10), model: z.object({ layers: z.number().int(), names: z.array(z.string()) }).strict() })
  .strict();
const def = { params: schema } as unknown as Parameters<typeof parseParams>[0];

test("params parse without the JIT as with it: defaults filled, issues the same", () => {
  const ok = { lr: 4e-4, model: { layers: 2, names: ["a", "b"] } };
  const jit = schema.safeParse(ok);
  assert.deepEqual(parseParams(def, ok), jit);
  assert.deepEqual(parseParams(def, ok).data, { lr: 4e-4, epochs: 10, model: { layers: 2, names: ["a", "b"] } });
  const bad = { lr: -1, epochs: 1.5, model: { layers: 2, names: [3] }, extra: true };
  const issues = (r: { error?: { issues: { path: PropertyKey[]; code: string }[] } }) => r.error?.issues.map((i) => `${i.path.join(".")}:${i.code}`);
  assert.deepEqual(issues(parseParams(def, bad)), issues(schema.safeParse(bad)));
  assert.deepEqual(issues(parseParams(def, bad)), ["lr:too_small", "epochs:invalid_type", "model.names.0:invalid_type", ":unrecognized_keys"]);
});
