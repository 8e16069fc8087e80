/** bench/engine/noop.ts: a command's phase marks become phase times (pure arithmetic, exact numbers). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { phaseTimes } from "../../bench/engine/noop.ts";

test("phases run from mark to mark; 'start' up to the first, 'outside' beyond the last", () => {
  const marks = [
    { name: "launcher-start", atMs: 50, cpuMs: 40 },
    { name: "launcher", atMs: 60, cpuMs: 48 },
    { name: "engine", atMs: 260, cpuMs: 200 },
    { name: "exit", atMs: 270, cpuMs: 205 },
  ];
  assert.deepEqual(phaseTimes({ marks, fingerprintMs: 12 }, 300), [
    { phase: "start", wallMs: 50, cpuMs: 40 },
    { phase: "launcher", wallMs: 10, cpuMs: 8 },
    { phase: "engine", wallMs: 200, cpuMs: 152 },
    { phase: "exit", wallMs: 10, cpuMs: 5 },
    { phase: "outside", wallMs: 30, cpuMs: Number.NaN },
  ]);
});
