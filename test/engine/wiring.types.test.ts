/**
 * Type tests: wrong wiring must not compile. `tsc --noEmit` (npm run typecheck, run in CI)
 * fails if any `@ts-expect-error` below stops being an error, so these cannot pass vacuously.
 * The runtime test checks that the correctly wired graph analyses cleanly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { defineStep, dir, file, list, optional, record, use } from "../../pipeline/engine/step.ts";
import { analyze } from "../../pipeline/engine/graph.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";

const noop = { type: "in-process" as const, async run() {} };

const preprocess = defineStep({
  id: "preprocess",
  version: 1,
  source: import.meta.url,
  params: z.object({ dataset: z.string() }),
  inputs: {},
  outputs: { turns: file("parquet:turns", "turns.parquet"), passages: file("parquet:passages", "passages.parquet") },
  runtime: noop,
});

const buildIndex = defineStep({
  id: "build-bm25-index",
  version: 1,
  source: import.meta.url,
  params: z.object({ k1: z.number().default(0.9) }),
  inputs: { passages: "parquet:passages" },
  outputs: { index: dir("bm25-index", "index") },
  runtime: noop,
});

const search = defineStep({
  id: "search-bm25",
  version: 1,
  source: import.meta.url,
  params: z.object({ k: z.number().int() }),
  inputs: { index: "bm25-index", turns: "parquet:turns" },
  outputs: { run: file("parquet:run", "run.parquet") },
  runtime: noop,
});

test("correct wiring compiles and analyses cleanly", () => {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  const index = use(buildIndex, { params: {}, inputs: { passages: prep.out.passages } });
  const s = use(search, { params: { k: 100 }, inputs: { index: index.out.index, turns: prep.out.turns } });
  const r = analyze([s], { version: 1, entries: {} });
  assert.ok(r.ok);
  assert.deepEqual(r.graph.order.map((x) => x.name), ["preprocess", "build-bm25-index", "search-bm25"]);
});

export function wrongWiringDoesNotCompile(): void {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  const index = use(buildIndex, { params: {}, inputs: { passages: prep.out.passages } });

  // A parquet:turns output cannot feed an input that expects a bm25-index.
  // @ts-expect-error kind mismatch
  use(search, { params: { k: 1 }, inputs: { index: prep.out.turns, turns: prep.out.turns } });

  // Every declared input must be wired.
  // @ts-expect-error missing input 'turns'
  use(search, { params: { k: 1 }, inputs: { index: index.out.index } });

  // Outputs that a step does not declare do not exist on `.out`.
  // @ts-expect-error unknown output
  use(search, { params: { k: 1 }, inputs: { index: index.out.nothing, turns: prep.out.turns } });

  // Params are typed by the step's schema input type.
  // @ts-expect-error k must be a number
  use(search, { params: { k: "100" }, inputs: { index: index.out.index, turns: prep.out.turns } });

  defineStep({
    id: "bad-runtime",
    version: 1,
    source: import.meta.url,
    params: z.object({ n: z.number() }),
    inputs: { turns: "parquet:turns" },
    outputs: { out: file("json:x", "x.json") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        // @ts-expect-error inputs are keyed by the declared names
        void ctx.inputs.passages;
        // @ts-expect-error params are typed: n is a number
        ctx.params.n.toUpperCase();
      },
    },
  });
}

/** A def a factory stamps with its arguments (def-identity.ts) is wired and typed like any other. */
const searchWith = (k: number) =>
  defineStepWith({ k }, {
    id: "search-bm25-k",
    version: 1,
    source: import.meta.url,
    params: z.object({}),
    inputs: { index: "bm25-index", turns: "parquet:turns" },
    outputs: { run: file("parquet:run", "run.parquet") },
    runtime: noop,
  });

