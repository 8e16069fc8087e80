import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalJson, canonicalHash, CanonicalJsonError } from "../../pipeline/engine/canonical.ts";

test("canonical JSON sorts keys at every depth and drops undefined", () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } }), '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
});

test("equal values hash equally regardless of key order; -0 is 0", () => {
  assert.equal(canonicalHash({ x: 1, y: [0] }), canonicalHash({ y: [-0], x: 1 }));
  // sha256 of the 7 bytes {"x":1}, computed with sha256sum
  assert.equal(canonicalHash({ x: 1 }), "5041bf1f713df204784353e82f6a4a535931cb64f1f4b4a5aeaffcb720918b22");
  assert.notEqual(canonicalHash({ x: 1 }), canonicalHash({ x: "1" }));
});

test("non-finite numbers and class instances are rejected, not silently coerced", () => {
  assert.throws(() => canonicalJson({ a: NaN }), CanonicalJsonError);
  assert.throws(() => canonicalJson({ a: Infinity }), /a: Infinity/);
  assert.throws(() => canonicalJson({ d: new Date(0) }), /plain objects/);
});
