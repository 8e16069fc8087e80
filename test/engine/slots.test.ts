/**
 * List, record and optional inputs (step.ts slots, wiring.ts): what a body sees, what enters a
 * key (a list's elements by position, a record's by name, an optional one only when wired),
 * what `explain` says about a changed element, and the analysis failures of a wrong wiring.
 * Steps are defined inline with sources in a temp dir, so only the tests change their keys.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { z } from "zod";
import { defineStep, file, list, optional, record, use, type AnyStep, type OutputRef } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { slotValues, wiredInputs } from "../../pipeline/engine/wiring.ts";
import { explainStep, planTargets } from "../../pipeline/session.ts";
import { project, registry, run, makeTextStep } from "./helpers.ts";

const { src, make } = makeTextStep();

const gather = defineStep({
  id: "gather-texts",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: { parts: list("text:plain"), named: record("text:plain"), extra: optional("text:plain") },
  outputs: { out: file("json:gathered", "gathered.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const read = (p: string) => readFileSync(p, "utf8");
      const gathered = {
        parts: ctx.inputs.parts.map(read),
        named: Object.fromEntries(Object.entries(ctx.inputs.named).map(([n, p]) => [n, read(p)])),
        extra: ctx.inputs.extra === undefined ? null : read(ctx.inputs.extra),
        producers: ctx.inputKeys.parts.map((k) => `${k.stepId}:${k.kind}`),
      };
      writeFileSync(ctx.outputs.out, JSON.stringify(gathered));
    },
  },
});

const texts = (...t: string[]): OutputRef<"text:plain">[] => t.map((text) => use(make, { name: `make-${text}`, params: { text }, inputs: {} }).out.text);

/** `gather` over `parts`, `named` (name -> text) and, when given, `extra`. */
function gathering(parts: string[], named: [string, string][], extra?: string): AnyStep[] {
  const refs = { parts: texts(...parts), named: Object.fromEntries(named.map(([n, t]) => [n, texts(t)[0]!])) };
  return [use(gather, { name: "gather", inputs: extra === undefined ? refs : { ...refs, extra: texts(extra)[0]! } })];
}

test("elements: a list's in its order, a record's by name, an optional one only when wired; the body gets the slots' shapes", async () => {
  const [g] = gathering(["b", "a"], [["y", "c"], ["x", "a"]]);
  assert.deepEqual(wiredInputs(g!).map((w) => `${w.name}<-${w.ref.step.name}`), ["named[x]<-make-a", "named[y]<-make-c", "parts[0]<-make-b", "parts[1]<-make-a"]);
  assert.deepEqual(slotValues(gather.inputs, { "parts[1]": "p1", "parts[0]": "p0", "named[y]": "y" }), { parts: ["p0", "p1"], named: { y: "y" } });
  const p = project(registry({ t: () => gathering(["b", "a"], [["y", "c"], ["x", "a"]]) }));
  const r = await run(p, ["t"]);
  assert.equal(r.outcome.ok, true);
  const entry = ("result" in r.outcome ? r.outcome.result : undefined)!.results.get("gather")!.entry!;
  assert.deepEqual(JSON.parse(readFileSync(p.store.outputPath(entry, "out"), "utf8")), { parts: ["b", "a"], named: { x: "a", y: "c" }, extra: null, producers: ["make-text:text:plain", "make-text:text:plain"] });
});

test("keys: list order and record names enter the key, a record's written order does not; absent and present optional differ", async () => {
  const variants = {
    base: () => gathering(["a", "b"], [["x", "c"], ["y", "a"]]),
    swapped: () => gathering(["b", "a"], [["x", "c"], ["y", "a"]]),
    reordered: () => gathering(["a", "b"], [["y", "a"], ["x", "c"]]),
    renamed: () => gathering(["a", "b"], [["x", "c"], ["z", "a"]]),
    extra: () => gathering(["a", "b"], [["x", "c"], ["y", "a"]], "c"),
  };
  const p = project(registry(variants));
  await run(p, ["extra"], { only: "make-c" });
  await run(p, ["base"], { only: "make-a" });
  await run(p, ["base"], { only: "make-b" });
  const row = async (t: string) => {
    const plan = await planTargets(p, [t]);
    assert.ok(plan.ok);
    return plan.rows.find((r) => r.step === "gather")!;
  };
  const base = await row("base");
  assert.deepEqual(Object.keys(base.fingerprint!.inputs), ["named[x]", "named[y]", "parts[0]", "parts[1]"]);
  assert.equal(base.fingerprint!.inputs["parts[0]"]!.digest, base.fingerprint!.inputs["named[y]"]!.digest, "both are make-a's bytes");
  assert.equal((await row("reordered")).key, base.key);
  const keys = new Set([base.key, (await row("swapped")).key, (await row("renamed")).key, (await row("extra")).key]);
  assert.equal(keys.size, 4);
  assert.deepEqual(Object.keys((await row("extra")).fingerprint!.inputs), ["extra", "named[x]", "named[y]", "parts[0]", "parts[1]"]);
});

test("explain names the list element whose bytes changed", async () => {
  const p = project(registry({ t: () => gathering(["a", "b"], []), t2: () => gathering(["a", "B"], []) }));
  await run(p, ["t"]);
  await run(p, ["t2"], { only: "make-B" });
  const ex = await explainStep(p, "gather", ["t2"]);
  assert.ok(ex.ok);
  assert.equal(ex.explanation.reasons.length, 1);
  assert.match(ex.explanation.reasons[0]!, /^input parts\[1\] changed digest \([0-9a-f]{12} -> [0-9a-f]{12}\)$/);
});

test("analysis: a missing list, a value of the wrong shape, a wrong kind inside a list, a program's argv naming a list", () => {
  const [a, b] = texts("a", "b");
  const wrongKind = use(defineStep({ id: "make-json", version: 1, source: src, params: z.object({}), inputs: {}, outputs: { out: file("json:gathered", "x.json") }, runtime: make.runtime as never }), { inputs: {} }).out.out;
  const failures = (inputs: unknown) => {
    const r = analyze([use(gather, { name: "gather", inputs: inputs as never })], { version: 1, entries: {} });
    return r.ok ? [] : r.failures;
  };
  assert.deepEqual(failures({ named: {} }), [{ reason: "missing-input", step: "gather", input: "parts" }]);
  assert.deepEqual(failures({ parts: a, named: {} }), [{ reason: "wrong-wiring", step: "gather", input: "parts", detail: "expects an array of outputs" }]);
  assert.deepEqual(failures({ parts: [a, "b"], named: [b] }), [
    { reason: "wrong-wiring", step: "gather", input: "named", detail: "expects a record of outputs" },
    { reason: "wrong-wiring", step: "gather", input: "parts[1]", detail: "is not an output" },
  ]);
  assert.deepEqual(failures({ parts: [a, wrongKind], named: { x: b } }), [{ reason: "kind-mismatch", step: "gather", input: "parts[1]", expected: "text:plain", actual: "json:gathered" }]);
  const program = defineStep({
    id: "cat-texts",
    version: 1,
    source: src,
    params: z.object({}),
    inputs: { parts: list("text:plain") },
    outputs: { out: file("text:plain", "out.txt") },
    runtime: { type: "container", image: `x@sha256:${"0".repeat(64)}`, argv: ["cat", "{in:parts}"] },
  });
  const r = analyze([use(program, { inputs: { parts: [a!] } })], { version: 1, entries: {} });
  assert.deepEqual(r.ok ? [] : r.failures, [{ reason: "invalid-source", step: "cat-texts", detail: "argv uses {in:parts}, a list input: a program's argv names plain inputs only" }]);
});
