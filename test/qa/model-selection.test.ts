/**
 * The readers' model selection (steps/qa/reading.py on pytrain/selection.py): token F1 as steps/qa/scoring.ts
 * computes it, the rule (best dev EM, ties by dev F1, then the earlier) on hand cases, and the
 * starting model as epoch 0 in both trainers: scored before training, kept, weights and all,
 * when no epoch beats it (a learning rate of 1e-12 leaves every answer as it was: a tie).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareReaderInputs } from "../../steps/qa/dpr_reader/prepare.ts";
import { loadT5Tokenizer } from "../../steps/qa/fid/t5-tokenizer.ts";
import { tokenF1 } from "../../steps/qa/scoring.ts";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { tempDir } from "../tmp.ts";
import { PYTHON, program, selftests } from "./python.ts";
import { fixtureExamples, fixtureVocab } from "./reader-fixture.ts";
import { trainTinySpm } from "./spm-fixture.ts";
import { writeFidInputs } from "./fid-fixture.ts";
import { keptEpoch, type SelectionResult } from "./selection.ts";

const READER = program("qa.dpr_reader.train_reader");
const FID = program("qa.fid.fid");

test("token F1 as the scorer computes it; the rule: EM first, then F1, a full tie keeps the kept one", () => {
  const pairs: [string[], string][] = [
    [["The cat sat on the mat"], "cat sat"],
    [["a b c"], "c b a"],
    [["one two two"], "two two two"],
    [["x y", "nothing alike"], "y z"],
    [["The"], ""],
    [["cat"], ""],
    [[], "cat"],
  ];
  const score = (em: number, f1: number) => ({ em, f1, questions: 10 });
  const [f1s, dev, rule] = selftests([...READER, "--selftest"], [
    ["token_f1", { pairs }],
    ["dev_score", { golds: [["Paris"], ["in Oslo", "Oslo"], ["a long sentence here"]], predictions: ["paris", "Oslo.", "long sentence"] }],
    ["selection", { pairs: [[score(0.1, 0.2), null], [score(0.1, 0.3), score(0.1, 0.2)], [score(0.1, 0.2), score(0.1, 0.2)], [score(0.0, 0.9), score(0.1, 0.2)], [score(0.2, 0.0), score(0.1, 0.9)]] }],
  ]) as [number[], { em: number; f1: number; questions: number }, boolean[]];
  // Hand values: 2*(1*0.5)/1.5 = 2/3; all three tokens; 2 of 3 each way; max over golds 0.5; both empty (articles go); one empty; no gold.
  assert.deepEqual(f1s.map((x) => Math.round(x * 1e6) / 1e6), [0.666667, 1, 0.666667, 0.5, 1, 0, 0]);
  pairs.forEach(([golds, p], i) => golds.length > 0 && assert.ok(Math.abs(f1s[i]! - Math.max(...golds.map((g) => tokenF1(g, p)))) < 1e-12, `case ${i}`));
  // EM 2 of 3; F1 (1 + 1 + 0.8) / 3: "long sentence" against "long sentence here" (a dropped) is 2*(1*2/3)/(5/3).
  assert.equal(dev.questions, 3);
  assert.ok(Math.abs(dev.em - 2 / 3) < 1e-12 && Math.abs(dev.f1 - (2 + 0.8) / 3) < 1e-12, JSON.stringify(dev));
  assert.deepEqual(rule, [true, true, false, false, true]);
});

function readerInputs(dir: string): Promise<string> {
  const enc = createBertTokenizer(fixtureVocab());
  const inputs = join(dir, "inputs");
  const o = { maxLength: 48, maxQuestionLength: 20, trainPassages: 3, devPassages: 3, maxSpans: 4 };
  return prepareReaderInputs(enc, fixtureExamples(24, 1, "t"), fixtureExamples(8, 2, "d"), o, inputs).then(() => {
    writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: enc.vocabDigest, vocabSize: enc.vocabSize, sepId: enc.special.sep, clsId: enc.special.cls, maxLength: o.maxLength, maxQuestionLength: o.maxQuestionLength }));
    return inputs;
  });
}

/** Runs a trainer; returns its result.json and metrics.jsonl rows. */
function trained(argv: string[], dir: string, name: string, config: object, init: string[]): { result: SelectionResult & { dev_em: number; dev_f1: number }; rows: { epoch: number; steps: number }[]; out: string } {
  const cfg = join(dir, `${name}.json`);
  writeFileSync(cfg, JSON.stringify(config));
  const out = join(dir, name);
  const r = spawnSync(PYTHON, [...argv, "--config", cfg, "--out", out, ...init], { encoding: "utf8", timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  const rows = readFileSync(join(out, "metrics.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as { epoch: number; steps: number });
  return { result: JSON.parse(readFileSync(join(out, "result.json"), "utf8")) as SelectionResult & { dev_em: number; dev_f1: number }, rows, out };
}

/** Checks a fine-tuning with start_is_candidate: epoch 0 scored first with no step; kept on a tie, with the start's weights. */
function checkStartKept(ft: ReturnType<typeof trained>, start: ReturnType<typeof trained>, weights: string): void {
  assert.deepEqual(ft.rows.map((r) => [r.epoch, r.steps === 0]), [[0, true], [1, false]]);
  assert.equal(ft.result.best_epoch, 0, JSON.stringify(ft.result));
  assert.equal(keptEpoch(ft.result), 0);
  // The start answers as it did when it was the kept epoch of its own training.
  assert.equal(ft.result.dev_em_per_epoch["0"], start.result.dev_em);
  assert.equal(ft.result.dev_f1_per_epoch["0"], start.result.dev_f1);
  assert.equal(ft.result.dev_em_per_epoch["1"], ft.result.dev_em_per_epoch["0"], "lr 1e-12: the same answers");
  assert.deepEqual(readFileSync(join(ft.out, "dev_predictions.json"), "utf8"), readFileSync(join(start.out, "dev_predictions.json"), "utf8"));
  assert.ok(readFileSync(join(ft.out, weights)).equals(readFileSync(join(start.out, weights))), `${weights}: the start's weights, bit for bit`);
}

test("the DPR reader: the start is epoch 0 when start_is_candidate, and is kept when no epoch beats it", async () => {
  const dir = tempDir("cspipe-reader-select-");
  const inputs = await readerInputs(dir);
  const bert = { hidden_size: 32, num_hidden_layers: 1, num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 64, hidden_dropout_prob: 0, attention_probs_dropout_prob: 0 };
  const common = { batch_size: 8, passages_per_question: 3, max_answer_length: 4, eval_top_docs: 3, export_onnx: false };
  const argv = [...READER, "--inputs", inputs];
  const start = trained(argv, dir, "start", { ...common, epochs: 2, lr: 1e-3, init: { kind: "random", bert_config: bert } }, []);
  assert.equal(start.rows[0]!.epoch, 1, "no epoch 0 by default");
  const ft = trained(argv, dir, "ft", { ...common, epochs: 1, lr: 1e-12, start_is_candidate: true }, ["--init-from", start.out]);
  checkStartKept(ft, start, "reader.safetensors");
});

test("FiD: the start is epoch 0 when start_is_candidate, and is kept when no epoch beats it", () => {
  const dir = tempDir("cspipe-fid-select-");
  const tok = loadT5Tokenizer(trainTinySpm(dir));
  const o = { nContext: 3, passageLength: 40, questionLength: 16 };
  const { inputs } = writeFidInputs(dir, tok, fixtureExamples(24, 1, "t"), fixtureExamples(8, 2, "d"), o, 8);
  const common = { batch_size: 8, n_context: 3, answer_max_length: 8 };
  const argv = [...FID, "train", "--inputs", inputs];
  const start = trained(argv, dir, "start", { ...common, epochs: 2, lr: 3e-3, init: { kind: "random", t5_config: { d_model: 32, d_kv: 8, d_ff: 64, num_layers: 1, num_heads: 2, dropout_rate: 0 } } }, []);
  const ft = trained(argv, dir, "ft", { ...common, epochs: 1, lr: 1e-12, start_is_candidate: true }, ["--init-from", start.out]);
  checkStartKept(ft, start, "fid.safetensors");
});
