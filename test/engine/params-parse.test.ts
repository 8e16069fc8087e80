/**
 * analyze() and the report's provenance parse params without zod's JIT (graph.ts parseParams):
 * the same data, defaults and issues as zod's compiled parser, whose first parse of a schema
 * compiles a function; each params object is parsed once per schema.
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

test("params are parsed once per params object and schema", () => {
  let parses = 0;
  const counted = (epochs: number) =>
    z
      .object({ lr: z.number(), epochs: z.number().default(epochs) })
      .strict()
      .transform((v) => {
        parses++;
        return v;
      });
  const a = { params: counted(10) } as unknown as Parameters<typeof parseParams>[0];
  const b = { params: counted(20) } as unknown as Parameters<typeof parseParams>[0];
  const params = { lr: 0.1 };
  const first = parseParams(a, params);
  assert.equal(parseParams(a, params), first);
  assert.equal(parses, 1);
  // An equal but distinct object is parsed again; so is the same object under another schema.
  assert.deepEqual(parseParams(a, { lr: 0.1 }).data, { lr: 0.1, epochs: 10 });
  assert.deepEqual(parseParams(b, params).data, { lr: 0.1, epochs: 20 });
  assert.equal(parses, 3);
  assert.deepEqual(first.data, { lr: 0.1, epochs: 10 });
  // Failures are remembered too; a non-object is parsed each time.
  const bad = { lr: "x" };
  assert.equal(parseParams(a, bad), parseParams(a, bad));
  assert.equal(parseParams(a, bad).success, false);
});
