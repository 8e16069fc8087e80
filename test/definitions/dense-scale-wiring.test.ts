/**
 * Which retrieval path each data source gets (pipeline/definitions/dense/retrieval.ts), from
 * the built graphs only (no data files, nothing runs): real data encodes on GPUs per shard
 * behind one ONNX parity check per model and searches shard by shard with a merge; the mini
 * report keeps the CPU ONNX steps under their old names.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { DENSE_SETUPS } from "../../pipeline/definitions/dense/setup.ts";
import { wiredInput } from "../../pipeline/engine/wiring.ts";

const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));
const targets = buildTargets();

function order(target: string, data: "mini" | "real"): readonly AnyStep[] {
  const a = analyze(targets.get(target)!.steps({ data }), lock);
  assert.ok(a.ok, a.ok ? "" : JSON.stringify(a.failures.slice(0, 3)));
  return a.graph.order;
}
const count = (steps: readonly AnyStep[], id: string) => steps.filter((s) => s.def.id === id).length;
const inputStep = (s: AnyStep, input: string): AnyStep => wiredInput(s, input)!.ref.step;

test("table2 --data real: GPU encode per shard behind a parity check, a search step per shard, a merge", () => {
  const steps = order("table2", "real");
  const shards = DENSE_SETUPS.real.paper.shards;
  for (const id of ["encode-passages", "encode-queries", "search-dense"]) assert.equal(count(steps, id), 0, `${id} (the CPU ONNX path) on real data`);
  const merges = steps.filter((s) => s.def.id === "merge-dense-hits");
  assert.ok(merges.length > 0);
  // Every index a merge reads is made per shard on a GPU from the model the queries come from.
  const encodes = new Set<string>();
  for (const m of merges) {
    const queries = inputStep(m, "queries");
    assert.equal(queries.def.id, "encode-queries-torch");
    const model = inputStep(queries, "model");
    for (let s = 0; s < shards; s++) {
      const search = inputStep(m, `shards[${s}]`);
      assert.equal(search.def.id, "search-dense-shard");
      assert.equal(inputStep(search, "queries"), queries);
      const encode = inputStep(inputStep(search, "index"), "embeddings");
      assert.equal(encode.def.id, "encode-passages-torch");
      assert.deepEqual({ shard: (encode.params as { shard: number }).shard, shards: (encode.params as { shards: number }).shards }, { shard: s, shards });
      assert.equal(inputStep(encode, "model"), model);
      assert.equal(inputStep(inputStep(encode, "parity"), "model"), model);
      encodes.add(encode.name);
    }
    assert.equal(inputStep(inputStep(queries, "parity"), "model"), model);
  }
  assert.equal(count(steps, "encode-passages-torch"), encodes.size);
  assert.equal(encodes.size % shards, 0);
  // One parity check per model, GPU requests of one device each (8 GPUs: 8 shards at once).
  const models = new Set(steps.filter((s) => s.def.id === "verify-onnx-parity").map((s) => inputStep(s, "model").name));
  assert.equal(count(steps, "verify-onnx-parity"), models.size);
  for (const s of steps.filter((x) => x.def.id.endsWith("-gpu"))) {
    assert.ok(s.def.runtime.type === "container" && s.def.runtime.gpu?.count === 1 && s.def.runtime.gpu.required, s.name);
  }
});

test("the mini report encodes in torch under the pinned kernels (GPU optional, float32), with the CPU path's step names; no in-process or per-shard step", () => {
  const steps = order("report", "mini");
  for (const id of ["encode-passages", "encode-queries", "search-dense-shard", "merge-dense-hits"]) assert.equal(count(steps, id), 0, id);
  const encodes = steps.filter((s) => s.def.id === "encode-passages-torch" || s.def.id === "encode-queries-torch");
  // 68 passage shards and 47 query sets with three seeds; the seed-hungry claims add, per model, 2 shards
  // and its query sets: QReCC's shortcut for seeds 4-10 and the fine-tunings 2 and 3 of seeds 1-10 (27,
  // one set each), OR-QuAC's IBN and IHN-2 for seeds 4-6 (3 sets: IBN also mines on train), TopiOCQA's
  // IBN, IHN-2 and IHN-3 for seeds 4-14 (5 sets: two of them mine).
  assert.equal(encodes.length, 68 + 47 + 27 * (2 + 1) + 3 * (2 * 2 + 3) + 11 * (3 * 2 + 5));
  for (const s of encodes) {
    assert.ok(s.def.runtime.type === "container" && s.def.runtime.gpu?.count === 1 && !s.def.runtime.gpu.required, s.name);
    assert.deepEqual([(s.params as { dtype: string }).dtype, (s.params as { batchSize: number }).batchSize], ["fp32", 32], s.name);
    assert.equal(inputStep(s, "parity").name, `verify-onnx-parity.${inputStep(s, "model").name}`, s.name);
  }
  const models = new Set(encodes.map((s) => inputStep(s, "model").name));
  assert.equal(count(steps, "verify-onnx-parity"), models.size);
  const names = new Set(steps.map((s) => s.name));
  for (const n of ["encode-passages.mini-qrecc.ibn.s1.0", "build-flat-ip-index.mini-qrecc.ibn.s1.1", "encode-queries.mini-qrecc.ibn.s1.history.test", "search-dense.mini-qrecc.ibn.s1.history.test"]) {
    assert.ok(names.has(n), n);
  }
  const search = steps.find((s) => s.name === "search-dense.mini-qrecc.ibn.s1.history.test")!;
  assert.deepEqual(search.params, { k: 100, tag: "cspipe-ibn.s1" });
});
