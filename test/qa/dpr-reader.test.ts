/**
 * The DPR reader: span selection on hand-made logits, the losses on hand-computed cases, the
 * Python and TypeScript span selection and normalisation giving the same answers, and end to end
 * on a tiny learnable task: Node-side inputs -> train_reader.py -> reader.onnx answering in Node
 * exactly as torch answered the dev questions (parity fixtures and dev_predictions.json).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { basicWords, passageTokens, tokenSpan, type ReaderPassageTokens } from "../../steps/qa/dpr_reader/inputs.ts";
import { bestPassage, bestSpan } from "../../steps/qa/dpr_reader/span-selection.ts";
import { prepareReaderInputs } from "../../steps/qa/dpr_reader/prepare.ts";
import { openReader, predictOne } from "../../steps/qa/dpr_reader/predict.ts";
import { verifyReaderParity } from "../../steps/qa/dpr_reader/reader-parity.ts";
import { normalizeAnswer } from "../../steps/qa/scoring.ts";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { readNpy, writeNpy } from "../../steps/lib/npy.ts";
import { mulberry32 } from "../../steps/lib/prng.ts";
import { tempDir } from "../tmp.ts";
import { PYTHON, program, selftests } from "./python.ts";
import { fixtureExamples, fixtureVocab } from "./reader-fixture.ts";
import { keptEpoch, type SelectionResult } from "./selection.ts";

const SCRIPT = program("qa.dpr_reader.train_reader");

/** A passage row by hand: "Steve Job ##s founded Apple ." with title tokens and separators around. */
const row: ReaderPassageTokens = {
  // title [SEP] steve job ##s founded apple . [SEP]
  ids: [50, 3, 10, 11, 12, 13, 14, 15, 3],
  textStart: 2,
  wordOfToken: [-1, -1, 0, 1, 1, 2, 3, 4, -1],
  words: [[0, 5], [6, 10], [11, 18], [19, 24], [24, 25]],
  text: "Steve Jobs founded Apple.",
};

test("span selection: text tokens only, the length limit, extension to whole words", () => {
  const start = [9, 9, 1, 0, 5, 0, 2, 0, 9];
  const end = [9, 9, 0, 0, 4, 0, 1, 0, 9];
  // Title and separators carry the highest logits but are never chosen; the best text span is
  // start 4 ("##s") + end 4 = 9, extended to the whole word "Jobs".
  assert.deepEqual(bestSpan(start, end, row, 3), { start: 3, end: 4, score: 9, text: "Jobs" });
  // With end logits favouring token 6 ("apple"): 5 + 6 = 11 for the span 4..6 (3 tokens) ...
  const end2 = [0, 0, 0, 0, 0, 0, 6, 0, 0];
  assert.equal(bestSpan(start, end2, row, 3)!.text, "Jobs founded Apple");
  // ... but at most 2 tokens it must be 6..6 (2 + 6 = 8) over 4..5 (5 + 0).
  assert.deepEqual(bestSpan(start, end2, row, 2), { start: 6, end: 6, score: 8, text: "Apple" });
  // Ties go to the earlier start, then the shorter span.
  assert.deepEqual(bestSpan([0, 0, 1, 1, 1, 1, 1, 1, 0], [0, 0, 1, 1, 1, 1, 1, 1, 0], row, 1), { start: 2, end: 2, score: 2, text: "Steve" });
  assert.equal(bestPassage([0.5, 2, 2, -1]), 1);
});

test("reader inputs: BERT basic words with offsets, word-aligned token spans", () => {
  assert.deepEqual(basicWords("Jobs' Apple,  Inc."), [[0, 4], [4, 5], [6, 11], [11, 12], [14, 17], [17, 18]]);
  const enc = createBertTokenizer(fixtureVocab());
  const p = passageTokens(enc, "acme", "Acme was founded by John Smith.", 64);
  assert.equal(p.wordOfToken.filter((w) => w === -1).length, 3);
  assert.deepEqual(tokenSpan(p, [20, 30]), [6, 7]);
  // Cut off: a 6-token row keeps "acme [SEP] acme was founded [SEP]"; the answer is gone.
  assert.equal(tokenSpan(passageTokens(enc, "acme", "Acme was founded by John Smith.", 6), [20, 30]), null);
});

