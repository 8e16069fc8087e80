// SmallFloat.intToByte4 / byte4ToInt, hand-computed:
//   lengths 0..23 are stored verbatim;
//   100: 100 - 24 = 76 = 0b1001100 (7 bits) -> shift 3, 76 >>> 3 = 9 = 0b1001, drop the leading 1 -> 1,
//        | (3 + 1) << 3 = 33, byte = 24 + 33 = 57; decode: (1 | 8) << 3 = 72, + 24 = 96.
//   24 -> 24 + longToInt4(0) = 24 (decodes to 24); 31 -> 24 + 7 = 31 (still exact below 32).
import { test } from "node:test";
import assert from "node:assert/strict";
import { byte4ToInt, intToByte4, LENGTH_TABLE } from "../../steps/sparse/smallfloat.ts";

test("small lengths are exact, larger ones keep 4 significant bits", () => {
  for (let i = 0; i < 24; i++) assert.equal(byte4ToInt(intToByte4(i)), i);
  assert.equal(intToByte4(24), 24);
  assert.equal(intToByte4(31), 31);
  assert.equal(intToByte4(100), 57);
  assert.equal(byte4ToInt(57), 96);
  assert.equal(byte4ToInt(intToByte4(2 ** 31 - 1)), byte4ToInt(255));
  assert.equal(intToByte4(2 ** 31 - 1), 255);
});

test("encoding is monotonic and decoding never exceeds the length", () => {
  let prev = 0;
  for (let i = 0; i < 5000; i++) {
    const b = intToByte4(i);
    assert.ok(b >= prev, `not monotonic at ${i}`);
    assert.ok(byte4ToInt(b) <= i);
    prev = b;
  }
});

test("LENGTH_TABLE decodes every byte; bad lengths throw", () => {
  assert.equal(LENGTH_TABLE.length, 256);
  assert.equal(LENGTH_TABLE[57], 96);
  assert.throws(() => intToByte4(-1), RangeError);
  assert.throws(() => intToByte4(1.5), RangeError);
});
