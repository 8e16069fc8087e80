/**
 * The allocator settings every program step runs with (program-env.ts ALLOCATOR_ENV) change
 * where memory comes from, never what is computed: the same training with and without them gives
 * byte-identical weights, which is why they are in no key.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ALLOCATOR_ENV, programEnv } from "../../pipeline/executors/program-env.ts";
import { numericsEnv } from "../../pipeline/executors/numerics/pins.ts";
import { TRAINER_MODULE, trainerArgv } from "../../steps/training/contract.ts";
import { PYTHON, program, writeSyntheticInputs } from "../training/python.ts";
import { tempDir } from "../engine/helpers.ts";
import { tinyTrainingParams } from "./tiny-training.ts";

test("every program step gets the allocator settings, over the caller's own", () => {
  const env = programEnv({ inherited: { MALLOC_TRIM_THRESHOLD_: "0" }, runtime: { type: "container", image: "x", argv: ["python3"] }, settings: {}, env: {}, secrets: {}, pinned: true, identity: null });
  assert.deepEqual([env.MALLOC_MMAP_THRESHOLD_, env.MALLOC_TRIM_THRESHOLD_, env.MALLOC_TOP_PAD_], ["33554432", "268435456", "67108864"]);
});

test("a training computes the same bytes with and without the allocator settings", () => {
  const dir = tempDir("cspipe-allocator-");
  const inputs = join(dir, "in");
  writeSyntheticInputs(inputs);
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify(tinyTrainingParams(2)));
  const base: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", CUDA_VISIBLE_DEVICES: "" };
  for (const [k, v] of Object.entries(numericsEnv("pinned", 1))) if (v !== undefined) base[k] = v;
  const weights = (name: string, env: Record<string, string>) => {
    const out = join(dir, name);
    const r = spawnSync(PYTHON, program(TRAINER_MODULE, trainerArgv(config, inputs, out)), { env, encoding: "utf8", timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(join(out, "query_encoder.safetensors"));
  };
  const plain = weights("plain", base);
  const tuned = weights("tuned", { ...base, ...ALLOCATOR_ENV });
  assert.ok(plain.equals(tuned), "the allocator settings changed the weights");
});
