/**
 * bench/qa/main.ts --quick at one thread: a reader written by train_reader.py answers the same
 * synthetic questions through onnxruntime-node (the pipeline's predict path) and torch (the
 * trainer's), with the same answers, and the ratio is printed; FiD's greedy generation decodes
 * every token it is asked for. Numbers are never asserted; the program's shape is. Needs
 * /usr/bin/python3 with torch (CI: scripts/setup.sh).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";
import { PYTHON } from "../training/python.ts";
import { syntheticExamples } from "../../bench/qa/synthetic.ts";

test("the synthetic questions: distinct passages, the answer a word of the first one only", () => {
  const ex = syntheticExamples({ questions: 3, passages: 5, passageWords: 20, questionWords: 6, seed: 1 });
  assert.equal(new Set(ex.flatMap((e) => e.passages.map((p) => p.pid))).size, 15);
  for (const e of ex) {
    assert.equal(e.question.split(" ").length, 6);
    assert.equal(e.passages[0]!.text.split(" ").length, 20);
    assert.ok(e.passages[0]!.hasAnswer);
    const [s, t] = e.passages[0]!.spans[0]!;
    assert.equal(e.passages[0]!.text.slice(s, t), e.answers[0]);
  }
  assert.deepEqual(syntheticExamples({ questions: 3, passages: 5, passageWords: 20, questionWords: 6, seed: 1 }), ex, "seeded");
});

test("--quick --threads 1: reader questions/s for both engines with equal answers and the ratio, FiD tokens/s", () => {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bench/qa/main.ts"), "--quick", "--threads", "1", "--python", PYTHON], { encoding: "utf8", cwd: ROOT, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0]!, /^qa bench: DPR reader \(2 layers, hidden 64, .*\) on 6 questions x 10 passages of 160 tokens; 1 repeat\(s\); threads 1 of \d+ cores$/);
  const row = (name: string) => new RegExp(`^\\| ${name} \\| \\d+\\.\\d \\| \\d+\\.\\d \\| \\d+\\.\\d \\| \\d+\\.\\d\\dx \\|$`);
  for (const name of ["onnxruntime-node, 1 thread\\(s\\)", "torch [^,]+, eager, 1 thread\\(s\\)", "torch [^,]+, inference, 1 thread\\(s\\)"]) assert.ok(lines.some((l) => row(name).test(l)), `${name}\n${r.stdout}`);
  assert.ok(lines.includes("answers: onnxruntime-node and torch agree on 6/6 questions"), r.stdout);
  assert.ok(lines.some((l) => /^reader, onnxruntime-node \/ torch, each at its best: \d+\.\d\dx$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^\| torch [^,]+, 1 thread\(s\) \| \d+\.\d \| \d+\.\d \| \d+\.\d \|$/.test(l)), r.stdout);
  assert.ok(lines.some((l) => /^FiD best: torch [^,]+, 1 thread\(s\) \d+ tokens\/s \(\d+\.\d questions\/s; /.test(l)), r.stdout);
});
