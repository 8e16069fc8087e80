/**
 * Content is the truth: a cached output whose bytes no longer match the digest recorded
 * when it was published (a flipped byte, a truncation, a deleted file) is never read by a
 * consumer or exported. The entry is moved aside into `damaged/` and recomputed; unchanged
 * files are checked by their stat stamp, not re-hashed; `--verify` re-hashes the closure.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import type { Entry } from "../../pipeline/engine/store.ts";
import { hashStats } from "../../pipeline/engine/stamps.ts";
import { project, registry, run, tempDir } from "./helpers.ts";

const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const steps = 1;\n");

const make = defineStep({
  id: "make-metrics",
  version: 1,
  source: src,
  params: z.object({ mrr: z.number() }).strict(),
  inputs: {},
  outputs: { metrics: file("json:metrics", "metrics.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(ctx.outputs.metrics, JSON.stringify({ mrr: ctx.params.mrr }));
    },
  },
});

/** A consumer that copies the MRR it reads into a table: what the wrong number went through. */
function tableStep(id: string) {
  return defineStep({
    id,
    version: 1,
    source: src,
    params: z.object({}).strict(),
    inputs: { metrics: "json:metrics" },
    outputs: { table: file("text:table", "table.md") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const m = JSON.parse(readFileSync(ctx.inputs.metrics, "utf8")) as { mrr: number };
        writeFileSync(ctx.outputs.table, `| MRR | ${m.mrr.toFixed(3)} |\n`);
      },
    },
  });
}
const tableA = tableStep("render-table-a");
const tableB = tableStep("render-table-b");

function targets() {
  const m = () => use(make, { name: "metrics", params: { mrr: 0.547 }, inputs: {} });
  return registry({
    a: () => [use(tableA, { name: "table-a", inputs: { metrics: m().out.metrics } })],
    b: () => [use(tableB, { name: "table-b", inputs: { metrics: m().out.metrics } })],
  });
}

function entryOf(r: Awaited<ReturnType<typeof run>>, step: string): Entry {
  const res = "result" in r.outcome ? r.outcome.result : undefined;
  const e = res?.results.get(step)?.entry;
  assert.ok(e, `${step} has an entry`);
  return e;
}

const damages: Record<string, (path: string) => void> = {
  "a flipped byte": (p) => {
    const b = readFileSync(p);
    b[9] = b[9] === 0x35 ? 0x39 : 0x35; // 0.547 -> 0.947 (same size)
    const s = statSync(p);
    writeFileSync(p, b);
    utimesSync(p, s.atime, s.mtime); // even with the old mtime restored
  },
  "a truncation": (p) => truncateSync(p, 5),
  "a deleted file": (p) => rmSync(p),
};

for (const [what, damage] of Object.entries(damages)) {
  test(`${what} in a cached upstream output: a new consumer never reads it; the producer is moved aside and recomputed`, async () => {
    const p = project(targets());
    const first = await run(p, ["a"]);
    assert.equal(first.outcome.ok, true);
    const metrics = entryOf(first, "metrics");
    damage(p.store.outputPath(metrics, "metrics"));

    const second = await run(p, ["b"]);
    assert.equal(second.outcome.ok, true);
    assert.deepEqual(second.executed, ["metrics", "table-b"]);
    assert.deepEqual(second.events.filter((e) => e.type === "tampered").map((e) => (e as { step: string }).step), ["metrics"]);
    assert.equal(readFileSync(p.store.outputPath(entryOf(second, "table-b"), "table"), "utf8"), "| MRR | 0.547 |\n");
    // Moved aside, not silently deleted.
    const damaged = readdirSync(join(p.store.root, "damaged", "make-metrics"));
    assert.equal(damaged.length, 1);
    assert.ok(damaged[0]!.startsWith(metrics.key));
  });
}

test("a plain rerun checks the entries it resolves: a damaged producer is recomputed, identical bytes keep its consumer cached", async () => {
  const p = project(targets());
  const first = await run(p, ["a"]);
  damages["a flipped byte"]!(p.store.outputPath(entryOf(first, "metrics"), "metrics"));
  const again = await run(p, ["a"]);
  assert.equal(again.outcome.ok, true);
  assert.deepEqual(again.executed, ["metrics"]);
  assert.deepEqual(again.hits, ["table-a"]);
});

test("a damaged sink is recomputed before it is exported or reported as cached", async () => {
  const p = project(targets());
  const first = await run(p, ["a"]);
  writeFileSync(p.store.outputPath(entryOf(first, "table-a"), "table"), "| MRR | 0.947 |\n");
  const again = await run(p, ["a"]);
  assert.deepEqual(again.executed, ["table-a"]);
  assert.equal(readFileSync(p.store.outputPath(entryOf(again, "table-a"), "table"), "utf8"), "| MRR | 0.547 |\n");
});

test("unchanged outputs are checked by their stat stamp, not re-hashed; --verify re-hashes the whole closure", async () => {
  const p = project(targets());
  await run(p, ["a"]);
  // The stamps recorded at publish are too close to the files' own times to be trusted
  // (a write in the same clock tick would not show): the first check re-hashes once.
  await run(p, ["a"]);
  const before = hashStats().files;
  const plain = await run(p, ["a"]);
  assert.deepEqual(plain.hits, ["metrics", "table-a"]);
  assert.equal(hashStats().files - before, 0, "no file re-hashed on a no-op rerun");
  const verified = await run(p, ["a"], { verify: true });
  assert.deepEqual(verified.hits, ["metrics", "table-a"]);
  assert.ok(hashStats().files - before >= 2, "--verify re-hashed both entries");
});

test("a stamp cache that disagrees with the manifest is checked against the bytes: no false alarm", async () => {
  const p = project(targets());
  const first = await run(p, ["a"]);
  const metrics = entryOf(first, "metrics");
  const stampFile = join(p.store.root, "stamps", `${metrics.key}.json`);
  assert.ok(existsSync(stampFile), "stamps are recorded beside the store, not inside the entry");
  // Corrupt the stamp cache: it now claims other bytes than the manifest records.
  const path = p.store.outputPath(metrics, "metrics");
  const stamps = JSON.parse(readFileSync(stampFile, "utf8")) as { files: Record<string, { digest: string }> };
  for (const s of Object.values(stamps.files)) s.digest = "0".repeat(64);
  writeFileSync(stampFile, JSON.stringify(stamps));
  assert.ok(statSync(path).size > 0);
  const again = await run(p, ["a"]);
  assert.deepEqual(again.executed, [], "the bytes themselves are intact");
  assert.deepEqual(again.events.filter((e) => e.type === "tampered"), []);
});
