import { test } from "node:test";
import assert from "node:assert/strict";
import { formatEta, renderBar } from "../../pipeline/reporters/tty.ts";
import { plainReporter } from "../../pipeline/reporters/plain.ts";
import { jsonReporter } from "../../pipeline/reporters/json.ts";
import { parseProgressLine, resolveArgv } from "../../pipeline/engine/executor.ts";

test("ETA formatting", () => {
  assert.equal(formatEta(0), "0:00");
  assert.equal(formatEta(65.4), "1:05");
  assert.equal(formatEta(3725), "1:02:05");
  assert.equal(formatEta(NaN), "--:--");
});

test("progress bar: counts, percentage and ETA from the rate so far", () => {
  // 25 of 100 done after 10 s -> 30 s left; width 80 - 6 (name) - 40 = 34 cells, capped at 30; 7.5 filled rounds to 8.
  const line = renderBar("encode", { started: 0, done: 25, total: 100 }, 80, 10_000);
  assert.equal(line, "  encode [########----------------------] 25/100 25% eta 0:30");
});

test("plain reporter prints quarter progress once and a summary", () => {
  const lines: string[] = [];
  const r = plainReporter((l) => lines.push(l));
  r({ type: "started", step: "s", key: "a".repeat(64), log: "/l" });
  for (let i = 1; i <= 8; i++) r({ type: "progress", step: "s", done: i, total: 8 });
  r({ type: "succeeded", step: "s", key: "a".repeat(64), seconds: 1.25, reused: false });
  r({ type: "finished", ok: true, executed: 1, cached: 0, failed: 0, seconds: 1.3 });
  assert.deepEqual(lines, [
    "run       s aaaaaaaaaaaa",
    "progress  s 25% (2/8)",
    "progress  s 50% (4/8)",
    "progress  s 75% (6/8)",
    "progress  s 100% (8/8)",
    "done      s aaaaaaaaaaaa in 1.3 s",
    "ok: 1 executed, 0 cached, 0 failed in 1.30 s",
  ]);
});

test("JSON reporter writes one parseable object per event", () => {
  const lines: string[] = [];
  jsonReporter((l) => lines.push(l))({ type: "cache-hit", step: "s", key: "k" });
  const parsed = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(parsed.type, "cache-hit");
  assert.equal(parsed.step, "s");
  assert.match(String(parsed.time), /^\d{4}-\d\d-\d\dT/);
});

test("argv placeholders map to executor paths; progress lines parse", () => {
  const argv = resolveArgv(["python3", "{src}/train.py", "--in={in:ids}", "--out", "{out:model}", "{params}", "{work}"], {
    input: (n) => `/store/${n}`,
    output: (n) => `/stage/${n}`,
    src: "/repo",
    params: "/w/params.json",
    work: "/w",
  });
  assert.deepEqual(argv, ["python3", "/repo/train.py", "--in=/store/ids", "--out", "/stage/model", "/w/params.json", "/w"]);
  assert.deepEqual(parseProgressLine("PROGRESS 3 10 epoch 1"), { done: 3, total: 10, label: "epoch 1" });
  assert.deepEqual(parseProgressLine("PROGRESS 7"), { done: 7 });
  assert.equal(parseProgressLine("loss 0.3"), undefined);
});