test("losses on hand-computed cases; Python and TypeScript pick the same spans and normalise alike", () => {
  const r = mulberry32(7);
  const words = [-1, -1, 0, 1, 1, 2, 3, 3, 3, 4, 5, -1];
  const cases = Array.from({ length: 20 }, () => ({ start: words.map(() => Math.round(r() * 8) / 2), end: words.map(() => Math.round(r() * 8) / 2) }));
  const texts = ["The  Quick, Brown fox!", "an apple a day", "x_the_y", "Café « déjà »\tvu", "the, end"];
  const [span, sel, norm, ...picked] = selftests([...SCRIPT, "--selftest"], [
    // eligible positions 1..3; start logits 1, 2, 0; end logits 0, 3, 1; spans (1,2) and (2,2).
    ["span_loss", { start: [50, 1, 2, 0], end: [50, 0, 3, 1], eligible: [false, true, true, true], spans: [[1, 2], [2, 2]] }],
    ["selection_loss", { relevance: [2, 0, 1] }],
    ["normalize", { texts }],
    ...cases.map((c) => ["best_span", { ...c, words, max: 3 }] as const),
  ]) as [number, number, string[], ...([number, number, number] | null)[]];
  // -ln((e^1 e^3 + e^2 e^3) / ((e^1 + e^2 + e^0)(e^0 + e^3 + e^1))): the marginal likelihood of both occurrences.
  const want = -Math.log((Math.exp(4) + Math.exp(5)) / ((Math.E + Math.exp(2) + 1) * (1 + Math.exp(3) + Math.E)));
  assert.ok(Math.abs(span - want) < 1e-9, `${span} vs ${want}`);
  assert.ok(Math.abs(sel - -Math.log(Math.exp(2) / (Math.exp(2) + 1 + Math.E))) < 1e-9);
  assert.deepEqual(norm, texts.map(normalizeAnswer));
  cases.forEach((c, k) => {
    const p: ReaderPassageTokens = { ...row, wordOfToken: words, ids: words.map(() => 1), words: [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]], text: "a b c d e f" };
    const ts = bestSpan(c.start, c.end, p, 3);
    const py = picked[k];
    assert.ok(ts !== null && py !== null && py !== undefined);
    // Python returns the span before extension to whole words: extending it gives TypeScript's.
    assert.equal(py[2], ts.score);
    assert.ok(py[0] >= ts.start && py[1] <= ts.end);
  });
});

