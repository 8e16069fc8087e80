import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, use } from "../../pipeline/engine/step.ts";
import { describeFailure, type RunFailure } from "../../pipeline/engine/failures.ts";
import { project, registry, run, tempDir } from "./helpers.ts";

/** A step that declares a file `a.txt` and a directory `b`, and writes `b` as a file instead. */
function wrongShapeStep() {
  const src = join(tempDir(), "steps.ts");
  writeFileSync(src, "export const steps = 1;\n");
  return defineStep({
    id: "write-wrong-shape",
    version: 1,
    source: src,
    params: z.object({}).strict(),
    inputs: {},
    outputs: { a: file("text:plain", "a.txt"), b: dir("text:dir", "b") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        writeFileSync(ctx.outputs.a, "a");
        // The engine made the directory; the step puts a file in its place.
        rmSync(ctx.outputs.b, { recursive: true });
        writeFileSync(ctx.outputs.b, "not a directory");
      },
    },
  });
}

test("a declared output the step did not produce fails the step, naming it, and publishes nothing", async () => {
  const step = use(wrongShapeStep(), { name: "wrong", params: {}, inputs: {} });
  const p = project(registry({ t: () => [step] }));
  const { outcome, events } = await run(p, ["t"]);
  assert.equal(outcome.ok, false);
  const failed = events.flatMap((e) => (e.type === "failed" ? [e.failure] : [])) as RunFailure[];
  assert.equal(failed.length, 1);
  const f = failed[0]!;
  assert.ok(f.reason === "missing-output");
  assert.deepEqual({ step: f.step, output: f.output, expected: f.expected }, { step: "wrong", output: "b", expected: "directory b" });
  assert.equal(describeFailure(f), `wrong: did not produce output 'b' (expected directory b); log: ${f.log}`);
  const log = readFileSync(f.log, "utf8").split("\n");
  assert.equal(log.at(-2), "# failed: missing-output");
  assert.deepEqual(await p.store.entries(), []);
  const staging = join(p.store.root, "staging");
  assert.deepEqual(existsSync(staging) ? readdirSync(staging) : [], []);
});
