/**
 * End-to-end QA throughput, two measurements in one run:
 *
 * 1. DPR reader questions/s, each question read over its top `--passages` passages (50, the
 *    reader's eval_top_docs upstream) in one batch: onnxruntime-node through the pipeline's own
 *    predict path (steps/qa/dpr_reader/predict.ts: pair building, one ONNX run, best passage,
 *    best span, whole words) against torch through the trainer's (reader_train_loop.answer, the
 *    dev evaluation's path), on one reader: a seeded random reader of the mini shape written by
 *    train_reader.py with 0 epochs (reader.safetensors for torch, reader.onnx for Node). Threads
 *    swept over 1 .. the cores for both (onnxruntime intra-op threads; torch set_num_threads with
 *    OMP/OpenBLAS threads to match, one process per thread count timing eager no_grad and then
 *    inference_mode);
 *    medians over `--repeats`, alternating engines; the best of each engine compared. The
 *    passages' tokens are cached by a first pass (as predict-dpr-reader caches them across
 *    questions), so both sides time the same work on pre-tokenized passages; the cold first pass
 *    (tokenizing every passage) is printed beside it. Both must give the same answers.
 * 2. FiD greedy generation tokens/s with torch (the trainer's FiDT5.generate) on a seeded
 *    random T5 of the mini shape, per thread count (bench/qa/fid_generate.py).
 *
 *   npx tsx bench/qa/main.ts [--questions 64] [--passages 50] [--seq 160] [--repeats 3] [--threads 1,2] [--quick]
 *   (--quick: 6 questions of 10 passages, 1 repeat, FiD 4 questions; for the test of its shape)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createBertTokenizer } from "../../steps/encoding/tokenize/bert-tokenizer.ts";
import { prepareReaderInputs } from "../../steps/qa/dpr_reader/prepare.ts";
import { openReader, predictOne, type ReaderSettings } from "../../steps/qa/dpr_reader/predict.ts";
import type { ReaderPassageTokens } from "../../steps/qa/dpr_reader/inputs.ts";
import { MINI_BERT } from "../../pipeline/definitions/dense/setup.ts";
import { MINI_T5 } from "../../pipeline/definitions/qa/setup.ts";
import { median } from "../engine/stats.ts";
import { pythonCommand, pythonPathEnv } from "../../steps/pytrain/launch.ts";
import { benchVocab, syntheticExamples } from "./synthetic.ts";

const { values } = parseArgs({
  options: {
    questions: { type: "string" },
    passages: { type: "string", default: "50" },
    seq: { type: "string", default: "160" },
    repeats: { type: "string" },
    threads: { type: "string" },
    python: { type: "string", default: process.env.CSPIPE_PYTHON ?? "/usr/bin/python3" },
    quick: { type: "boolean", default: false },
  },
});
const quick = values.quick;
const questions = Number(values.questions ?? (quick ? 6 : 64));
const passages = quick ? Math.min(10, Number(values.passages)) : Number(values.passages);
const seq = Number(values.seq);
const repeats = Number(values.repeats ?? (quick ? 1 : 3));
const PY = values.python;
/** The thread sweep: 1 .. every core the process may use, or the --threads list. */
const THREADS = values.threads !== undefined ? values.threads.split(",").map(Number) : Array.from({ length: availableParallelism() }, (_, i) => i + 1);
if (THREADS.some((t) => !Number.isInteger(t) || t < 1)) throw new Error(`--threads ${values.threads}: expected comma-separated integers >= 1`);
const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const ROOT = here("../..");
const TRAINER = pythonCommand(ROOT, "qa.dpr_reader.train_reader");
/** The mini QReCC reader's question budget (pipeline/definitions/qa/setup.ts) and its longest answer on mini-nq. */
const settings: ReaderSettings = { maxLength: seq, maxQuestionLength: 48, maxAnswerLength: 10, topDocs: passages };

