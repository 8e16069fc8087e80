/**
 * Ctrl-C during an in-process step, through ./cspipe in plain mode: the BM25 search observes the
 * stop at once instead of running to its end (it took 5-12 s before, the engine's grace included),
 * the last line says the run was stopped (not FAILED), and every step that finished before the stop
 * is kept: a plan afterwards finds it cached.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ROOT } from "../engine/helpers.ts";
import { tempDir } from "../tmp.ts";
import { cspipe } from "./cspipe.ts";

test("SIGINT 0.3 s into a BM25 search: stopped within 3 s, 'stopped by SIGINT', finished steps cached", { timeout: 180_000 }, async () => {
  const dir = tempDir("cspipe-interrupt-");
  const store = join(dir, "store");
  const child = spawn(join(ROOT, "cspipe"), ["run", "table2-bm25", "--store", store, "--export-dir", dir], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  let sentAt = 0;
  createInterface({ input: child.stdout }).on("line", (l) => {
    lines.push(l);
    if (sentAt === 0 && l.startsWith("run       search-bm25.")) {
      sentAt = -1;
      setTimeout(() => {
        sentAt = Date.now();
        child.kill("SIGINT");
      }, 300);
    }
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const stopSeconds = (Date.now() - sentAt) / 1000;
  assert.equal(code, 130, lines.join("\n") + stderr);
  assert.ok(stopSeconds < 3, `stopped ${stopSeconds.toFixed(2)} s after SIGINT`);
  assert.match(stderr, /^SIGINT: stopping \(leases released, run recorded as interrupted\); send it again to kill at once$/m);
  assert.match(lines.at(-1)!, /^stopped by SIGINT: \d+ executed, 0 cached, 0 failed in [\d.]+ s; the steps that finished are kept, a rerun continues from them$/);
  assert.ok(!lines.some((l) => l.startsWith("FAILED")), lines.join("\n"));

  const done = lines.filter((l) => l.startsWith("done ")).map((l) => l.split(/\s+/)[1]!);
  assert.ok(done.includes("build-bm25-index.mini-qrecc") || done.includes("build-bm25-index.mini-topiocqa"), done.join(", "));
  const plan = cspipe(["plan", "table2-bm25", "--store", store]);
  assert.equal(plan.status, 0, plan.stderr);
  const cached = plan.stdout.split("\n").filter((l) => l.startsWith("cached ")).map((l) => l.split(/\s+/)[1]!);
  assert.deepEqual(cached.sort(), [...done].sort(), "exactly the steps that finished are cached");
});
