import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeFlatIP, flatIPHeader, parseFlatIPHeader } from "../../steps/dense/flat-ip-format.ts";

// Bytes of faiss-node 0.5.1 / faiss 1.7.3 `IndexFlatIP(2)` after add([1,0, 0,1, .5,.5]) and toBuffer().
const FAISS_BYTES =
  "4978464902000000030000000000000000001000000000000000100000000000010000000006000000000000000000803f00000000000000000000803f0000003f0000003f";

test("encodeFlatIP writes exactly the bytes faiss writes", () => {
  const bytes = encodeFlatIP(new Float32Array([1, 0, 0, 1, 0.5, 0.5]), 2);
  assert.equal(Buffer.from(bytes).toString("hex"), FAISS_BYTES);
});

test("parseFlatIPHeader reads faiss's header", () => {
  assert.deepEqual(parseFlatIPHeader(Buffer.from(FAISS_BYTES, "hex")), { dim: 2, ntotal: 3, dataOffset: 45 });
  assert.deepEqual(parseFlatIPHeader(flatIPHeader(768, 0)), { dim: 768, ntotal: 0, dataOffset: 45 });
});

test("other index types and short or inconsistent headers are rejected", () => {
  const l2 = Buffer.from(FAISS_BYTES, "hex");
  l2.write("IxF2", 0, "latin1");
  assert.throws(() => parseFlatIPHeader(l2, "x.faiss"), /x.faiss: not a faiss IndexFlatIP file \(fourcc "IxF2"/);
  assert.throws(() => parseFlatIPHeader(new Uint8Array(10)), /too short/);
  const bad = Buffer.from(FAISS_BYTES, "hex");
  bad.writeBigUInt64LE(5n, 37);
  assert.throws(() => parseFlatIPHeader(bad), /inconsistent faiss IndexFlatIP header \(d=2, ntotal=3, metric=0, codes=5\)/);
});
