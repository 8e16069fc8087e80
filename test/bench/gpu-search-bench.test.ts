/**
 * bench/gpu/search.ts --quick runs on CPU (the torch shard search beside its ceiling and the
 * float32 peer) and flags CPU numbers; its check finds the exact top k inside the candidates.
 * Numbers are never asserted; the program's shape is. Needs /usr/bin/python3 with torch.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";
import { searchBenchConfig } from "../../bench/gpu/search.ts";
import { PYTHON } from "../training/python.ts";

const skip = spawnSync(PYTHON, ["-c", "import torch"]).status === 0 ? false : `no torch for ${PYTHON} (apt-get install -y python3-torch)`;

test("--quick prints the ceiling, the proven search, the float32 peer and their ratios; the check passes", { skip }, () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench/gpu/search.ts"), "--quick", "--python", PYTHON], { encoding: "utf8", cwd: ROOT, timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0]!, /^device: .*; shard 20000 x 64, 64 queries, k 100$/);
  assert.ok(lines.some((l) => /^ceiling: (bfloat16|float16|float32) matmul 256\^3: [\d.e+-]+ TFLOP\/s$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^proven \(.*\): \d+\.\d{3} s, .* TFLOP\/s; widened \d+ of 64 queries/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^float32 \(matmul \+ top-116, TF32 off\): \d+\.\d{3} s/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^ratio proven\/ceiling \(TFLOP\/s\): \d+\.\d{3} {3}ratio float32\/proven \(time\): \d+\.\d{2}/.test(l)), r.stdout);
  assert.ok(lines.some((l) => l.startsWith("check: exact top 100 inside the proven candidates for 64 of 64 queries;")), r.stdout);
});

test("the default is a QReCC-sized shard against 4,096 queries; sizes are flags", () => {
  assert.deepEqual(searchBenchConfig([]), { rows: 2_000_000, queries: 4096, dim: 768, k: 100, ceiling: 8192 });
  assert.deepEqual(searchBenchConfig(["--rows", "1000000", "--queries", "512"]), { rows: 1_000_000, queries: 512, dim: 768, k: 100, ceiling: 8192 });
  assert.throws(() => searchBenchConfig(["--dim", "0"]), /--dim must be a positive integer/);
});
