/**
 * FiD on the compact T5: relative-position buckets against hand-computed values, greedy decoding
 * deterministic and equal with and without the key/value cache, Hugging Face names loading with
 * the checkpoint's tolerated extras, and end to end on a tiny task: Node-side inputs ->
 * fid.py train -> fid.py predict giving the answers the trainer gave for its kept epoch.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeNpy } from "../../steps/lib/npy.ts";
import { loadT5Tokenizer } from "../../steps/qa/fid/t5-tokenizer.ts";
import { conversationTokens, fidMatrix } from "../../steps/qa/fid/inputs.ts";
import { tempDir } from "../tmp.ts";
import { fixtureExamples } from "./reader-fixture.ts";
import { trainTinySpm } from "./spm-fixture.ts";
import { PYTHON, program, selftests } from "./python.ts";
import { writeFidInputs } from "./fid-fixture.ts";
import { keptEpoch, type SelectionResult } from "./selection.ts";

const FID = program("qa.fid.fid");

test("compact T5: buckets, greedy decoding, Hugging Face names, decoding pieces", () => {
  const [bi, causal, gen, names, load, bad, decoded] = selftests([...FID, "selftest"], [
    ["buckets", { relative: [-200, -128, -20, -8, -1, 0, 1, 2, 7, 8, 9, 20, 64, 127, 128, 1000], bidirectional: true }],
    ["buckets", { relative: [-200, -128, -20, -16, -15, -1, 0, 1, 7], bidirectional: false }],
    ["generate", { seed: 2, max_length: 6, input_ids: [[[5, 6, 7, 1], [8, 9, 1, 0]], [[10, 11, 12, 1], [0, 0, 0, 0]]] }],
    ["names", {}],
    ["load", {}],
    ["load", { unknown: true }],
    ["decode", { pieces: [["<pad>", 3], ["</s>", 3], ["<unk>", 2], ["▁Ac", 1], ["me", 1], ["▁is", 1]], ids: [3, 4, 2, 5, 1, 0] }],
  ]) as [number[], number[], { cached: number[][]; again: number[][]; full: number[][] }, string[], boolean, { error: string }, string];
  // Relative position buckets. Bidirectional, 32 buckets: keys after the query use 16..31; n = |rel|,
  // exact below 8, else 8 + floor(ln(n/8) / ln(16) * 8), clamped: -20 -> 10, 64 -> 16 + 14 = 30, 127 -> 31.
  assert.deepEqual(bi, [15, 15, 10, 8, 1, 0, 17, 18, 23, 24, 24, 26, 30, 31, 31, 31]);
  // Causal: keys after the query are bucket 0; n = -rel exact below 16, else 16 + floor(ln(n/16) / ln(8) * 16).
  assert.deepEqual(causal, [31, 31, 17, 16, 15, 1, 0, 0, 0]);
  // Greedy decoding: deterministic, and the cached decoder equals full recomputation.
  assert.deepEqual(gen.cached, [[16, 13, 13, 16, 16, 16], [28, 16, 16, 16, 16, 16]]);
  assert.deepEqual(gen.again, gen.cached);
  assert.deepEqual(gen.full, gen.cached);
  // Hugging Face names: relative bias in block 0 only, no biases; tied copies and the unused
  // cross-attention bias are tolerated on load, other strangers are not.
  for (const n of ["shared.weight", "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", "encoder.block.1.layer.1.DenseReluDense.wi.weight", "decoder.block.0.layer.1.EncDecAttention.q.weight", "decoder.block.1.layer.2.layer_norm.weight", "decoder.final_layer_norm.weight"]) assert.ok(names.includes(n), n);
  assert.ok(!names.includes("encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"));
  assert.ok(!names.some((n) => n.endsWith(".bias") && !n.includes("relative_attention_bias")));
  assert.equal(load, true);
  assert.match(bad.error, /1 unknown weights: decoder\.block\.0\.layer\.2\.DenseReluDense\.wi_0\.weight/);
  // SentencePiece's decoding: "▁" is a space, control pieces vanish, unknown is " ⁇ ".
  assert.equal(decoded, "Acme ⁇  is");
});

test("end to end: Node inputs -> fid.py train -> fid.py predict answers as the trainer did", () => {
  const dir = tempDir("cspipe-fid-");
  const tok = loadT5Tokenizer(trainTinySpm(dir));
  const train = fixtureExamples(40, 1, "t");
  const dev = fixtureExamples(8, 2, "d");
  // The conversation keeps q_1 and q_t; the middle turns go first when the budget is short.
  const ex = { question: "where is acme based ?", history: [{ question: "who founded acme ?", answer: "john smith" }, { question: "what about acme ?", answer: "the history of it" }] };
  const full = conversationTokens(tok, ex, 200);
  const short = conversationTokens(tok, ex, full.length - 1);
  assert.deepEqual(short, [...tok.encode("question 1: who founded acme ?"), ...tok.encode("question 2: what about acme ?"), ...tok.encode("answer 2: the history of it"), ...tok.encode("question 3: where is acme based ?")]);
  const o = { nContext: 3, passageLength: 40, questionLength: 16 };
  const { inputs, pieces } = writeFidInputs(dir, tok, train, dev, o, 8);
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 2, lr: 3e-3, batch_size: 8, n_context: 3, answer_max_length: 8, init: { kind: "random", t5_config: { d_model: 32, d_kv: 8, d_ff: 64, num_layers: 1, num_heads: 2, dropout_rate: 0 } } }));
  const out = join(dir, "fid");
  const r = spawnSync(PYTHON, [...FID, "train", "--config", cfg, "--inputs", inputs, "--out", out], { encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as SelectionResult;
  assert.equal(result.best_epoch, keptEpoch(result), "the first epoch with the best dev EM, ties by dev F1");
  const evalDir = join(dir, "eval");
  mkdirSync(evalDir);
  writeNpy(join(evalDir, "input_ids.npy"), { dtype: "int32", shape: [dev.length, 3, 40], data: fidMatrix(tok, dev, o) });
  writeFileSync(join(evalDir, "qids.json"), JSON.stringify(dev.map((e) => e.qid)));
  writeFileSync(join(evalDir, "pieces.json"), pieces);
  writeFileSync(join(evalDir, "meta.json"), JSON.stringify({ vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize }));
  const p = spawnSync(PYTHON, [...FID, "predict", "--model", out, "--inputs", evalDir, "--out", join(dir, "predictions.jsonl")], { encoding: "utf8", timeout: 300_000 });
  assert.equal(p.status, 0, p.stderr);
  const preds = readFileSync(join(dir, "predictions.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { qid: string; prediction: string });
  assert.deepEqual(preds.map((x) => x.qid), dev.map((e) => e.qid));
  assert.deepEqual(preds.map((x) => x.prediction), JSON.parse(readFileSync(join(out, "dev_predictions.json"), "utf8")));
});
