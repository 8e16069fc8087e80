/**
 * Helpers of the graph-wiring tests (nothing runs): analyze a target's steps against the
 * project's datasets.lock, and follow a step's input back to the step that produces it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze, type Graph } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { wiredInput, wiredInputs } from "../../pipeline/engine/wiring.ts";

export const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));

/** The analyzed graph of `steps` (and their producers); fails the test with the first analysis failures. */
export function graphOf(steps: readonly AnyStep[]): Graph {
  const a = analyze(steps, lock);
  assert.ok(a.ok, a.ok ? "" : JSON.stringify(a.failures.slice(0, 5)));
  return a.graph;
}

/** The step whose output `s` reads as `input` (an element of a list or record input: `shards[0]`, `metrics[dpr]`); fails the test when `s` has no such input. */
export function producer(s: AnyStep, input: string): AnyStep {
  const w = wiredInput(s, input);
  assert.ok(w, `${s.name} has no input ${input}`);
  return w.ref.step;
}

/** The element names of `s`'s inputs within slot `slot` (`metrics[dpr]` -> `dpr`; a plain slot: its own name). */
export function inputsIn(s: AnyStep, slot: string): string[] {
  return wiredInputs(s)
    .filter((w) => w.slot === slot)
    .map((w) => (w.name === slot ? slot : w.name.slice(slot.length + 1, -1)));
}
