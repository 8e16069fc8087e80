/**
 * Overall run progress (pipeline/reporters/overall.ts): counts, the time-left estimate that
 * replays the scheduler on what is left, the sink wrapper that adds `overall` and `metrics`
 * events, and how the plain and TTY reporters print them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { EngineEvent } from "../../pipeline/engine/events.ts";
import { RunProgress, metricsLine, parseEpochLine, withRunProgress } from "../../pipeline/reporters/overall.ts";
import { plainReporter } from "../../pipeline/reporters/plain.ts";
import { renderBar, renderOverall } from "../../pipeline/reporters/tty.ts";

const K = "k".repeat(64);
/** a (10 s), b (20 s), c (5 s, after a), d (1 s, after b and c). */
const plan = (concurrency: number, statusA: "run" | "cached" = "run"): EngineEvent => ({
  type: "plan",
  concurrency,
  steps: [
    { step: "a", status: statusA, expectedSeconds: 10, after: [] },
    { step: "b", status: "run", expectedSeconds: 20, after: [] },
    { step: "c", status: "pending", expectedSeconds: 5, after: ["a"] },
    { step: "d", status: "pending", expectedSeconds: 1, after: ["b", "c"] },
  ],
});

test("time left replays the scheduler: slots, longest chain first, cached steps free", () => {
  const eta = (e: EngineEvent) => {
    const p = new RunProgress(0);
    p.apply(e, 0);
    return p.eta(0);
  };
  // 2 slots: b (chain 21) and a (chain 16) start; a ends at 10, c 10..15; b ends at 20, d 20..21.
  assert.equal(eta(plan(2)), 21);
  // 1 slot: all the work in a row.
  assert.equal(eta(plan(1)), 36);
  // a already cached: c can start at once; b 0..20, c 0..5 on the second slot, d 20..21.
  assert.equal(eta(plan(2, "cached")), 21);
  assert.equal(eta(plan(1, "cached")), 26);
});

test("running steps finish at the rate of their progress lines, else as expected; counts follow the events", () => {
  const p = new RunProgress(0);
  p.apply(plan(2), 0);
  p.apply({ type: "started", step: "a", key: K, log: "l" }, 0);
  p.apply({ type: "started", step: "b", key: K, log: "l" }, 0);
  p.apply({ type: "progress", step: "a", done: 5, total: 10 }, 2000);
  // a: 2 s for half -> 2 s left; c 2..7. b: no progress -> 20 - 2 = 18 s left; d 18..19.
  assert.equal(p.eta(2000), 19);
  p.apply({ type: "succeeded", step: "a", key: K, seconds: 3, reused: false }, 3000);
  p.apply({ type: "cache-hit", step: "c", key: K }, 3000);
  assert.deepEqual(p.snapshot(3000), { done: 2, total: 4, cached: 1, executed: 1, failed: 0, running: 1, etaSeconds: 18, elapsedSeconds: 3 });
  p.apply({ type: "failed", failure: { reason: "step-threw", step: "b", message: "x", log: "l" } }, 4000);
  p.apply({ type: "failed", failure: { reason: "cancelled", step: "d" } }, 4000);
  const s = p.snapshot(4000);
  assert.deepEqual([s.done, s.failed, s.running, s.etaSeconds], [4, 1, 0, 0]);
});

