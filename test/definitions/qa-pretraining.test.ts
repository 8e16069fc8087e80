/**
 * The mini readers' pre-training on mini-nq (wiring only, nothing runs): the DPR reader starts
 * from θ0's passage encoder when the QA setup says so (the very `pretrain-dpr` model the dense
 * variants start from, passed with --init-bert, its inputs tokenized with θ0's vocabulary), from a
 * random tiny BERT otherwise; where each reader starts and how long it pre-trains come from
 * MINI_PRETRAINING, the one place they are set.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { modelOf, type DenseContext } from "../../pipeline/definitions/dense/models.ts";
import { ibn } from "../../pipeline/definitions/dense/variants.ts";
import { baseOf } from "../../pipeline/definitions/dense/base.ts";
import { MINI_BERT, SMOKE_BERT } from "../../pipeline/definitions/dense/setup.ts";
import { pretrainedFid, pretrainedReader } from "../../pipeline/definitions/qa/readers.ts";
import { qaSetupOf } from "../../pipeline/definitions/qa/parameters.ts";
import { MINI_PRETRAINING } from "../../pipeline/definitions/qa/setup.ts";

const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));
const MINI: DenseContext = { data: "mini", profile: "paper" };
const producer = (s: AnyStep, input: string): AnyStep => {
  const ref = (s.inputs as Record<string, { step: AnyStep } | undefined>)[input];
  assert.ok(ref, `${s.name} has no input ${input}`);
  return ref.step;
};
const params = <T>(s: AnyStep) => s.params as T;

test("the mini pre-trainings take their start and epochs from MINI_PRETRAINING (the smoke profile: one epoch, the smoke θ0's width)", () => {
  const q = qaSetupOf(MINI);
  assert.deepEqual([q.reader.pretrain!.epochs, q.reader.pretrain!.init, q.fid.pretrain!.epochs], [MINI_PRETRAINING.readerEpochs, MINI_PRETRAINING.readerInit, MINI_PRETRAINING.fidEpochs]);
  assert.equal(params<{ epochs: number }>(pretrainedReader(MINI).step).epochs, MINI_PRETRAINING.readerEpochs);
  assert.equal(params<{ epochs: number }>(pretrainedFid(MINI).step).epochs, MINI_PRETRAINING.fidEpochs);
  const smoke = qaSetupOf({ data: "mini", profile: "smoke" });
  assert.deepEqual([smoke.reader.pretrain!.epochs, smoke.reader.pretrain!.init, smoke.fid.pretrain!.epochs], [1, { kind: "random", bert: SMOKE_BERT }, 1]);
  assert.equal(qaSetupOf({ data: "real", profile: "paper" }).reader.pretrain, null);
});

test("mini pretrain-dpr-reader from θ0 depends on θ0 (pretrain-dpr, the dense variants' start), reads its passage encoder with --init-bert, on θ0's vocabulary", () => {
  const pre = qaSetupOf(MINI).reader.pretrain!;
  const s = pretrainedReader(MINI, { ...pre, epochs: 30, init: { kind: "theta0" } }).step;
  const a = analyze([s], lock);
  assert.ok(a.ok, a.ok ? "" : JSON.stringify(a.failures.slice(0, 5)));
  assert.equal(s.name, "pretrain-dpr-reader.mini-nq");
  const theta0 = baseOf(MINI).theta0.step;
  assert.equal(theta0.def.id, "pretrain-dpr");
  assert.equal(producer(s, "theta0"), theta0, "the reader starts from the θ0 the dense variants start from");
  assert.equal(producer(modelOf(MINI, ibn("qrecc", 1)).step, "init"), theta0);
  const argv = s.def.runtime.type === "container" ? s.def.runtime.argv : [];
  assert.deepEqual(argv.slice(argv.indexOf("--init-bert"), argv.indexOf("--init-bert") + 2), ["--init-bert", "{in:theta0}/passage_encoder.safetensors"]);
  const p = params<Record<string, unknown>>(s);
  assert.equal(p["epochs"], 30);
  assert.ok(!("init" in p), "the init comes from the flag, not the config");
  // The reader inputs are tokenized with the vocabulary θ0 was trained with (the trainer checks the digest).
  assert.equal(producer(producer(s, "inputs"), "vocab"), producer(theta0, "vocab"));
  // From a random tiny BERT: no θ0 input, the shape in the config.
  const random = pretrainedReader(MINI, { ...pre, init: { kind: "random", bert: MINI_BERT } }).step;
  assert.ok(!("theta0" in (random.inputs as object)));
  assert.deepEqual(params<{ init: unknown }>(random).init, { kind: "random", bert_config: MINI_BERT });
});
