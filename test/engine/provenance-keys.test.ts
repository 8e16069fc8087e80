/**
 * Same key, same bytes for steps that write their producers' keys (provenance links): with
 * `provenanceKeys` those keys are in their key, so a producer re-keyed with identical bytes reruns
 * them (and only them: early cutoff still holds for the others); without it, reading a producer
 * key fails instead of writing bytes the key does not hold.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { project, registry, run, tempDir } from "./helpers.ts";

const dir = tempDir();
const src = join(dir, "steps.ts");
writeFileSync(src, "export const x = 1;\n");

const make = defineStep({
  id: "make-text",
  version: 1,
  source: src,
  // `note` changes the key, not the bytes.
  params: z.object({ note: z.string() }).strict(),
  inputs: {},
  outputs: { text: file("text:plain", "text.txt") },
  runtime: { type: "in-process", run: async (ctx) => writeFileSync(ctx.outputs.text, "same bytes") },
});

const cite = (provenanceKeys: boolean, id: string) =>
  defineStep({
    id,
    version: 1,
    source: src,
    params: z.object({}).strict(),
    inputs: { text: "text:plain" },
    outputs: { cited: file("text:plain", "cited.txt") },
    ...(provenanceKeys ? { provenanceKeys: true } : {}),
    runtime: { type: "in-process", run: async (ctx) => writeFileSync(ctx.outputs.cited, `${readFileSync(ctx.inputs.text, "utf8")} from ${ctx.inputKeys.text.key}`) },
  });

const copy = defineStep({
  id: "copy-text",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: { text: "text:plain" },
  outputs: { copy: file("text:plain", "copy.txt") },
  runtime: { type: "in-process", run: async (ctx) => writeFileSync(ctx.outputs.copy, `${readFileSync(ctx.inputs.text, "utf8")} (${ctx.inputKeys.text.stepId})`) },
});

const graph = (note: string, citer = cite(true, "cite-text")) => {
  const m = use(make, { name: "make", params: { note }, inputs: {} });
  return [use(citer, { name: "cite", inputs: { text: m.out.text } }), use(copy, { name: "copy", inputs: { text: m.out.text } })];
};

test("a step that writes its producer's key reruns when the producer re-keys with identical bytes; one that does not stays cached", async () => {
  const p = project(registry({ a: () => graph("a"), b: () => graph("b") }));
  const first = await run(p, ["a"]);
  assert.deepEqual(first.executed, ["cite", "copy", "make"]);
  const second = await run(p, ["b"]);
  assert.deepEqual(second.executed, ["cite", "make"], "make re-keyed with the same bytes: cite reruns, copy (stepId only) is a cache hit");
  assert.deepEqual(second.hits, ["copy"]);
  const r = "result" in second.outcome ? second.outcome.result : undefined;
  const makeKey = r!.results.get("make")!.key!;
  const cited = readFileSync(p.store.outputPath(r!.results.get("cite")!.entry!, "cited"), "utf8");
  assert.equal(cited, `same bytes from ${makeKey}`, "the cited key is the one in the entry's own key");
  assert.equal(readFileSync(p.store.outputPath(r!.results.get("copy")!.entry!, "copy"), "utf8"), "same bytes (make-text)");
  const again = await run(p, ["a"]);
  assert.deepEqual(again.executed, [], "both producers' entries and both citing entries are cached");
});

test("reading a producer key without provenanceKeys fails naming the step and the declaration", async () => {
  const p = project(registry({ t: () => graph("t", cite(false, "cite-undeclared")) }));
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, false);
  const failed = r.events.find((e) => e.type === "failed") as { failure: { step: string; message?: string } } | undefined;
  assert.equal(failed?.failure.step, "cite");
  assert.match(JSON.stringify(failed), /cite-undeclared reads the producer key of input 'text' without declaring provenanceKeys: true/);
});