test("a stamped factory def wires and analyses like a plain one", () => {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  const index = use(buildIndex, { params: {}, inputs: { passages: prep.out.passages } });
  const s = use(searchWith(10), { inputs: { index: index.out.index, turns: prep.out.turns } });
  const r = analyze([s, use(searchWith(10), { inputs: { index: index.out.index, turns: prep.out.turns } })], { version: 1, entries: {} });
  assert.ok(r.ok);
  assert.deepEqual(r.graph.order.map((x) => x.name), ["preprocess", "build-bm25-index", "search-bm25-k"]);
});

export function wrongFactoryDefsDoNotCompile(): void {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  // @ts-expect-error kind mismatch through a stamped def
  use(searchWith(1), { inputs: { index: prep.out.turns, turns: prep.out.turns } });
  // A factory's arguments are plain data (canonical JSON): a function cannot be one.
  // @ts-expect-error args must be Json
  defineStepWith({ f: () => 1 }, { id: "x", version: 1, source: import.meta.url, params: z.object({}), inputs: {}, outputs: {}, runtime: noop });
  // Nor can undefined (a factory writes its arguments after defaults: `{ gpuRequired }`, never a missing one).
  // @ts-expect-error args must be Json
  defineStepWith(undefined, { id: "x", version: 1, source: import.meta.url, params: z.object({}), inputs: {}, outputs: {}, runtime: noop });
}

/** List, record and optional slots: wired with an array, a record, or nothing; each element's kind is checked. */
const merge = defineStep({
  id: "merge-runs",
  version: 1,
  source: import.meta.url,
  params: z.object({}),
  inputs: { runs: list("parquet:run"), turns: record("parquet:turns"), index: optional("bm25-index") },
  outputs: { run: file("parquet:run", "run.parquet") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const first: string | undefined = ctx.inputs.runs[0];
      const byName: string | undefined = ctx.inputs.turns.qrecc;
      const key: string | undefined = ctx.inputKeys.runs[0]?.key;
      void [first, byName, key];
      // @ts-expect-error a list input is an array of paths, not one path
      ctx.inputs.runs.endsWith(".parquet");
      // @ts-expect-error an optional input may be absent
      ctx.inputs.index.endsWith("index");
    },
  },
});

test("list, record and optional slots wire and analyse; the optional one may be left out", () => {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  const index = use(buildIndex, { params: {}, inputs: { passages: prep.out.passages } });
  const s = use(search, { params: { k: 1 }, inputs: { index: index.out.index, turns: prep.out.turns } });
  const with_ = use(merge, { name: "with", inputs: { runs: [s.out.run, s.out.run], turns: { qrecc: prep.out.turns }, index: index.out.index } });
  const without = use(merge, { name: "without", inputs: { runs: [], turns: {} } });
  const r = analyze([with_, without], { version: 1, entries: {} });
  assert.ok(r.ok);
  assert.deepEqual(r.graph.order.map((x) => x.name), ["preprocess", "build-bm25-index", "search-bm25", "with", "without"]);
});

export function wrongSlotWiringDoesNotCompile(): void {
  const prep = use(preprocess, { params: { dataset: "mini-qrecc" }, inputs: {} });
  const index = use(buildIndex, { params: {}, inputs: { passages: prep.out.passages } });
  const s = use(search, { params: { k: 1 }, inputs: { index: index.out.index, turns: prep.out.turns } });
  // @ts-expect-error a parquet:turns output inside a list of parquet:run
  use(merge, { inputs: { runs: [s.out.run, prep.out.turns], turns: {} } });
  // @ts-expect-error a parquet:passages output inside a record of parquet:turns
  use(merge, { inputs: { runs: [], turns: { qrecc: prep.out.passages } } });
  // @ts-expect-error one output where a list is expected
  use(merge, { inputs: { runs: s.out.run, turns: {} } });
  // @ts-expect-error a list input must be wired (an empty one is `[]`)
  use(merge, { inputs: { turns: {} } });
  // @ts-expect-error an optional input still checks its kind
  use(merge, { inputs: { runs: [], turns: {}, index: prep.out.turns } });
}
