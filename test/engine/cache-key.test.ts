/** cacheKey composes the canonical JSON field by field, remembering frozen components: the key must stay canonicalHash(fp) exactly. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalHash } from "../../pipeline/engine/canonical.ts";
import { cacheKey, FINGERPRINT_SCHEMA, type Fingerprint } from "../../pipeline/engine/fingerprint.ts";

const sources = Object.freeze({ "steps/b.ts": "2".repeat(64), "steps/a.ts": "1".repeat(64) });
const packages = Object.freeze({ zod: "4.6.7" });

function fp(params: Fingerprint["params"]): Fingerprint {
  return {
    schema: FINGERPRINT_SCHEMA,
    step: { id: "make-x", version: 3 },
    sources,
    packages,
    params,
    inputs: { "shards[1]": { kind: "npy", digest: "b".repeat(64) }, "shards[0]": { kind: "npy", digest: "a".repeat(64) }, "10": { kind: "k", digest: "c".repeat(64) }, "9": { kind: "k", digest: "d".repeat(64) } },
    datasets: {},
    env: { CSPIPE_X: null },
    runtime: { type: "in-process" },
    numerics: { device: "in-process", native: { "onnxruntime-node": { mlas: "fma3", cudaProvider: false } } },
  };
}

test("cacheKey is canonicalHash of the fingerprint, with frozen components remembered and the others not", () => {
  const a = fp({ lr: 3e-4, zero: -0, list: [2, 1], nested: { b: 1, a: 2, "2": 0, "10": 1 } });
  assert.equal(cacheKey(a), canonicalHash(a));
  assert.equal(cacheKey(a), canonicalHash(a), "asked again, from the remembered JSON");
  const b = fp({ lr: 2e-4, zero: 0, list: [2, 1], nested: { b: 1, a: 2, "2": 0, "10": 1 } });
  assert.equal(cacheKey(b), canonicalHash(b));
  assert.notEqual(cacheKey(a), cacheKey(b));
  const unfrozen = { ...a, sources: { ...sources, "steps/c.ts": "3".repeat(64) } };
  assert.equal(cacheKey(unfrozen), canonicalHash(unfrozen));
  assert.notEqual(cacheKey(unfrozen), cacheKey(a));
});
