/**
 * Table 5's graphs keep their steps (nothing runs): the step names of `table5` and `table5-smoke`
 * on mini, and what enters each step's key besides source bytes and data (definition id and
 * version, params, and each input's producer step and output), are those of commit c8504f7,
 * before the QA stage's retrievers became records (issue 30). Equal structure means equal keys:
 * a store filled before that change stays cached.
 *
 * How the numbers were computed: this file was committed unchanged on c8504f7's code (commit
 * "test: Table 5's step names and key structure ...", the first on branch qaret) and passed there.
 * An edit that changes the graph on purpose (a setup value, a new row) changes them: check that
 * the difference is that edit's, then replace the numbers with the ones the failure prints.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { canonicalJson } from "../../pipeline/engine/canonical.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { graphOf } from "./graph-helpers.ts";

/** One line per step: its name, and the structure its key is made of (not the bytes of its inputs). */
function structure(s: AnyStep): string {
  const inputs = wiredInputs(s).map((w) => [w.name, w.ref.step.name, w.ref.output]);
  return canonicalJson({ name: s.name, def: [s.def.id, s.def.version], params: s.params as never, inputs: inputs as never });
}

const sha = (lines: readonly string[]): string => createHash("sha256").update([...lines].sort().join("\n")).digest("hex");

function shapeOf(target: string): { steps: number; names: string; structure: string } {
  const order = graphOf(buildTargets().get(target)!.steps({ data: "mini" })).order;
  return { steps: order.length, names: sha(order.map((s) => s.name)), structure: sha(order.map(structure)) };
}

const AT_C8504F7: Readonly<Record<string, ReturnType<typeof shapeOf>>> = {
  table5: { steps: 417, names: "325d20a25b41c874d797b4d4338fa41f1ab930c0da978457d8321f42eae32a1e", structure: "0eb14a092d593901be400bc3081b297111419b0c520aede975d12fd13b68527b" },
  "table5-smoke": { steps: 175, names: "71a0476698c9532e9e8f21a329c34e92b9e132fe91ff94a279dd28170fbe036a", structure: "897f50306bf4782121e588430b2049c2f27908b4e8e2978a0e012c92e2777940" },
};

for (const [target, want] of Object.entries(AT_C8504F7)) {
  test(`${target} on mini has c8504f7's step names and key structure`, () => {
    const got = shapeOf(target);
    assert.deepEqual(got, want, `${target} now: ${JSON.stringify(got)}`);
  });
}
