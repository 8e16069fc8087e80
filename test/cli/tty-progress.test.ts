/**
 * The run as a person sees it on a terminal: the CLI under a pseudo-terminal (`script`, from
 * util-linux, in every Debian), so stdout is a TTY and the TTY reporter draws: per-step bars
 * and the overall line (steps done of total, cached vs run, elapsed, eta) redrawn in place.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT, tempDir } from "../engine/helpers.ts";

const MAIN = join(ROOT, "pipeline", "main.ts");
const DEFS = join(ROOT, "test", "fixtures", "engine", "targets.ts");
const shellQuote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;

test("on a TTY a run shows overall progress with an ETA, redrawn in place", { timeout: 120_000 }, () => {
  const which = spawnSync("sh", ["-c", "command -v script"], { encoding: "utf8" });
  assert.equal(which.status, 0, "util-linux `script` (Debian package bsdutils) is needed to give the CLI a pseudo-terminal");
  const store = join(tempDir(), "store");
  const cmd = [process.execPath, "--import", "tsx", MAIN, "--store", store, "run", "chain", "--concurrency", "1"].map(shellQuote).join(" ");
  const r = spawnSync("script", ["-q", "-e", "-f", "-c", cmd, "/dev/null"], {
    cwd: ROOT,
    env: { ...process.env, CSPIPE_DEFINITIONS: DEFS, CSPIPE_TEST_SLEEP_MS: "80", COLUMNS: "120", TERM: "xterm" },
    encoding: "utf8",
    timeout: 110_000,
  });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const out = r.stdout;
  assert.ok(out.includes("\x1b[1A\x1b[2K"), "lines are redrawn in place (cursor up, clear line): stdout was a TTY");
  const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*[A-Za-z]`, "g");
  const plain = out.replace(ansi, "").replace(/\r/g, "");
  const overall = [...plain.matchAll(/\[[= ]+\] (\d+)\/(\d+) steps done \((\d+) cached, (\d+) run\), (\d+) running, (\d+:\d\d) elapsed, eta (\d+:\d\d)/g)];
  assert.ok(overall.length >= 3, `overall lines:\n${plain}`);
  assert.ok(overall.every((m) => m[2] === "5"), "5 steps in total");
  const midRun = overall.find((m) => Number(m[1]) < 5 && Number(m[5]) >= 1);
  assert.ok(midRun, "an overall line while a step runs");
  const [min, sec] = midRun[7]!.split(":").map(Number);
  assert.ok(min! * 60 + sec! > 0, `a positive ETA mid-run (${midRun[0]})`);
  assert.match(plain, /slow-[abc] \[#+-*\] \d+\/10 \d+% eta \d+:\d\d/, "a bar per running step");
  assert.match(plain, /ok: 5 executed, 0 cached, 0 failed/);
});
