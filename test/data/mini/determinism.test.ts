import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { collectionSize, generateWorld, resolveParams, writeMiniDataset, MINI_DATASETS } from "../../../steps/data/mini/index.ts";
import type { MiniDatasetName, MiniParamsOverrides } from "../../../steps/data/mini/index.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { tempDir } from "../../tmp.ts";

const SMALL: MiniParamsOverrides = { entities: 40, scale: 0, trainTurns: 60, devTurns: 20, testTurns: 20, standaloneTrain: 30, standaloneDev: 10 };

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
  const small = generateWorld(resolveParams("mini-qrecc", base));
  const big = generateWorld(resolveParams("mini-qrecc", { ...base, entities: 80, trainTurns: 120 }));
  // QReCC-style articles: an Introduction and 3 or 4 sections of 1 or 2 passages each
  const perEntity = (w: typeof small) => w.passages.length / w.entities.length;
  assert.ok(perEntity(small) >= 4 && perEntity(small) <= 9 && perEntity(big) >= 4 && perEntity(big) <= 9);
  assert.equal(big.entities.length, 80);
  const longer = generateWorld(resolveParams("mini-qrecc", { ...base, articles: { ...resolveParams("mini-qrecc").articles, sectionPassages: [3, 3] } }));
  assert.ok(perEntity(longer) >= 10, "more passages per section, longer articles");
  const turns = (w: typeof small, split: string) => w.conversations.filter((c) => c.split === split).reduce((n, c) => n + c.turns.length, 0);
  // generation stops at the first conversation that reaches the target: at most 10 turns over
  assert.ok(turns(small, "train") >= 60 && turns(small, "train") < 60 + 10);
  assert.ok(turns(big, "train") >= 120 && turns(big, "train") < 120 + 10);
  assert.ok(turns(small, "test") >= 20 && turns(small, "test") < 20 + 10);
  assert.equal(turns(generateWorld(resolveParams("mini-topiocqa", { entities: 40, scale: 0 })), "test"), 0, "TopiOCQA's default has no test split");
});

test("defaults are the documented sizes", () => {
  const expect = { "mini-qrecc": [3000, 5000], "mini-topiocqa": [16000, 16000], "mini-orquac": [7000, 9000], "mini-nq": [16000, 16000] } as const;
  for (const [name, [lo, hi]] of Object.entries(expect)) {
    const w = generateWorld(resolveParams(name as MiniDatasetName));
    const size = collectionSize(w);
    assert.ok(size >= lo && size <= hi, `${name}: ${size} passages`);
    const train = w.conversations.filter((c) => c.split === "train").reduce((n, c) => n + c.turns.length, 0);
    if (name !== "mini-nq") assert.ok(train >= 1500 && train <= 2000, `${name}: ${train} train turns`);
  }
});

test("bad params throw InputError naming the field", () => {
  assert.throws(() => resolveParams("mini-qrecc", { entities: 3 }), (e: unknown) => e instanceof InputError && e.field === "entities");
  assert.throws(() => resolveParams("mini-qrecc", { seed: -1 }), (e: unknown) => e instanceof InputError && e.field === "seed");
  assert.throws(() => generateWorld(resolveParams("mini-qrecc", { ...SMALL, scale: 10 })), (e: unknown) => e instanceof InputError && e.field === "scale");
});
