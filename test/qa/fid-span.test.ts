/**
 * T5's span corruption (steps/qa/fid/span_corruption.py's numbered rules) on hand cases, the
 * corpus rows Node writes for it, the pre-trainer end to end (Node rows -> fid.py pretrain-span ->
 * fid.py train --init-from its model), its generated schema, and the mini wiring: FiD's
 * pre-training on mini-nq starts from the span-corruption model when the setup says so.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { writeNpy } from "../../steps/lib/npy.ts";
import { loadT5Tokenizer } from "../../steps/qa/fid/t5-tokenizer.ts";
import { answerLabels, fidMatrix } from "../../steps/qa/fid/inputs.ts";
import { isDevRow, spanCorpusRow } from "../../steps/qa/fid/span-steps.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { pretrainedFid } from "../../pipeline/definitions/qa/readers.ts";
import { qaSetupOf } from "../../pipeline/definitions/qa/parameters.ts";
import { MINI_PRETRAINING } from "../../pipeline/definitions/qa/setup.ts";
import { tempDir } from "../tmp.ts";
import { fixtureExamples } from "./reader-fixture.ts";
import { trainTinySpm } from "./spm-fixture.ts";
import { PYTHON, program, selftests } from "./python.ts";

const FID = program("qa.fid.fid");

type Corrupted = { mask: number[]; counts: [number, number]; input: number[]; target: number[] };
type Span = Corrupted | { error: string };
const ok = (s: Span | undefined): Corrupted => {
  assert.ok(s !== undefined && !("error" in s), JSON.stringify(s));
  return s;
};

test("span corruption: noise counts, masks, sentinels, inputs and targets (hand cases)", () => {
  const tokens = (n: number) => Array.from({ length: n }, (_, i) => 11 + i);
  const [given, twoSpans, seeded, seededAgain, tooFew, oneToken, counts20] = selftests([...FID, "selftest"], [
    // Rules 4-5 on a given mask: spans [12, 13] and [15] become sentinels 99 and 98; 97 closes the target.
    ["span", { tokens: tokens(5), mask: [0, 1, 1, 0, 1], vocab_size: 100, sentinels: 3 }],
    ["span", { tokens: tokens(6), mask: [0, 0, 1, 0, 1, 1], vocab_size: 50, sentinels: 4 }],
    // Rules 1-3 from a seeded generator: 10 tokens at density 0.3 -> 3 noise tokens in round(3 / 1.5) = 2 spans.
    ["span", { tokens: tokens(10), density: 0.3, mean_span: 1.5, seed: 3, vocab_size: 100, sentinels: 4 }],
    ["span", { tokens: tokens(10), density: 0.3, mean_span: 1.5, seed: 3, vocab_size: 100, sentinels: 4 }],
    // Two spans need three sentinels.
    ["span", { tokens: tokens(5), mask: [0, 1, 0, 1, 1], vocab_size: 100, sentinels: 2 }],
    // Rule 6: one token cannot be corrupted.
    ["span", { tokens: [11], density: 0.3, mean_span: 1.5, seed: 1, vocab_size: 100, sentinels: 4 }],
    // Rule 1-2 clamps: 20 tokens at 0.15 -> 3 noise tokens, round(3 / 3) = 1 span.
    ["span", { tokens: tokens(20), density: 0.15, mean_span: 3, seed: 5, vocab_size: 100, sentinels: 4 }],
  ]) as Span[];
  const [two, a, b, c20] = [ok(twoSpans), ok(seeded), ok(seededAgain), ok(counts20)];
  assert.deepEqual(given, { mask: [0, 1, 1, 0, 1], counts: [1, 1], input: [11, 99, 14, 98, 1], target: [99, 12, 13, 98, 15, 97, 1] });
  assert.deepEqual([two.input, two.target], [[11, 12, 49, 14, 48, 1], [49, 13, 48, 15, 16, 47, 1]]);
  assert.deepEqual(a, b);
  assert.deepEqual(a.counts, [3, 2]);
  assert.equal(a.mask.reduce((a, b) => a + b, 0), 3);
  assert.equal(a.mask[0], 0, "a sequence starts with a kept token");
  assert.equal(a.mask[9], 1, "and ends with noise");
  const runs = a.mask.map((b, i) => (b === 1 && (i === 0 || a.mask[i - 1] === 0) ? 1 : 0)).reduce((a: number, b: number) => a + b, 0);
  assert.equal(runs, 2);
  // The corrupted input and the target together hold every token once, in order, around the sentinels.
  const restored: number[] = [];
  for (const t of a.input.slice(0, -1)) {
    if (t < 90) restored.push(t);
    else restored.push(...a.target.slice(a.target.indexOf(t) + 1, a.target.findIndex((x, i) => i > a.target.indexOf(t) && x >= 90)));
  }
  assert.deepEqual(restored, tokens(10));
  assert.deepEqual(tooFew, { error: "more than 1 noise spans need more sentinels (config key sentinels)" });
  assert.deepEqual(oneToken, { error: "a sequence of 1 token(s) cannot be corrupted" });
  assert.deepEqual(c20.counts, [3, 1]);
});

test("span corpus rows: `title: ... context: ...` ids cut to the length, every devEvery-th held out", () => {
  const dir = tempDir("cspipe-span-rows-");
  const tok = loadT5Tokenizer(trainTinySpm(dir));
  assert.deepEqual(spanCorpusRow(tok, "acme", "founded by john smith", 100), [...tok.encode("title: acme"), ...tok.encode("context:"), ...tok.encode("founded by john smith")]);
  assert.deepEqual(spanCorpusRow(tok, null, "founded by john smith", 100), [...tok.encode("context:"), ...tok.encode("founded by john smith")]);
  assert.equal(spanCorpusRow(tok, "acme", "founded by john smith long ago in paris", 5).length, 5);
  assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => isDevRow(i, 3)), [false, false, true, false, false, true]);
});

test("end to end: Node rows -> fid.py pretrain-span (best dev loss kept) -> fid.py train from its model", () => {
  const dir = tempDir("cspipe-span-");
  const tok = loadT5Tokenizer(trainTinySpm(dir));
  const texts = fixtureExamples(60, 1, "s").flatMap((e) => e.passages.map((p) => [p.title, p.text] as const));
  const corpus = join(dir, "corpus");
  const L = 24;
  const split = { train: [] as number[][], dev: [] as number[][] };
  texts.forEach(([title, text], i) => (isDevRow(i, 10) ? split.dev : split.train).push(spanCorpusRow(tok, title, text, L)));
  for (const s of ["train", "dev"] as const) {
    mkdirSync(join(corpus, s), { recursive: true });
    const m = new Int32Array(split[s].length * L);
    split[s].forEach((ids, r) => m.set(ids, r * L));
    writeNpy(join(corpus, s, "tokens.npy"), { dtype: "int32", shape: [split[s].length, L], data: m });
  }
  writeFileSync(join(corpus, "meta.json"), JSON.stringify({ vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize, padId: 0, eosId: 1, length: L }));
  const t5 = { d_model: 32, d_kv: 8, d_ff: 64, num_layers: 1, num_heads: 2, dropout_rate: 0 };
  const cfg = join(dir, "span.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 2, lr: 3e-3, batch_size: 16, sentinels: 8, init: { kind: "random", t5_config: t5 } }));
  const span = join(dir, "span");
  const r = spawnSync(PYTHON, [...FID, "pretrain-span", "--config", cfg, "--inputs", corpus, "--out", span], { encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(readFileSync(join(span, "result.json"), "utf8")) as { best_epoch: number; dev_loss_per_epoch: Record<string, number>; vocab_size: number };
  const losses = Object.values(result.dev_loss_per_epoch);
  assert.equal(result.best_epoch, losses.indexOf(Math.min(...losses)) + 1);
  assert.equal(result.vocab_size, tok.vocabSize + 8);
  const conf = JSON.parse(readFileSync(join(span, "config.json"), "utf8")) as { vocab_size: number; cspipe: { vocab_digest: string; objective: string } };
  assert.deepEqual([conf.vocab_size, conf.cspipe.vocab_digest, conf.cspipe.objective], [tok.vocabSize + 8, tok.vocabDigest, "span-corruption"]);
  // Too few sentinels for the rows' spans: a clear error naming the key, before any training.
  const bad = join(dir, "bad.json");
  writeFileSync(bad, JSON.stringify({ epochs: 1, sentinels: 4, noise_density: 0.5, init: { kind: "random", t5_config: t5 } }));
  const rb = spawnSync(PYTHON, [...FID, "pretrain-span", "--config", bad, "--inputs", corpus, "--out", join(dir, "bad")], { encoding: "utf8", timeout: 120_000 });
  assert.equal(rb.status, 2);
  assert.match(rb.stderr, /field 'sentinels': rows of 24 tokens get up to 4 noise spans, which need 5 sentinels Fix: set sentinels >= 5/);
  // FiD fine-tunes from it: the vocabulary digest matches and the larger embedding is accepted.
  const train = fixtureExamples(16, 1, "t");
  const o = { nContext: 2, passageLength: 32, questionLength: 12 };
  const inputs = join(dir, "inputs");
  mkdirSync(join(inputs, "train"), { recursive: true });
  mkdirSync(join(inputs, "dev"), { recursive: true });
  writeNpy(join(inputs, "train", "input_ids.npy"), { dtype: "int32", shape: [train.length, 2, 32], data: fidMatrix(tok, train, o) });
  const labels = new Int32Array(train.length * 8).fill(-100);
  train.forEach((e, q) => labels.set(answerLabels(tok, e.answers[0]!, 8), q * 8));
  writeNpy(join(inputs, "train", "labels.npy"), { dtype: "int32", shape: [train.length, 8], data: labels });
  writeNpy(join(inputs, "dev", "input_ids.npy"), { dtype: "int32", shape: [4, 2, 32], data: fidMatrix(tok, train.slice(0, 4), o) });
  writeFileSync(join(inputs, "dev", "answers.json"), JSON.stringify(train.slice(0, 4).map((e) => e.answers)));
  writeFileSync(join(inputs, "pieces.json"), JSON.stringify(tok.spec.pieces.map((p) => [p.piece, p.type])));
  writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: tok.vocabDigest, vocabSize: tok.vocabSize }));
  const qa = join(dir, "qa.json");
  writeFileSync(qa, JSON.stringify({ epochs: 1, lr: 3e-3, batch_size: 8, n_context: 2, answer_max_length: 8 }));
  const f = spawnSync(PYTHON, [...FID, "train", "--config", qa, "--inputs", inputs, "--out", join(dir, "fid"), "--init-from", span], { encoding: "utf8", timeout: 300_000 });
  assert.equal(f.status, 0, f.stderr);
  assert.equal((JSON.parse(readFileSync(join(dir, "fid", "result.json"), "utf8")) as { load_report: { kind: string } }).load_report.kind, "checkpoint");
});

const producer = (s: AnyStep, input: string): AnyStep => {
  const ref = (s.inputs as Record<string, { step: AnyStep } | undefined>)[input];
  assert.ok(ref, `${s.name} has no input ${input}`);
  return ref.step;
};

test("mini wiring: FiD's pre-training on mini-nq fine-tunes the span-corruption T5 (smoke: one short epoch); real data has none", () => {
  assert.notEqual(MINI_PRETRAINING.fidSpan, null, "this test covers the span start; a random start is covered by qa-pretraining.test.ts");
  const pre = pretrainedFid({ data: "mini", profile: "paper" }).step;
  assert.equal(pre.name, "pretrain-fid.mini-nq");
  assert.equal(pre.def.id, "pretrain-fid");
  const span = producer(pre, "init");
  assert.deepEqual([span.def.id, span.name], ["pretrain-t5-span", "pretrain-t5-span.mini-nq"]);
  const p = span.params as { epochs: number; noise_density: number; mean_span_length: number; sentinels: number; init: { t5_config: unknown } };
  const s = MINI_PRETRAINING.fidSpan!;
  assert.deepEqual([p.epochs, p.noise_density, p.mean_span_length, p.sentinels], [s.epochs, s.noiseDensity, s.meanSpanLength, s.sentinels]);
  assert.deepEqual(p.init.t5_config, qaSetupOf({ data: "mini", profile: "paper" }).fid.pretrain!.t5);
  const corpus = producer(span, "corpus");
  assert.equal(corpus.def.id, "prepare-t5-span-corpus");
  assert.equal(producer(corpus, "spm").def.id, "train-sentencepiece", "the corpus is cut into FiD's own SentencePiece pieces");
  assert.equal(producer(corpus, "passages").name, "preprocess-mini-nq");
  const smoke = producer(producer(pretrainedFid({ data: "mini", profile: "smoke" }).step, "init"), "corpus").params as { maxPassages: number };
  assert.equal(smoke.maxPassages, 2000);
  assert.equal(qaSetupOf({ data: "real", profile: "paper" }).fid.pretrain, null);
});