function python(args: readonly string[], threads: number): { stdout: string } {
  const env = { ...process.env, ...pythonPathEnv(ROOT), OMP_NUM_THREADS: String(threads), OPENBLAS_NUM_THREADS: String(threads) };
  const r = spawnSync(PY, args, { encoding: "utf8", env, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${args[0]} failed (exit ${r.status}): ${r.stderr}`);
  return { stdout: r.stdout };
}
const lastJson = <T>(out: string): T => JSON.parse(out.trim().split("\n").at(-1)!) as T;

type Row = { name: string; med: number; min: number; max: number };
const summarise = (results: Map<string, number[]>): Row[] => [...results].map(([name, v]) => ({ name, med: median(v), min: Math.min(...v), max: Math.max(...v) }));
function table(rows: readonly Row[], unit: string, peer: Row | null): void {
  console.log(`\n| engine, configuration | ${unit} (median) | min | max |${peer ? " vs best torch |" : ""}`);
  console.log(`|---|---:|---:|---:|${peer ? "---:|" : ""}`);
  for (const x of rows) console.log(`| ${x.name} | ${x.med.toFixed(1)} | ${x.min.toFixed(1)} | ${x.max.toFixed(1)} |${peer ? ` ${(x.med / peer.med).toFixed(2)}x |` : ""}`);
}
const bestOf = (rows: readonly Row[], prefix: string): Row => rows.filter((x) => x.name.startsWith(prefix)).sort((a, b) => b.med - a.med)[0]!;

const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-qa-"));
try {
  // ---- the reader and its inputs ----------------------------------------------------------------
  const encoder = createBertTokenizer(benchVocab());
  const passageWords = seq - settings.maxQuestionLength; // rows fill the budget: [CLS] q [SEP] title [SEP] text [SEP] is cut at seq
  const examples = syntheticExamples({ questions, passages, passageWords, questionWords: 12, seed: 1 });
  const inputs = join(dir, "inputs");
  await prepareReaderInputs(encoder, examples, examples, { maxLength: seq, maxQuestionLength: settings.maxQuestionLength, trainPassages: passages, devPassages: passages, maxSpans: 4 }, inputs);
  writeFileSync(join(inputs, "meta.json"), JSON.stringify({ vocabDigest: encoder.vocabDigest, vocabSize: encoder.vocabSize, sepId: encoder.special.sep, clsId: encoder.special.cls, maxLength: seq, maxQuestionLength: settings.maxQuestionLength }));
  const cfg = join(dir, "cfg.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 0, dev_questions: 1, eval_top_docs: passages, max_answer_length: settings.maxAnswerLength, seed: 1, init: { kind: "random", bert_config: { ...MINI_BERT, max_position_embeddings: Math.max(512, seq) } } }));
  const model = join(dir, "reader");
  python([...TRAINER, "--config", cfg, "--inputs", inputs, "--out", model, "--threads", "1"], 1);
  const shape = `${MINI_BERT.num_hidden_layers} layers, hidden ${MINI_BERT.hidden_size}`;
  console.log(`qa bench: DPR reader (${shape}, the mini reader's shape, random weights) on ${questions} questions x ${passages} passages of ${seq} tokens; ${repeats} repeat(s); threads ${THREADS.join(",")} of ${availableParallelism()} cores`);

  const reader = new Map<string, number[]>();
  const push = (m: Map<string, number[]>, name: string, v: number) => m.set(name, [...(m.get(name) ?? []), v]);
  let torchVersion = "";
  let agree = "";
  let cold = 0;
  for (let r = 0; r < repeats; r++) {
    for (const threads of THREADS) {
      const session = await openReader(join(model, "reader.onnx"), threads);
      const cache = new Map<string, ReaderPassageTokens>();
      let t0 = performance.now();
      for (const ex of examples) await predictOne(session, encoder, ex, settings, cache); // first pass: tokenizes every passage
      if (r === 0 && threads === 1) cold = questions / ((performance.now() - t0) / 1000);
      t0 = performance.now();
      const nodeAnswers: string[] = [];
      for (const ex of examples) nodeAnswers.push((await predictOne(session, encoder, ex, settings, cache)).prediction);
      push(reader, `onnxruntime-node, ${threads} thread(s)`, questions / ((performance.now() - t0) / 1000));
      await session.release();
      const out = python([here("./torch_reader.py"), "--model", model, "--inputs", inputs, "--threads", String(threads), "--modes", "eager,inference", "--top-docs", String(passages), "--max-answer", String(settings.maxAnswerLength)], threads);
      const lines = out.stdout.trim().split("\n").filter((l) => l.startsWith("{"));
      if (lines.length !== 2) throw new Error(`torch_reader.py printed ${lines.length} results, expected eager and inference`);
      for (const line of lines) {
        const j = JSON.parse(line) as { mode: string; questions_per_s: number; answers: string[]; torch: string };
        torchVersion = j.torch;
        push(reader, `torch ${torchVersion}, ${j.mode}, ${threads} thread(s)`, j.questions_per_s);
        const same = j.answers.filter((a, i) => a === nodeAnswers[i]).length;
        if (same !== questions) throw new Error(`torch (${j.mode}) and onnxruntime-node answer differently: ${same}/${questions} agree`);
        agree = `${same}/${questions}`;
      }
    }
    console.log(`  reader repeat ${r + 1}/${repeats} done`);
  }
  const rows = summarise(reader);
  const torchReader = bestOf(rows, "torch");
  const ort = bestOf(rows, "onnxruntime");
  table(rows, "questions/s", torchReader);
  console.log(`\nanswers: onnxruntime-node and torch agree on ${agree} questions`);
  console.log(`cold first pass (tokenizing every passage in Node), 1 thread: ${cold.toFixed(1)} questions/s`);
  console.log(`best onnxruntime-node: ${ort.name} ${ort.med.toFixed(1)} questions/s; best torch: ${torchReader.name} ${torchReader.med.toFixed(1)} questions/s`);
  console.log(`reader, onnxruntime-node / torch, each at its best: ${(ort.med / torchReader.med).toFixed(2)}x`);

  // ---- FiD generation ---------------------------------------------------------------------------
  const fidQuestions = quick ? 4 : 32;
  const fid = { contexts: 3, passageLen: 96, answerLen: 40 };
  console.log(`\nFiD greedy generation (torch, the trainer's FiDT5.generate): T5 d_model ${MINI_T5.d_model}, ${MINI_T5.num_layers}+${MINI_T5.num_layers} layers (the mini T5, random weights), ${fidQuestions} questions x ${fid.contexts} passages of ${fid.passageLen} tokens, ${fid.answerLen} tokens generated each, batch 1`);
  const gen = new Map<string, number[]>();
  const decode = new Map<string, number>();
  for (let r = 0; r < repeats; r++) {
    for (const threads of THREADS) {
      const args = ["--threads", String(threads), "--questions", String(fidQuestions), "--contexts", String(fid.contexts), "--passage-len", String(fid.passageLen), "--answer-len", String(fid.answerLen),
        "--d-model", String(MINI_T5.d_model), "--d-kv", String(MINI_T5.d_kv), "--d-ff", String(MINI_T5.d_ff), "--layers", String(MINI_T5.num_layers), "--heads", String(MINI_T5.num_heads)];
      const j = lastJson<{ tokens_per_s: number; decode_tokens_per_s: number; tokens: number; torch: string }>(python([here("./fid_generate.py"), ...args], threads).stdout);
      if (j.tokens !== fidQuestions * fid.answerLen) throw new Error(`FiD generated ${j.tokens} tokens, expected ${fidQuestions * fid.answerLen}`);
      const name = `torch ${j.torch}, ${threads} thread(s)`;
      push(gen, name, j.tokens_per_s);
      decode.set(name, j.decode_tokens_per_s);
    }
  }
  const fidRows = summarise(gen);
  table(fidRows, "tokens/s", null);
  const fidBest = bestOf(fidRows, "torch");
  console.log(`\nFiD best: ${fidBest.name} ${fidBest.med.toFixed(0)} tokens/s (${(fidBest.med / fid.answerLen).toFixed(1)} questions/s; decoder alone, encoding subtracted: ${decode.get(fidBest.name)!.toFixed(0)} tokens/s in the last repeat)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
