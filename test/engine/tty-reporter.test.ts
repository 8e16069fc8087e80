import { test } from "node:test";
import assert from "node:assert/strict";
import { ttyReporter } from "../../pipeline/reporters/tty.ts";
import type { EngineEvent } from "../../pipeline/engine/events.ts";

/** A 120-column terminal that records what is written, and a clock the test sets. */
function terminal(): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  return { stream: { columns: 120, write: (s: string) => written.push(s) > 0 } as unknown as NodeJS.WriteStream, written };
}

const overall = (trigger: Extract<EngineEvent, { type: "overall" }>["trigger"], done: number): EngineEvent => ({
  type: "overall",
  done,
  total: 4,
  cached: 1,
  executed: done - 1,
  failed: 0,
  running: 1,
  etaSeconds: 90,
  elapsedSeconds: 10,
  trigger,
});

test("tty reporter: finished lines scroll above the bars, redraws are throttled to 100 ms except for the overall line, which goes at the end", () => {
  const { stream, written } = terminal();
  let t = 0;
  const r = ttyReporter(stream, { now: () => t });
  const at = (ms: number, e: EngineEvent) => {
    t = ms;
    r(e);
  };
  at(0, { type: "started", step: "s", key: "a".repeat(64), log: "/l" });
  at(50, { type: "progress", step: "s", done: 1, total: 4 });
  at(200, { type: "progress", step: "s", done: 2, total: 4, label: "batches" });
  at(250, { type: "queue", step: "s", state: "running", detail: "on n2" });
  at(300, overall("cache-hit", 2));
  at(320, overall("started", 2));
  at(400, { type: "metrics", step: "s", epoch: 1, values: { train_loss: 0.5 } });
  at(500, { type: "succeeded", step: "s", key: "a".repeat(64), seconds: 0.5, reused: false });
  at(600, overall("finished", 4));
  assert.deepEqual(written, EXPECTED);
});

/** Moves up one line and erases it (a redraw clears each line it drew). */
const CLEAR = "\x1b[1A\x1b[2K";

const EXPECTED: string[] = [
  // t=0: the started line scrolls, the bar is drawn below it
  "run       s aaaaaaaaaaaa\n",
  "  s 0 (0:00 elapsed)\n",
  // t=50: progress within 100 ms of the last draw: nothing; t=200: redrawn with the count
  CLEAR,
  "  s [###############---------------] 2/4 batches 50% eta 0:00\n",
  // t=250: a queue state redraws at once
  CLEAR,
  "  s [###############---------------] 2/4 batches 50% eta 0:00 · running: on n2\n",
  // t=300: a cache hit's overall line waits (50 ms since the last draw); t=320: a started one draws at once
  CLEAR,
  "  s [###############---------------] 2/4 batches 50% eta 0:00 · running: on n2\n",
  "[==========          ] 2/4 steps done (1 cached, 1 run), 1 running, 0:10 elapsed, eta 1:30\n",
  // t=400: metrics scroll as a line and join the bar
  CLEAR,
  CLEAR,
  "epoch     s epoch 1: train loss 0.5000\n",
  "  s [###############---------------] 2/4 batches 50% eta 0:00 · running: on n2 · epoch 1: train loss 0.5000\n",
  "[==========          ] 2/4 steps done (1 cached, 1 run), 1 running, 0:10 elapsed, eta 1:30\n",
  // t=500: the step is done: its bar goes
  CLEAR,
  CLEAR,
  "done      s aaaaaaaaaaaa in 0.5 s\n",
  "[==========          ] 2/4 steps done (1 cached, 1 run), 1 running, 0:10 elapsed, eta 1:30\n",
  // t=600: the run finished: the live area is cleared
  CLEAR,
];
