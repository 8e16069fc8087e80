/**
 * bench/gpu/main.ts --quick runs on CPU (tiny BERT through the trainer's model, loss and
 * gradient-cache code; the pipeline's shard-search kernel; a torch matmul) and says that its
 * numbers are CPU numbers. Numbers are never asserted; the program's shape is. Needs
 * /usr/bin/python3 with torch (CI: scripts/setup.sh).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";
import { benchConfig } from "../../bench/gpu/main.ts";
import { PYTHON } from "../training/python.ts";

const skip = spawnSync(PYTHON, ["-c", "import torch"]).status === 0 ? false : `no torch for ${PYTHON} (apt-get install -y python3-torch)`;
const cuda = skip === false && spawnSync(PYTHON, ["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"]).status === 0;

test("--quick prints every measurement beside its estimate, and flags CPU numbers", { skip }, () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench/gpu/main.ts"), "--quick", "--python", PYTHON], { encoding: "utf8", cwd: ROOT, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0]!, /^device: .*model: TINY \(--quick/);
  assert.equal(lines.some((l) => l.startsWith("NOTE: no CUDA device: these are CPU numbers")), !cuda);
  const train = lines.filter((l) => /^ {2}iteration [12] .*: \d+\.\d+ s\/step \(\d+\.\d+ steps\/s\), (peak|process peak RSS) \d+\.\d+ GiB/.test(l));
  assert.equal(train.length, 4, r.stdout);
  assert.equal(train.filter((l) => l.includes("gradient cache, chunks of 4")).length, 2);
  assert.ok(lines.some((l) => /^encoding \((fp32|fp16), 64 tokens, batch 16\): \d+\.\d passages\/s/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^ {2}pipeline kernel \((faiss|brute-force) on CPU .* GFLOP\/s .*estimate 1 min on 16 cores/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^ {2}torch matmul \+ top-k on .* GFLOP\/s .*estimate 1\.7 s on a GPU/.test(l)), r.stdout);
});

test("the full configuration is the paper's QReCC batches on BERT-base", () => {
  const full = benchConfig(false);
  assert.equal(full.bert.hidden_size, 768);
  assert.equal(full.bert.num_hidden_layers, 12);
  assert.deepEqual(full.train.map((t) => [t.queries, t.passages, t.query_len, t.passage_len, t.chunk]), [
    [256, 256, 128, 384, null],
    [256, 256, 128, 384, 32],
    [128, 256, 128, 384, null],
    [128, 256, 128, 384, 32],
  ]);
  assert.equal(full.encode.len, 384);
});
