import { test } from "node:test";
import assert from "node:assert/strict";
import { emptyQueryRows } from "../../steps/dense/empty-queries.ts";

test("rows holding only special tokens are empty; one content token makes a row non-empty", () => {
  // [CLS]=2 [SEP]=3 pad=0; 3 rows of width 4.
  const ids = Int32Array.from([2, 3, 0, 0, 2, 7, 3, 0, 2, 3, 3, 0]);
  assert.deepEqual(emptyQueryRows({ rows: 3, seq: 4, ids }, new Set([0, 2, 3])), [0, 2]);
  assert.deepEqual(emptyQueryRows({ rows: 3, seq: 4, ids }, new Set([0])), []);
  assert.deepEqual(emptyQueryRows({ rows: 0, seq: 4, ids: new Int32Array(0) }, new Set([0])), []);
});
