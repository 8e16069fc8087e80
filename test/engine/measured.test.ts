/**
 * Store.measuredSeconds: each step's seconds from the newest of the last `lookBack` run records
 * that executed it. Records without a "seconds" field (runs that executed nothing) are not
 * parsed; unreadable ones are skipped; neither changes the answer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Store, type RunRecord } from "../../pipeline/engine/store.ts";
import { tempDir } from "../tmp.ts";

const K = (c: string) => c.repeat(64);

function record(time: string, steps: RunRecord["steps"]): RunRecord {
  return { time, targets: ["t"], keys: [...new Set(Object.values(steps).map((s) => s.key))].sort(), steps, status: "ok" };
}

test("the newest measured seconds win; no-op, damaged and too-old records add nothing", async () => {
  const store = new Store(join(tempDir(), "store"));
  await store.recordRun(record("2026-01-01T00:00:00.000Z", { a: { stepId: "make-a", key: K("a"), seconds: 9 }, old: { stepId: "make-old", key: K("b"), seconds: 1 } }));
  await store.recordRun(record("2026-01-02T00:00:00.000Z", { a: { stepId: "make-a", key: K("a"), seconds: 2 }, b: { stepId: "make-b", key: K("c"), seconds: 3 } }));
  await store.recordRun(record("2026-01-03T00:00:00.000Z", { a: { stepId: "make-a", key: K("a") }, b: { stepId: "make-b", key: K("c") } }));
  await store.recordRun(record("2026-01-04T00:00:00.000Z", { "seconds": { stepId: "make-s", key: K("d") } }));
  mkdirSync(join(store.root, "runs"), { recursive: true });
  writeFileSync(join(store.root, "runs", "2026-01-05T00-00-00-000Z-1.json"), '{"keys": [], "steps": {"a": {"seconds": 5');
  assert.deepEqual([...(await store.measuredSeconds())].sort(), [["a", 2], ["b", 3], ["old", 1]]);
  // Only the newest 4 records: the first (the only one with `old`) is out of reach.
  assert.deepEqual([...(await store.measuredSeconds(4))].sort(), [["a", 2], ["b", 3]]);
  assert.deepEqual([...(await store.measuredSeconds(3))].sort(), []);
});