test("end to end: Node inputs -> train_reader.py -> reader.onnx answers in Node as torch did", async () => {
  const dir = tempDir("cspipe-reader-");
  const enc = createBertTokenizer(fixtureVocab());
  const inputs = join(dir, "inputs");
  const dev = fixtureExamples(12, 2, "d");
  const o = { maxLength: 48, maxQuestionLength: 20, trainPassages: 3, devPassages: 3, maxSpans: 4 };
  const counts = await prepareReaderInputs(enc, fixtureExamples(60, 1, "t"), dev, o, inputs);
  assert.equal(counts["trainWithPositive"], 60);
  writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: enc.vocabDigest, vocabSize: enc.vocabSize, sepId: enc.special.sep, clsId: enc.special.cls, maxLength: o.maxLength, maxQuestionLength: o.maxQuestionLength }));
  const bert = { hidden_size: 32, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 64, hidden_dropout_prob: 0, attention_probs_dropout_prob: 0 };
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 3, lr: 1e-3, batch_size: 8, passages_per_question: 3, max_answer_length: 4, eval_top_docs: 3, init: { kind: "random", bert_config: bert } }));
  const out = join(dir, "reader");
  const r = spawnSync(PYTHON, [...SCRIPT, "--config", cfg, "--inputs", inputs, "--out", out], { encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as SelectionResult;
  assert.equal(result.best_epoch, keptEpoch(result), "the kept epoch is the first with the best dev EM, ties by dev F1");
  // Dev diagnostics: the dev candidates' has-answer flags are the examples', and each epoch's EM is the share of
  // questions read from a passage holding the answer times the EM among those (an exact match needs the answer there).
  const holds = readNpy(join(inputs, "dev", "has_answer.npy"));
  assert.deepEqual([...(holds.data as Int8Array)], dev.flatMap((ex) => ex.passages.map((p) => (p.hasAnswer ? 1 : 0))));
  const diag = result as SelectionResult & { dev_right_passage_per_epoch: Record<string, number>; dev_em_given_right_passage_per_epoch: Record<string, number | null> };
  assert.deepEqual(Object.keys(diag.dev_right_passage_per_epoch).sort(), Object.keys(result.dev_em_per_epoch).sort());
  for (const [epoch, em] of Object.entries(result.dev_em_per_epoch)) {
    const right = diag.dev_right_passage_per_epoch[epoch]!;
    assert.ok(right >= 0 && right <= 1, `epoch ${epoch}: ${right}`);
    assert.ok(Math.abs(em - right * (diag.dev_em_given_right_passage_per_epoch[epoch] ?? 0)) < 1e-9, `epoch ${epoch}: EM ${em} = ${right} x EM given the right passage`);
  }
  // ONNX parity: onnxruntime-node on the fixture torch wrote.
  const session = await ort.InferenceSession.create(join(out, "reader.onnx"));
  const fx = (n: string) => readNpy(join(out, "parity", "reader", `${n}.npy`));
  const ids = fx("input_ids");
  const feeds = { input_ids: new ort.Tensor("int64", ids.data as BigInt64Array, ids.shape), attention_mask: new ort.Tensor("int64", fx("attention_mask").data as BigInt64Array, ids.shape) };
  const got = await session.run(feeds);
  for (const name of ["start_logits", "end_logits", "relevance_logits"]) {
    const want = fx(name).data as Float32Array;
    const have = got[name]!.data as Float32Array;
    let diff = 0;
    for (let i = 0; i < want.length; i++) diff = Math.max(diff, Math.abs(want[i]! - have[i]!));
    assert.ok(diff < 1e-4, `${name}: max abs diff ${diff}`);
  }
  await session.release();
  // The predict step's check before answering: passes on the export, refuses a tampered fixture.
  const checked = await openReader(join(out, "reader.onnx"));
  const ok = await verifyReaderParity(checked, out);
  assert.ok(ok.maxAbsDiff < 1e-4 && ok.rows === ids.shape[0], ok.note);
  const endFile = join(out, "parity", "reader", "end_logits.npy");
  const original = readFileSync(endFile);
  const end = fx("end_logits");
  const bumped = Float32Array.from(end.data as Float32Array);
  bumped[0] = bumped[0]! + 0.01;
  writeNpy(endFile, { dtype: "float32", shape: end.shape, data: bumped });
  await assert.rejects(verifyReaderParity(checked, out), /reader\.onnx: reader\.onnx differs from the torch reader it was exported from: end_logits max abs diff 0\.0100/);
  writeFileSync(endFile, original);
  rmSync(join(out, "parity", "reader", "relevance_logits.npy"));
  await assert.rejects(verifyReaderParity(checked, out), /relevance_logits\.npy: the reader has no ONNX parity fixture relevance_logits\.npy/);
  await checked.release();
  // Node's answers (onnxruntime + span-selection.ts) are torch's (train_reader.py + spans.py).
  const torchAnswers = JSON.parse(readFileSync(join(out, "dev_predictions.json"), "utf8")) as string[];
  const reader = await openReader(join(out, "reader.onnx"));
  const nodeAnswers: string[] = [];
  for (const ex of dev) nodeAnswers.push((await predictOne(reader, enc, ex, { maxLength: o.maxLength, maxQuestionLength: o.maxQuestionLength, maxAnswerLength: 4, topDocs: 3 })).prediction);
  await reader.release();
  assert.deepEqual(nodeAnswers, torchAnswers);
});

