// The Lucene peer must be the version the paper's Anserini used (8.8.x: Debian's liblucene8-java
// 8.8.1 ships jars named 8.7.0, so the file name is not evidence). In CI (CI=true) a missing peer
// is a failure, not a skip.
import { test } from "node:test";
import assert from "node:assert/strict";
import { luceneVersion, peerOrSkip } from "../peers/lucene/peer.ts";

test("the Lucene peer is Lucene 8.8.x", (t) => {
  const classpath = peerOrSkip(t);
  if (classpath === null) return;
  assert.match(luceneVersion(classpath), /^8\.8\.\d+$/);
});
