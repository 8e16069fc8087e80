import { test } from "node:test";
import assert from "node:assert/strict";
import { hash64, hashKey, IdHashSet } from "../../../steps/data/preprocess/id-hash.ts";

test("IdHashSet: suspects are exactly the repeated ids' keys, across growth", () => {
  const set = new IdHashSet(2); // forces several re-allocations
  for (let i = 0; i < 1000; i++) set.add(`http://x.com/${i}_p0`);
  set.add("http://x.com/17_p0");
  set.add("http://x.com/999_p0");
  assert.equal(set.size, 1002);
  assert.deepEqual(set.suspects(), new Set([hashKey("http://x.com/17_p0"), hashKey("http://x.com/999_p0")]));
});

test("hash64: stable values, sensitive to order and length", () => {
  assert.deepEqual(hash64(""), hash64(""));
  assert.notDeepEqual(hash64("ab"), hash64("ba"));
  assert.notDeepEqual(hash64("a"), hash64("a\u0000"));
  assert.equal(hashKey("x"), (BigInt(hash64("x")[1]) << 32n) | BigInt(hash64("x")[0]));
  // no collisions among 200k similar ids
  const seen = new Set<bigint>();
  for (let i = 0; i < 200_000; i++) seen.add(hashKey(`http://www.example.com/page${i}_p${i % 9}`));
  assert.equal(seen.size, 200_000);
});