test("the sink wrapper adds overall events (cache hits throttled) and metrics from EPOCH lines", () => {
  const seen: EngineEvent[] = [];
  let t = 0;
  const sink = withRunProgress((e) => seen.push(e), { now: () => t, cacheHitIntervalMs: 500 });
  sink(plan(2));
  sink({ type: "cache-hit", step: "a", key: K });
  t = 100;
  sink({ type: "cache-hit", step: "b", key: K });
  t = 700;
  sink({ type: "started", step: "c", key: K, log: "l" });
  sink({ type: "log", step: "c", line: 'EPOCH {"dev_queries": 300, "dev_recall_at_5": 0.451, "epoch": 2, "selectable": true, "train_loss": 0.41234}' });
  sink({ type: "log", step: "c", line: "EPOCH not json" });
  const types = seen.map((e) => (e.type === "overall" ? `overall:${e.trigger}:${e.done}/${e.total}` : e.type));
  assert.deepEqual(types, ["plan", "overall:plan:0/4", "cache-hit", "overall:cache-hit:1/4", "cache-hit", "started", "overall:started:2/4", "log", "metrics", "log"]);
  const m = seen.find((e) => e.type === "metrics");
  assert.deepEqual(m, { type: "metrics", step: "c", epoch: 2, values: { dev_queries: 300, dev_recall_at_5: 0.451, train_loss: 0.41234 } });
  assert.equal(metricsLine(m as Extract<EngineEvent, { type: "metrics" }>), "epoch 2: train loss 0.4123, dev R@5 45.1%");
  assert.equal(parseEpochLine("PROGRESS 1 2"), undefined);
});

test("plain lines: the plan, overall progress after each executed step, per-epoch metrics", () => {
  const lines: string[] = [];
  const sink = withRunProgress(plainReporter((l) => lines.push(l)), { now: () => 12_000 });
  sink(plan(2));
  sink({ type: "started", step: "a", key: K, log: "l" });
  sink({ type: "log", step: "a", line: 'EPOCH {"epoch": 1, "train_loss": 2.5, "dev_recall_at_5": 0.1}' });
  sink({ type: "succeeded", step: "a", key: K, seconds: 10, reused: false });
  assert.deepEqual(lines, [
    "plan      4 steps: 0 cached, 2 to run, 2 waiting on those",
    "overall   0/4 steps done (0 cached, 0 run), 0 running, 0:00 elapsed, eta 0:21",
    `run       a ${K.slice(0, 12)}`,
    "epoch     a epoch 1: train loss 2.5000, dev R@5 10.0%",
    `done      a ${K.slice(0, 12)} in 10.0 s`,
    "overall   1/4 steps done (0 cached, 1 run), 0 running, 0:00 elapsed, eta 0:21",
  ]);
});

test("TTY lines: the overall bar counts the ETA down between events; a training bar shows its metrics", () => {
  const o = { type: "overall", done: 2, total: 5, cached: 1, executed: 1, failed: 0, running: 1, etaSeconds: 30, elapsedSeconds: 12, trigger: "succeeded" } as const;
  assert.equal(renderOverall(o, 1000, 100, 1000), "[====      ] 2/5 steps done (1 cached, 1 run), 1 running, 0:12 elapsed, eta 0:30");
  assert.equal(renderOverall(o, 1000, 100, 11_000), "[====      ] 2/5 steps done (1 cached, 1 run), 1 running, 0:22 elapsed, eta 0:20");
  assert.equal(renderBar("train", { started: 0, done: 5, total: 10, metrics: "epoch 1: train loss 2.5000" }, 60, 5000), "  train [########-------] 5/10 50% eta 0:05 · epoch 1: train loss 2.5000");
});

test("throttled cache hits cost no time estimate (a 1,000-step no-op rerun stays linear)", (t) => {
  const eta = t.mock.method(RunProgress.prototype, "eta");
  const seen: EngineEvent[] = [];
  const sink = withRunProgress((e) => seen.push(e), { now: () => 0, cacheHitIntervalMs: 500 });
  const steps = Array.from({ length: 1000 }, (_, i) => ({ step: `s${i}`, status: "cached" as const, expectedSeconds: 1, after: i > 0 ? [`s${i - 1}`] : [] }));
  sink({ type: "plan", concurrency: 2, steps });
  for (const s of steps) sink({ type: "cache-hit", step: s.step, key: K });
  const overall = seen.filter((e) => e.type === "overall").map((e) => (e.type === "overall" ? `${e.trigger}:${e.done}/${e.total}` : ""));
  assert.deepEqual(overall, ["plan:0/1000", "cache-hit:1/1000", "cache-hit:1000/1000"]);
  assert.equal(eta.mock.callCount(), overall.length, "one estimate per overall event, none for the hits in between");
});
