import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { registerDiagnoseCommand } from "../../pipeline/commands/diagnose.ts";
import { tempDir } from "../tmp.ts";

/*
 * `diagnose --dense-model` on the hand-made dataset of diagnose.test.ts with tiny random ONNX
 * encoders (test/encoding/onnx/tiny_encoder.py; needs /usr/bin/python3 with torch, which CI installs).
 * Whatever the weights, the exposure is known: the collection has 8 passages and k = 10, so every
 * non-empty query retrieves every passage (recall@10 = 1), while X_t \ q_t of a first turn is empty
 * ([CLS] [SEP]: no hits). Kept share @10: first 0, switch 1, no-switch 1, all 4/7.
 */
const PY = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const torch = spawnSync(PY, ["-c", "import torch"], { encoding: "utf8" });
const missing = torch.status === 0 ? undefined : `no torch for ${PY} (apt-get install -y python3-torch)`;
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const SCRIPT = fileURLToPath(new URL("../encoding/onnx/tiny_encoder.py", import.meta.url));

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command("cspipe").exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerDiagnoseCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {} }, (c) => (code = c));
  await program.parseAsync(["diagnose", ...args], { from: "user" });
  return { code, stdout, stderr };
}

test("a dense model beside BM25: tokenized, encoded and searched by the pipeline's steps, known exposure", { skip: process.env.CI === undefined ? missing : false }, async () => {
  assert.equal(missing, undefined, missing);
  const dir = tempDir("cspipe-diagnose-dense-");
  const model = join(dir, "model");
  mkdirSync(model);
  const words = new Set<string>();
  for (const f of ["passages.jsonl", "conversations.jsonl"]) {
    for (const line of readFileSync(join(fixtures, f), "utf8").trim().split("\n")) {
      const o = JSON.parse(line) as Record<string, unknown>;
      for (const k of ["contents", "question", "answer"]) if (typeof o[k] === "string") for (const w of (o[k] as string).toLowerCase().match(/[a-z0-9]+|[^\sa-z0-9]/g) ?? []) words.add(w);
    }
  }
  const vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ...[...words].sort()];
  writeFileSync(join(model, "vocab.txt"), vocab.join("\n") + "\n");
  // One export serves as both encoders (the exposure above does not depend on the weights; torch's start-up does cost).
  execFileSync(PY, [SCRIPT, "export", "--out", join(model, "query_encoder.onnx"), "--kind", "bert", "--vocab", String(vocab.length), "--hidden", "16", "--layers", "1", "--heads", "2", "--max-len", "128", "--seed", "3"], { stdio: "pipe" });
  copyFileSync(join(model, "query_encoder.onnx"), join(model, "passage_encoder.onnx"));
  const r = await cli(["--conversations", join(fixtures, "conversations.jsonl"), "--collection", join(fixtures, "passages.jsonl"), "--cutoffs", "10", "--dense-model", model, "--out", join(dir, "out"), "--store", join(dir, "store")]);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(readFileSync(join(dir, "out", "diagnosis.json"), "utf8"));
  const dense = Object.fromEntries(d.groups.map((g: { group: string; dense: { keptShare: Record<string, { value: number }>; means: Record<string, Record<string, number>> } }) => [g.group, [g.dense.keptShare["10"]!.value, g.dense.means.history!["recall@10"]]]));
  assert.deepEqual(dense, { all: [4 / 7, 1], first: [0, 1], switch: [1, 1], "no-switch": [1, 1] });
  assert.match(d.dense.model, /^query_encoder\.onnx \(sha256 [0-9a-f]{12}\), passage_encoder\.onnx \(sha256 [0-9a-f]{12}\), vocabulary [0-9a-f]{12}$/);
  assert.match(r.stdout, /The dense model keeps 57\.1% \[/);
  const noVocab = await cli(["--conversations", join(fixtures, "conversations.jsonl"), "--collection", join(fixtures, "passages.jsonl"), "--dense-model", fixtures, "--store", join(dir, "store")]);
  assert.equal(noVocab.code, 2);
  assert.match(noVocab.stderr, /field '--dense-model': the dense model directory lacks query_encoder\.onnx, passage_encoder\.onnx/);
});
