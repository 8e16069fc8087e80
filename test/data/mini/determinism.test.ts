import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { generateWorld, resolveParams, writeMiniDataset, MINI_DATASETS } from "../../../steps/data/mini/index.ts";
import type { MiniDatasetName, MiniParamsOverrides } from "../../../steps/data/mini/index.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { tempDir } from "../../tmp.ts";

const SMALL: MiniParamsOverrides = { entities: 40, trainTurns: 60, devTurns: 20, testTurns: 20, standaloneTrain: 30, standaloneDev: 10 };

async function digestOf(name: MiniDatasetName, params: MiniParamsOverrides): Promise<{ files: string[]; digest: string }> {
  const dir = tempDir("mini-det-");
  try {
    const { files } = await writeMiniDataset(name, params, dir);
    const h = createHash("sha256");
    for (const f of files) {
      h.update(f);
      h.update(await readFile(join(dir, f)));
    }
    return { files, digest: h.digest("hex") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const name of MINI_DATASETS) {
  test(`${name}: same seed gives identical bytes, another seed different bytes`, async () => {
    const a = await digestOf(name, { ...SMALL, seed: 7 });
    const b = await digestOf(name, { ...SMALL, seed: 7 });
    const c = await digestOf(name, { ...SMALL, seed: 8 });
    assert.deepEqual(a.files, b.files);
    assert.equal(a.digest, b.digest);
    assert.notEqual(a.digest, c.digest);
  });
}

test("sizes respond to params", () => {
  const base = { ...SMALL, seed: 11 };
  const small = generateWorld(resolveParams("mini-topiocqa", base));
  const big = generateWorld(resolveParams("mini-topiocqa", { ...base, entities: 80, trainTurns: 120 }));
  // every entity has 4 or 5 passages (Introduction + 3 or 4 sections)
  assert.ok(small.passages.length >= 40 * 4 && small.passages.length <= 40 * 5);
  assert.ok(big.passages.length >= 80 * 4 && big.passages.length <= 80 * 5);
  const turns = (w: typeof small, split: string) => w.conversations.filter((c) => c.split === split).reduce((n, c) => n + c.turns.length, 0);
  // generation stops at the first conversation that reaches the target: at most 11 turns over
  assert.ok(turns(small, "train") >= 60 && turns(small, "train") < 60 + 12);
  assert.ok(turns(big, "train") >= 120 && turns(big, "train") < 120 + 12);
  assert.ok(turns(small, "test") >= 20 && turns(small, "test") < 20 + 12);
  assert.equal(turns(generateWorld(resolveParams("mini-topiocqa", { entities: 40 })), "test"), 0, "TopiOCQA's default has no test split");
});

test("defaults are the documented sizes", () => {
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac"] as const) {
    const w = generateWorld(resolveParams(name));
    assert.ok(w.passages.length >= 3000 && w.passages.length <= 5000, `${name}: ${w.passages.length} passages`);
    const train = w.conversations.filter((c) => c.split === "train").reduce((n, c) => n + c.turns.length, 0);
    assert.ok(train >= 1000 && train <= 2000, `${name}: ${train} train turns`);
  }
});

test("bad params throw InputError naming the field", () => {
  assert.throws(() => resolveParams("mini-qrecc", { entities: 3 }), (e: unknown) => e instanceof InputError && e.field === "entities");
  assert.throws(() => resolveParams("mini-qrecc", { seed: -1 }), (e: unknown) => e instanceof InputError && e.field === "seed");
  assert.throws(() => generateWorld(resolveParams("mini-qrecc", { ...SMALL, scale: 10 })), (e: unknown) => e instanceof InputError && e.field === "scale");
});