/** θ0-like model directories (what `pretrain-dpr` writes): passage_encoder.safetensors and config.json with cspipe.vocab_digest. */
const THETA0_WRITER = `
import json, os, sys
from pytrain.bert_model import build_random
from pytrain.checkpoint import save_encoder
from pytrain.model_configs import BertConfig
vocab_size = int(sys.argv[1])
for out, digest in zip(sys.argv[2::2], sys.argv[3::2]):
    cfg = BertConfig.from_dict({"vocab_size": vocab_size, "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64, "max_position_embeddings": 64, "hidden_dropout_prob": 0, "attention_probs_dropout_prob": 0})
    os.makedirs(out, exist_ok=True)
    save_encoder(build_random(cfg, 5), os.path.join(out, "passage_encoder.safetensors"), {"role": "passage"})
    json.dump({**cfg.to_hf_dict(), "cspipe": {"format": "dpr-biencoder/1", "vocab_digest": digest}}, open(os.path.join(out, "config.json"), "w"))
`;

/** The float32 tensors of a safetensors file by name (8-byte little-endian header length, JSON header, data). */
function safetensors(path: string): Map<string, Float32Array> {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8")) as Record<string, { dtype: string; data_offsets: [number, number] }>;
  const out = new Map<string, Float32Array>();
  for (const [name, t] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    assert.equal(t.dtype, "F32", name);
    const bytes = buf.subarray(8 + n + t.data_offsets[0], 8 + n + t.data_offsets[1]);
    out.set(name, new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)));
  }
  return out;
}

test("--init-bert from θ0's passage encoder: its weights start the reader; another vocabulary than θ0's is refused naming cspipe.vocab_digest", async () => {
  const dir = tempDir("cspipe-reader-theta0-");
  const enc = createBertTokenizer(fixtureVocab());
  const inputs = join(dir, "inputs");
  const o = { maxLength: 48, maxQuestionLength: 20, trainPassages: 3, devPassages: 3, maxSpans: 4 };
  await prepareReaderInputs(enc, fixtureExamples(8, 1, "t"), fixtureExamples(4, 2, "d"), o, inputs);
  writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: enc.vocabDigest, vocabSize: enc.vocabSize, sepId: enc.special.sep, clsId: enc.special.cls, maxLength: o.maxLength, maxQuestionLength: o.maxQuestionLength }));
  const cfg = join(dir, "cfg.json");
  // 0 epochs: the reader is exported as it starts, so its encoder must be θ0's passage encoder exactly.
  writeFileSync(cfg, JSON.stringify({ epochs: 0, batch_size: 4, passages_per_question: 3, max_answer_length: 4, eval_top_docs: 3, export_onnx: false }));
  // Run from the Python source root, so the package imports as the programs import it.
  const steps = new URL("../../steps", import.meta.url).pathname;
  const w = spawnSync(PYTHON, ["-c", THETA0_WRITER, String(enc.vocabSize), join(dir, "theta0"), enc.vocabDigest, join(dir, "other"), "f".repeat(64)], { cwd: steps, encoding: "utf8" });
  assert.equal(w.status, 0, w.stderr);
  const train = (theta0: string, out: string) => spawnSync(PYTHON, [...SCRIPT, "--config", cfg, "--inputs", inputs, "--out", out, "--init-bert", join(dir, theta0, "passage_encoder.safetensors")], { encoding: "utf8", timeout: 120_000 });
  const out = join(dir, "reader");
  const r = train("theta0", out);
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as { load_report: { kind: string; loaded: number } };
  // 1 layer: 5 embedding tensors + 16 per layer.
  assert.deepEqual([result.load_report.kind, result.load_report.loaded], ["bert", 21]);
  const theta0 = safetensors(join(dir, "theta0", "passage_encoder.safetensors"));
  const reader = safetensors(join(out, "reader.safetensors"));
  const prefix = "span_predictor.encoder.bert_model.";
  assert.deepEqual([...reader.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length)).sort(), [...theta0.keys()].sort());
  for (const [k, v] of theta0) assert.deepEqual(reader.get(prefix + k), v, k);
  // θ0 trained on another vocabulary: exit 2, one line naming θ0's config.json and the field.
  const bad = train("other", join(dir, "refused"));
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /^error: .*other\/config\.json: field 'cspipe\.vocab_digest': vocabulary mismatch: the inputs were tokenized with [0-9a-f]{12}…, the initial BERT with ffffffffffff… Fix: tokenize the reader inputs with the initial BERT's vocabulary/m);
});
