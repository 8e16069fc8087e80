/**
 * Token ids and models must share one vocabulary: sizes catch ids past the embedding table,
 * sha256 digests catch two different vocabularies of the same size. The TypeScript checks
 * (encode steps, assemble) and the trainer's (initial model vs inputs) are tested here.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkTokensFitModel, checkTokensFitModelDirs, modelVocab, sameVocabulary, tokensVocab, type VocabRecord } from "../../steps/encoding/vocab-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { tempDir } from "../engine/helpers.ts";
import { TEST_BERT, runTrainer, writeSyntheticInputs } from "../training/python.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const rec = (file: string, size?: number, digest?: string): VocabRecord => ({ file, sizeField: "vocabSize", digestField: "vocabDigest", ...(size ? { size } : {}), ...(digest ? { digest } : {}) });
const model = (size?: number, digest?: string): VocabRecord => ({ ...rec("model/config.json", size, digest), sizeField: "vocab_size", digestField: "cspipe.vocab_digest" });

test("tokens from a larger vocabulary than the model's embedding table are refused, naming both files and the fix", () => {
  checkTokensFitModel(rec("t", 30522), model(30522));
  checkTokensFitModel(rec("t", 8000), model(30522));
  assert.throws(
    () => checkTokensFitModel(rec("tokens/meta.json", 30522), model(8000)),
    (e: unknown) =>
      e instanceof InputError &&
      /vocabulary of 30522 ids, but the model's embedding table has 8000 rows \(model\/config\.json\)/.test(e.message) &&
      e.file === "tokens/meta.json" &&
      e.field === "vocabSize" &&
      /import-bert-vocab/.test(e.fix ?? ""),
  );
});

test("tokens from a different vocabulary of the same size are refused by digest", () => {
  checkTokensFitModel(rec("t", 8000, A), model(8000, A));
  checkTokensFitModel(rec("t", 8000, A), model(8000)); // the model records no digest: size only
  assert.throws(
    () => checkTokensFitModel(rec("tokens/meta.json", 8000, A), model(8000, B)),
    (e: unknown) =>
      e instanceof InputError &&
      e.message.includes(`the tokens come from vocabulary ${"a".repeat(12)}…, but the model was trained on vocabulary ${"b".repeat(12)}… (model/config.json, cspipe.vocab_digest)`) &&
      e.file === "tokens/meta.json" &&
      e.field === "vocabDigest",
  );
});

test("sameVocabulary returns the shared digest, ignores records without one, and names the odd one out", () => {
  assert.equal(sameVocabulary([]), undefined);
  assert.equal(sameVocabulary([rec("p"), rec("q")]), undefined);
  assert.equal(sameVocabulary([rec("p", 1, A), rec("q"), rec("r", 1, A)]), A);
  assert.throws(
    () => sameVocabulary([rec("passages/meta.json", 1, A), rec("train/meta.json", 1, A), rec("dev/meta.json", 1, B)]),
    (e: unknown) => e instanceof InputError && e.file === "dev/meta.json" && /differs from a{12}… recorded in passages\/meta\.json/.test(e.message),
  );
});

test("the directory readers take meta.json and config.json, skip what is not recorded, and refuse bad values", () => {
  const dir = tempDir("cspipe-vocab-id-");
  const tokens = join(dir, "tokens");
  const m = join(dir, "model");
  for (const d of [tokens, m]) mkdirSync(d);
  checkTokensFitModelDirs(tokens, m); // nothing recorded: skipped
  writeFileSync(join(tokens, "meta.json"), JSON.stringify({ vocabSize: 9000, vocabDigest: A }));
  checkTokensFitModelDirs(tokens, m); // model unknown (e.g. an ONNX-only directory): skipped
  assert.deepEqual(tokensVocab(tokens), { file: join(tokens, "meta.json"), sizeField: "vocabSize", digestField: "vocabDigest", size: 9000, digest: A });
  writeFileSync(join(m, "config.json"), JSON.stringify({ vocab_size: 9000, cspipe: { vocab_digest: A } }));
  checkTokensFitModelDirs(tokens, m);
  assert.equal(modelVocab(m).digest, A);
  writeFileSync(join(m, "config.json"), JSON.stringify({ vocab_size: 8999 }));
  assert.throws(() => checkTokensFitModelDirs(tokens, m), /vocabulary of 9000 ids, but the model's embedding table has 8999 rows/);
  writeFileSync(join(m, "config.json"), JSON.stringify({ vocab_size: 9000, cspipe: { vocab_digest: B } }));
  assert.throws(() => checkTokensFitModelDirs(tokens, m), /the model was trained on vocabulary b{12}…/);
  writeFileSync(join(m, "config.json"), JSON.stringify({ vocab_size: "big" }));
  assert.throws(() => checkTokensFitModelDirs(tokens, m), /vocab_size must be a positive integer, got "big"/);
  writeFileSync(join(m, "config.json"), JSON.stringify({ vocab_size: 9000, cspipe: { vocab_digest: "abc" } }));
  assert.throws(() => checkTokensFitModelDirs(tokens, m), /cspipe\.vocab_digest must be a sha256 hex string, got "abc"/);
  writeFileSync(join(m, "config.json"), "{");
  assert.throws(() => checkTokensFitModelDirs(tokens, m), (e: unknown) => e instanceof InputError && e.file === join(m, "config.json") && /not valid JSON/.test(e.message));
});

// --- the trainer: records the digest of its inputs, refuses an initial model trained on another ---

const root = tempDir("cspipe-vocab-train-");
const VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ...Array.from({ length: 395 }, (_, i) => `w${i}`)];
const VOCAB_TEXT = VOCAB.map((t) => `${t}\n`).join("");
const DIGEST = createHash("sha256").update(VOCAB_TEXT).digest("hex");

function inputsWithDigest(name: string, digest: string | undefined): string {
  const d = join(root, name);
  writeSyntheticInputs(d);
  if (digest) writeFileSync(join(d, "meta.json"), JSON.stringify({ vocabDigest: digest }));
  return d;
}

function train(name: string, inputs: string, extra: string[], init?: unknown): { status: number | null; stderr: string; out: string } {
  const cfg = join(root, `${name}.json`);
  // Raw config: the trainer fills its defaults; with --init-from there is no init key.
  writeFileSync(cfg, JSON.stringify({ epochs: 1, batch_size: 32, n_hard_negatives: 0, export_onnx: false, ...(init ? { init } : {}) }));
  const out = join(root, `${name}-out`);
  const r = runTrainer(["--config", cfg, "--inputs", inputs, "--out", out, ...extra]);
  return { status: r.status, stderr: r.stderr, out };
}

const vocabFile = join(root, "vocab.txt");
// CRLF line ends and no final newline: the digest is of the canonical text, as the tokenizers compute it
writeFileSync(vocabFile, VOCAB.join("\r\n"));
const first = train("first", inputsWithDigest("in-a", DIGEST), ["--vocab", vocabFile], { kind: "random", bert_config: { ...TEST_BERT, vocab_size: undefined } });

test("train.py records the vocabulary digest its inputs and --vocab agree on in config.json", () => {
  assert.equal(first.status, 0, first.stderr);
  const config = JSON.parse(readFileSync(join(first.out, "config.json"), "utf8")) as { vocab_size: number; cspipe: { vocab_digest?: string } };
  assert.equal(config.vocab_size, 400);
  assert.equal(config.cspipe.vocab_digest, DIGEST);
});

test("train.py refuses --vocab and inputs that name different vocabularies, before writing anything", () => {
  const r = train("mismatch-vocab", inputsWithDigest("in-b", B), ["--vocab", vocabFile], { kind: "random", bert_config: { ...TEST_BERT, vocab_size: undefined } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /error: .*vocab\.txt: field 'sha256': vocabulary mismatch: sha256 is [0-9a-f]{12}… but .*in-b\/meta\.json records vocabDigest b{12}…/);
  assert.ok(!existsSync(r.out));
});

test("train.py --init-from refuses inputs tokenized with another vocabulary than the initial model's", () => {
  const again = train("same", inputsWithDigest("in-a2", DIGEST), ["--init-from", first.out]);
  assert.equal(again.status, 0, again.stderr);
  const other = train("other", inputsWithDigest("in-c", B), ["--init-from", first.out]);
  assert.equal(other.status, 2, other.stderr);
  assert.match(other.stderr, new RegExp(`error: .*first-out/config\\.json: field 'cspipe\\.vocab_digest': vocabulary mismatch: cspipe\\.vocab_digest is ${DIGEST.slice(0, 12)}… but .*in-c/meta\\.json records vocabDigest b{12}…`));
  assert.match(other.stderr, /Fix: tokenize queries and passages with the vocabulary the initial model was trained with/);
  // inputs that record nothing are not checked (hand-made inputs); the model keeps its digest
  const bare = train("bare", inputsWithDigest("in-none", undefined), ["--init-from", first.out]);
  assert.equal(bare.status, 0, bare.stderr);
  const config = JSON.parse(readFileSync(join(bare.out, "config.json"), "utf8")) as { cspipe: { vocab_digest?: string } };
  assert.equal(config.cspipe.vocab_digest, DIGEST);
});

test("assemble-dpr-examples refuses queries and passages tokenized with different vocabularies", async () => {
  const { assembleExamples } = await import("../../steps/training/assemble-step.ts");
  const dir = tempDir("cspipe-vocab-assemble-");
  const dirs = Object.fromEntries(["passages", "trainQueries", "devQueries"].map((k) => [k, join(dir, k)])) as Record<"passages" | "trainQueries" | "devQueries", string>;
  for (const [k, d] of Object.entries(dirs)) {
    mkdirSync(d);
    writeFileSync(join(d, "meta.json"), JSON.stringify({ vocabSize: 400, vocabDigest: k === "devQueries" ? B : A }));
  }
  const runtime = assembleExamples.runtime as { run(ctx: unknown): Promise<void> };
  const ctx = { params: { trainSplit: "train", devSplit: "dev", k: 100, devPassages: 0, seed: 42 }, inputs: { ...dirs, turns: join(dir, "missing.parquet") }, outputs: { examples: join(dir, "out") }, log: () => {}, progress: () => {} };
  await assert.rejects(runtime.run(ctx), (e: unknown) => e instanceof InputError && e.file === join(dirs.devQueries, "meta.json") && /recorded in .*passages\/meta\.json/.test(e.message));
});
