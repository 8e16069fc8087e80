/**
 * analyze() merges a step built twice under one name when both builds are the same (equal def
 * records, even of two def objects; params and wiring, producers compared by identity) and
 * refuses two different steps under one name. Identities are hashed only for names met twice; these tests pin the rule itself.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineStep, file, use } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { defIdentity, defineStepWith, defRecord, sameDef } from "../../pipeline/engine/def-identity.ts";

const EMPTY_LOCK = { version: 1 as const, entries: {} };

const seed = defineStep({
  id: "seed-text",
  version: 1,
  source: import.meta.url,
  params: z.object({ text: z.string() }).strict(),
  inputs: {},
  outputs: { out: file("text:plain", "out.txt") },
  runtime: { type: "in-process", async run() {} },
});
const copy = defineStep({
  id: "copy-text",
  version: 1,
  source: import.meta.url,
  params: z.object({}).strict(),
  inputs: { text: "text:plain" },
  outputs: { out: file("text:plain", "out.txt") },
  runtime: { type: "in-process", async run() {} },
});

const chain = (text: string, copyName = "copy") => use(copy, { name: copyName, inputs: { text: use(seed, { name: "seed", params: { text }, inputs: {} }).out.out } });

test("the same chain built twice is merged into one graph of two steps", () => {
  const a = analyze([chain("x"), chain("x")], EMPTY_LOCK);
  assert.ok(a.ok);
  assert.deepEqual(a.graph.order.map((s) => s.name), ["seed", "copy"]);
});

test("two different steps under one name are refused, also when only a producer differs", () => {
  const a = analyze([chain("x"), chain("y")], EMPTY_LOCK);
  assert.ok(!a.ok);
  assert.deepEqual(a.failures, [{ reason: "duplicate-step-name", step: "seed" }, { reason: "duplicate-step-name", step: "copy" }]);
});

test("producers are compared by structure, not by name: the same step under two names feeds one merged consumer", () => {
  const renamed = use(seed, { name: "seed-2", params: { text: "x" }, inputs: {} });
  const b = analyze([chain("x"), use(copy, { name: "copy", inputs: { text: renamed.out.out } })], EMPTY_LOCK);
  assert.ok(b.ok);
  assert.deepEqual(b.graph.order.map((s) => s.name), ["seed", "copy", "seed-2"]);
});

test("a graph without repeated names keeps every step", () => {
  const a = analyze([chain("x", "copy-a"), use(copy, { name: "copy-b", inputs: { text: use(seed, { name: "seed", params: { text: "x" }, inputs: {} }).out.out } })], EMPTY_LOCK);
  assert.ok(a.ok);
  assert.deepEqual(a.graph.order.map((s) => s.name), ["seed", "copy-a", "copy-b"]);
});

// A factory that builds a fresh def on every call, as the steps' `xxxDef(...)` factories do: its
// argument changes only a closure, so only the stamped arguments tell two of its defs apart.
const suffixDef = (suffix: string) =>
  defineStepWith({ suffix }, {
    id: "suffix-text",
    version: 1,
    source: import.meta.url,
    params: z.object({}).strict(),
    inputs: { text: "text:plain" },
    outputs: { out: file("text:plain", "out.txt") },
    runtime: { type: "in-process", async run() { void suffix; } },
  });
const suffixed = (suffix: string) => use(suffixDef(suffix), { name: "suffix", inputs: { text: chain("x").out.out } });

test("steps from two def objects of one factory with equal arguments merge into one node", () => {
  assert.notEqual(suffixDef("!"), suffixDef("!"));
  assert.ok(sameDef(suffixDef("!"), suffixDef("!")));
  const a = analyze([suffixed("!"), suffixed("!")], EMPTY_LOCK);
  assert.ok(a.ok);
  assert.deepEqual(a.graph.order.map((s) => s.name), ["seed", "copy", "suffix"]);
});

test("a factory's arguments are in its defs' identity: defs that differ only in a closure never merge", () => {
  assert.deepEqual(defRecord(suffixDef("?")), { ...(defRecord(suffixDef("!")) as object), args: { suffix: "?" } });
  const a = analyze([suffixed("!"), suffixed("?")], EMPTY_LOCK);
  assert.ok(!a.ok);
  assert.deepEqual(a.failures, [{ reason: "duplicate-step-name", step: "suffix" }]);
});

test("defs that differ as data never merge, stamped or not: a GPU request, an input", () => {
  const gpuDef = (required: boolean) =>
    defineStep({
      id: "train-text",
      version: 1,
      source: import.meta.url,
      params: z.object({}).strict(),
      inputs: { text: "text:plain" },
      outputs: { out: file("text:plain", "out.txt") },
      runtime: { type: "container", image: `x@sha256:${"0".repeat(64)}`, argv: ["train"], gpu: { count: 1, required } },
    });
  const train = (required: boolean) => use(gpuDef(required), { name: "train", inputs: { text: chain("x").out.out } });
  assert.ok(analyze([train(true), train(true)], EMPTY_LOCK).ok);
  assert.deepEqual(analyze([train(true), train(false)], EMPTY_LOCK), { ok: false, failures: [{ reason: "duplicate-step-name", step: "train" }] });
  assert.notEqual(defIdentity(copy), defIdentity({ ...copy, inputs: { text: "text:other" } }));
});
