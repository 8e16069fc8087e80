/**
 * θ0 from an HF DPR checkpoint: a tiny fake checkpoint (2 layers x 32, HF DPR tensor names,
 * model_type "dpr" configs, saved with torch.save) goes through `assemble-hf-dpr-checkpoint`
 * and `import-dpr-checkpoint` (the trainer with epochs 0, run by the local executor). The
 * exported tensors must equal the source bytes exactly, and the exported query/passage ONNX
 * encoders must reproduce the [CLS] vector that an independent plain-torch BERT forward (in
 * the fixture script) computes from the source weights.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import * as ort from "onnxruntime-node";
import { defineStep, dir, use } from "../../pipeline/engine/step.ts";
import { parseLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { assembleHfDprCheckpoint, checkDprConfig, DPR_NQ_LOCK_ENTRIES, DPR_NQ_LOCK_FILES, importDprCheckpoint } from "../../steps/training/import-steps.ts";
import { readTrainingResult, TRAINING_OUTPUT_FILES } from "../../steps/training/contract.ts";
import { project, registry, ROOT, run, tempDir } from "../engine/helpers.ts";
import { PYTHON, TEST_BERT, runTrainer, writeSyntheticInputs } from "./python.ts";

const FIXTURE_SOURCE = join(tempDir(), "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");

/**
 * Writes question_encoder/ and ctx_encoder/ (pytorch_model.bin + config.json) under argv[1]
 * and prints JSON: per source tensor its shape and the sha256 of its float32 little-endian
 * bytes, and the [CLS] vectors of an independent BERT forward for REF_IDS.
 */
const FIXTURE_PY = String.raw`
import hashlib, json, math, os, sys
import numpy as np
import torch
out = sys.argv[1]
C = dict(vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
         max_position_embeddings=40, type_vocab_size=2, layer_norm_eps=1e-12)
g = torch.Generator().manual_seed(11)
def rnd(*shape, base=0.0):
    return (base + 0.2 * torch.randn(*shape, generator=g)).float()
def bert():
    H, I = C["hidden_size"], C["intermediate_size"]
    s = {"embeddings.word_embeddings.weight": rnd(C["vocab_size"], H),
         "embeddings.position_embeddings.weight": rnd(C["max_position_embeddings"], H),
         "embeddings.token_type_embeddings.weight": rnd(C["type_vocab_size"], H),
         "embeddings.LayerNorm.weight": rnd(H, base=1.0), "embeddings.LayerNorm.bias": rnd(H)}
    for i in range(C["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        for n in ("query", "key", "value"):
            s[p + f"attention.self.{n}.weight"], s[p + f"attention.self.{n}.bias"] = rnd(H, H), rnd(H)
        s[p + "attention.output.dense.weight"], s[p + "attention.output.dense.bias"] = rnd(H, H), rnd(H)
        s[p + "attention.output.LayerNorm.weight"], s[p + "attention.output.LayerNorm.bias"] = rnd(H, base=1.0), rnd(H)
        s[p + "intermediate.dense.weight"], s[p + "intermediate.dense.bias"] = rnd(I, H), rnd(I)
        s[p + "output.dense.weight"], s[p + "output.dense.bias"] = rnd(H, I), rnd(H)
        s[p + "output.LayerNorm.weight"], s[p + "output.LayerNorm.bias"] = rnd(H, base=1.0), rnd(H)
    return s
def ln(x, w, b):
    mu = x.mean(-1, keepdim=True); var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + C["layer_norm_eps"]) * w + b
def lin(s, name, x):
    return x @ s[name + ".weight"].T + s[name + ".bias"]
def cls_vector(s, ids, types):
    ids, types = torch.tensor(ids), torch.tensor(types)
    L, H, nh = ids.shape[1], C["hidden_size"], C["num_attention_heads"]; d = H // nh
    x = s["embeddings.word_embeddings.weight"][ids] + s["embeddings.position_embeddings.weight"][:L][None] \
        + s["embeddings.token_type_embeddings.weight"][types]
    x = ln(x, s["embeddings.LayerNorm.weight"], s["embeddings.LayerNorm.bias"])
    neg = torch.where(ids != 0, 0.0, -1e9)[:, None, None, :]
    for i in range(C["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        heads = lambda t: t.view(t.shape[0], L, nh, d).transpose(1, 2)
        q, k, v = (heads(lin(s, p + f"attention.self.{n}", x)) for n in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + neg, -1) @ v
        a = a.transpose(1, 2).reshape(x.shape[0], L, H)
        x = ln(lin(s, p + "attention.output.dense", a) + x, s[p + "attention.output.LayerNorm.weight"], s[p + "attention.output.LayerNorm.bias"])
        h = lin(s, p + "intermediate.dense", x); h = 0.5 * h * (1 + torch.erf(h / math.sqrt(2)))
        x = ln(lin(s, p + "output.dense", h) + x, s[p + "output.LayerNorm.weight"], s[p + "output.LayerNorm.bias"])
    return x[:, 0]
REF_IDS = [[2, 7, 11, 13, 5, 3, 0, 0], [2, 40, 59, 3, 0, 0, 0, 0]]
REF_TYPES = [[0, 0, 0, 0, 1, 1, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]
result = {"tensors": {}, "reference": {"input_ids": REF_IDS, "token_type_ids": REF_TYPES}}
for role, arch, prefix in (("question", "DPRQuestionEncoder", "question_encoder.bert_model."),
                           ("ctx", "DPRContextEncoder", "ctx_encoder.bert_model.")):
    s = bert()
    state = {prefix + k: v for k, v in s.items()}
    # what released HF DPR files also hold: a pooler and the position_ids buffer (both unused)
    state[prefix + "pooler.dense.weight"], state[prefix + "pooler.dense.bias"] = rnd(32, 32), rnd(32)
    state[prefix + "embeddings.position_ids"] = torch.arange(C["max_position_embeddings"])[None]
    d = os.path.join(out, role + "_encoder"); os.makedirs(d, exist_ok=True)
    torch.save(state, os.path.join(d, "pytorch_model.bin"))
    cfg = {**C, "model_type": "dpr", "architectures": [arch], "hidden_act": "gelu", "projection_dim": 0, "pad_token_id": 0,
           "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1, "initializer_range": 0.02}
    with open(os.path.join(d, "config.json"), "w") as f: json.dump(cfg, f)
    result["tensors"][role] = {k: {"shape": list(v.shape), "sha256": hashlib.sha256(v.numpy().astype("<f4").tobytes()).hexdigest()} for k, v in s.items()}
    with torch.no_grad():
        result["reference"][role] = cls_vector(s, REF_IDS, REF_TYPES).tolist()
print(json.dumps(result))
`;

interface Fixture {
  tensors: Record<"question" | "ctx", Record<string, { shape: number[]; sha256: string }>>;
  reference: { input_ids: number[][]; token_type_ids: number[][]; question: number[][]; ctx: number[][] };
}

const root = tempDir("cspipe-import-dpr-");
const hf = join(root, "hf");
const gen = spawnSync(PYTHON, ["-c", FIXTURE_PY, hf], { encoding: "utf8", timeout: 60_000 });
if (gen.status !== 0) throw new Error(`fixture script failed: ${gen.stderr}`);
const fixture = JSON.parse(gen.stdout) as Fixture;

/** The four fetch directories, as fetch-dataset leaves them: one lock `file` each. */
function fetchedDirs(base: string): Record<keyof typeof DPR_NQ_LOCK_FILES, string> {
  const src = { questionWeights: "question_encoder/pytorch_model.bin", questionConfig: "question_encoder/config.json", contextWeights: "ctx_encoder/pytorch_model.bin", contextConfig: "ctx_encoder/config.json" } as const;
  const out = {} as Record<keyof typeof DPR_NQ_LOCK_FILES, string>;
  for (const [part, rel] of Object.entries(src) as [keyof typeof DPR_NQ_LOCK_FILES, string][]) {
    const d = join(base, part);
    mkdirSync(d, { recursive: true });
    copyFileSync(join(hf, rel), join(d, DPR_NQ_LOCK_FILES[part]));
    out[part] = d;
  }
  return out;
}

/** Stands in for fetch-dataset: publishes a prepared directory as a "fetched" output. */
const fakeFetch = defineStep({
  id: "test-fake-fetch",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({ from: z.string() }).strict(),
  inputs: {},
  outputs: { files: dir("fetched", "files") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      for (const f of readdirSync(ctx.params.from)) copyFileSync(join(ctx.params.from, f), join(ctx.outputs.files, f));
    },
  },
});

/** The checkpoint's vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK] and filler tokens, as many as its embedding rows (60). */
function vocabTxt(n: number): string {
  return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ...Array.from({ length: n - 5 }, (_, i) => `tok${i}`)].map((t) => `${t}\n`).join("");
}
const VOCAB_60 = vocabTxt(60);

/** Stands in for import-bert-vocab. */
const fakeVocab = defineStep({
  id: "test-fake-vocab",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({ text: z.string() }).strict(),
  inputs: {},
  outputs: { vocab: dir("wordpiece:vocab", "vocab") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(join(ctx.outputs.vocab, "vocab.txt"), ctx.params.text);
    },
  },
});

function graph(dirs: Record<keyof typeof DPR_NQ_LOCK_FILES, string>, withImport: boolean) {
  const f = (part: keyof typeof DPR_NQ_LOCK_FILES) => use(fakeFetch, { name: `fetch-${part}`, params: { from: dirs[part] }, inputs: {} }).out.files;
  const ckpt = use(assembleHfDprCheckpoint, {
    name: "assemble",
    inputs: { questionWeights: f("questionWeights"), questionConfig: f("questionConfig"), contextWeights: f("contextWeights"), contextConfig: f("contextConfig") },
  });
  const vocab = use(fakeVocab, { name: "vocab", params: { text: VOCAB_60 }, inputs: {} }).out.vocab;
  return withImport ? [ckpt, use(importDprCheckpoint, { name: "import", inputs: { checkpoint: ckpt.out.checkpoint, vocab } })] : [ckpt];
}

async function runGraph(dirs: Record<keyof typeof DPR_NQ_LOCK_FILES, string>, withImport: boolean) {
  const p = project(registry({ t: () => graph(dirs, withImport) }));
  const r = await run(p, ["t"]);
  const result = "result" in r.outcome ? r.outcome.result : undefined;
  const out = (name: string, output: string): string => p.store.outputPath(result!.results.get(name)!.entry!, output);
  const failure = (name: string) => result?.failures.find((x) => x.step === name);
  return { r, out, failure };
}

const good = await runGraph(fetchedDirs(join(root, "fetched")), true);

/** name -> {shape, sha256 of the raw bytes} of a safetensors file, plus its dtype tags. */
function safetensorsDigests(path: string): Record<string, { dtype: string; shape: number[]; sha256: string }> {
  const buf = readFileSync(path);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString("utf8")) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const out: Record<string, { dtype: string; shape: number[]; sha256: string }> = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const bytes = buf.subarray(8 + n + info.data_offsets[0], 8 + n + info.data_offsets[1]);
    out[name] = { dtype: info.dtype, shape: info.shape, sha256: createHash("sha256").update(bytes).digest("hex") };
  }
  return out;
}

test("the default file names are the datasets.lock entries' files", () => {
  const lock = parseLockFile(readFileSync(join(ROOT, "datasets.lock"), "utf8"), "datasets.lock");
  for (const [part, entry] of Object.entries(DPR_NQ_LOCK_ENTRIES)) {
    assert.equal(lock.entries[entry]?.file, DPR_NQ_LOCK_FILES[part as keyof typeof DPR_NQ_LOCK_FILES], entry);
    assert.equal(lock.entries[entry]?.unpack, "none", entry);
  }
});

test("assemble-hf-dpr-checkpoint lays out question_encoder/ and ctx_encoder/ as hard links of the fetched files", () => {
  assert.equal(good.r.outcome.ok, true, JSON.stringify(good.failure("assemble") ?? good.failure("import")));
  const ck = good.out("assemble", "checkpoint");
  for (const role of ["question", "ctx"]) {
    for (const f of ["pytorch_model.bin", "config.json"]) {
      const placed = join(ck, `${role}_encoder`, f);
      assert.deepEqual(readFileSync(placed), readFileSync(join(hf, `${role}_encoder`, f)), placed);
    }
  }
  // one store: the weights are a second name of the fetch entry's file (link count 2), not a copy
  assert.equal(statSync(join(ck, "question_encoder", "pytorch_model.bin")).nlink, 2);
});

test("import-dpr-checkpoint writes a dpr:model: result.json says export-only, best_epoch 0, no steps", () => {
  const model = good.out("import", "model");
  for (const f of Object.values(TRAINING_OUTPUT_FILES)) assert.ok(existsSync(join(model, f)), f);
  const result = readTrainingResult(model);
  assert.equal(result.best_epoch, 0);
  assert.equal(result.export_only, true);
  assert.equal(result.steps, 0);
  assert.deepEqual(result.dev_recall_per_epoch, {});
  assert.equal(result.dev_recall_at_5, null);
  assert.equal(readFileSync(join(model, TRAINING_OUTPUT_FILES.metrics), "utf8"), "");
  const reports = result.load_reports as { prefix: string; loaded: number; unexpected: string[]; ignored: string[] }[];
  // 5 embedding tensors + 16 per layer; the pooler and position_ids are ignored, nothing unused
  assert.deepEqual(
    reports.map((x) => [x.prefix, x.loaded, x.unexpected.length, x.ignored.length]),
    [["question_encoder.bert_model.", 37, 0, 3], ["ctx_encoder.bert_model.", 37, 0, 3]],
  );
  const config = JSON.parse(readFileSync(join(model, TRAINING_OUTPUT_FILES.config), "utf8")) as Record<string, unknown>;
  assert.deepEqual([config.hidden_size, config.num_hidden_layers, config.vocab_size, config.max_position_embeddings], [32, 2, 60, 40]);
  // the vocabulary input is recorded by its sha256, the digest tokenization steps record
  assert.equal((config.cspipe as Record<string, unknown>).vocab_digest, createHash("sha256").update(VOCAB_60).digest("hex"));
});

test("train.py: a --vocab with more tokens than the checkpoint's embedding rows is a bad-input exit", () => {
  const cfg = join(root, "cfg-vocab.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 0, export_onnx: false }));
  const vocab = join(root, "vocab-61.txt");
  writeFileSync(vocab, vocabTxt(61));
  const r = runTrainer(["--config", cfg, "--out", join(root, "o-vocab"), "--init-hf-dpr", hf, "--vocab", vocab]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /error: .*vocab-61\.txt: the vocabulary has 61 tokens but the initial model's embedding table has 60 rows Fix: pass the vocabulary the initial model was trained with/);
  assert.ok(!existsSync(join(root, "o-vocab")), "nothing written");
});

for (const [file, role] of [[TRAINING_OUTPUT_FILES.queryWeights, "question"], [TRAINING_OUTPUT_FILES.passageWeights, "ctx"]] as const) {
  test(`${file}: every tensor equals the ${role} encoder's source tensor byte for byte`, () => {
    const got = safetensorsDigests(join(good.out("import", "model"), file));
    const want = fixture.tensors[role];
    assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort());
    for (const [name, w] of Object.entries(want)) assert.deepEqual(got[name], { dtype: "F32", shape: w.shape, sha256: w.sha256 }, name);
  });
}

for (const [name, role] of [["query_encoder", "question"], ["passage_encoder", "ctx"]] as const) {
  test(`${name}.onnx reproduces an independent torch BERT's [CLS] vector of the source weights (max abs diff < 1e-5)`, async () => {
    const model = good.out("import", "model");
    assert.ok(existsSync(join(model, "parity", name, "embedding.npy")), "parity fixture written");
    const session = await ort.InferenceSession.create(join(model, `${name}.onnx`));
    const ids = fixture.reference.input_ids;
    const dims = [ids.length, ids[0]!.length];
    const t = (rows: number[][]) => new ort.Tensor("int64", BigInt64Array.from(rows.flat(), (v) => BigInt(v)), dims);
    const got = (await session.run({ input_ids: t(ids), attention_mask: t(ids.map((r) => r.map((v) => (v !== 0 ? 1 : 0)))), token_type_ids: t(fixture.reference.token_type_ids) })).embedding!;
    assert.deepEqual(got.dims, [2, 32]);
    const want = fixture.reference[role].flat();
    const g = got.data as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < want.length; i++) maxDiff = Math.max(maxDiff, Math.abs(g[i]! - want[i]!));
    assert.ok(maxDiff < 1e-5, `max abs diff ${maxDiff}`);
    assert.ok(Math.max(...want.map(Math.abs)) > 0.1, "the reference is not trivially zero");
  });
}

test("a fetched directory without the expected file is a bad-input failure naming the directory, the file and the fix", async () => {
  const dirs = fetchedDirs(join(root, "missing"));
  rmSync(join(dirs.contextConfig, DPR_NQ_LOCK_FILES.contextConfig));
  writeFileSync(join(dirs.contextConfig, "config.json"), "{}");
  const { r, failure } = await runGraph(dirs, false);
  assert.equal(r.outcome.ok, false);
  const f = failure("assemble");
  assert.ok(f?.reason === "bad-input", JSON.stringify(f));
  assert.equal(f.field, "contextConfig");
  assert.ok(f.file?.endsWith("/files") === true, f.file);
  assert.match(f.message, /has no 'facebook--dpr-ctx_encoder-single-nq-base--config\.json' \(it holds: config\.json\)/);
  assert.match(f.fix ?? "", /lockedFiles\("dpr-nq-context-encoder-config"\)/);
});

test("a config.json that is not JSON, or not a DPR config, fails before anything is placed", async () => {
  const dirs = fetchedDirs(join(root, "badjson"));
  writeFileSync(join(dirs.questionConfig, DPR_NQ_LOCK_FILES.questionConfig), "<html>rate limited</html>");
  const bad = await runGraph(dirs, false);
  const f = bad.failure("assemble");
  assert.ok(f?.reason === "bad-input", JSON.stringify(f));
  assert.ok(f.file?.endsWith(DPR_NQ_LOCK_FILES.questionConfig) === true, f.file);
  assert.match(f.message, /not valid JSON/);

  const dirs2 = fetchedDirs(join(root, "notdpr"));
  const cfgPath = join(dirs2.contextConfig, DPR_NQ_LOCK_FILES.contextConfig);
  writeFileSync(cfgPath, JSON.stringify({ ...(JSON.parse(readFileSync(cfgPath, "utf8")) as object), num_hidden_layers: 3 }));
  const f2 = (await runGraph(dirs2, false)).failure("assemble");
  assert.ok(f2?.reason === "bad-input" && f2.field === "num_hidden_layers", JSON.stringify(f2));
  assert.match(f2.message, /num_hidden_layers is 3 for the context encoder but 2 for the question encoder/);
});

test("checkDprConfig: model_type, shape fields, activation and projection", () => {
  const ok = { model_type: "dpr", vocab_size: 60, hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 40, type_vocab_size: 2, projection_dim: 0 };
  assert.deepEqual(checkDprConfig(ok, "c.json"), { vocab_size: 60, hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 40, type_vocab_size: 2 });
  const err = (raw: unknown) => {
    try {
      checkDprConfig(raw, "c.json");
    } catch (e) {
      return (e as Error).message;
    }
    return "no error";
  };
  assert.equal(err([]), "c.json: config.json must be a JSON object Fix: use the config.json of an HF DPR encoder (e.g. facebook/dpr-question_encoder-single-nq-base)");
  assert.match(err({ ...ok, model_type: "bert" }), /^c\.json: field 'model_type': model_type is "bert", expected "dpr"/);
  assert.match(err({ ...ok, hidden_size: undefined }), /^c\.json: field 'hidden_size': expected a positive integer, got undefined/);
  assert.match(err({ ...ok, hidden_size: 33 }), /field 'hidden_size': hidden_size 33 is not a multiple of num_attention_heads 2/);
  assert.match(err({ ...ok, hidden_act: "relu" }), /field 'hidden_act'/);
  assert.match(err({ ...ok, position_embedding_type: "relative_key" }), /field 'position_embedding_type'/);
  assert.deepEqual(checkDprConfig({ ...ok, max_position_embeddings: undefined, type_vocab_size: undefined }, "c.json"), { vocab_size: 60, hidden_size: 32, num_hidden_layers: 2, num_attention_heads: 2, intermediate_size: 64, max_position_embeddings: 512, type_vocab_size: 2 });
  assert.match(err({ ...ok, type_vocab_size: 0 }), /field 'type_vocab_size': expected a positive integer, got 0/);
  assert.match(err({ ...ok, projection_dim: 128 }), /field 'projection_dim': projection_dim 128: encoders with a projection layer are not supported/);
});

test("train.py: --init-hf-dpr with --init-from, or with a config init, is a bad-input exit naming the flags", () => {
  const cfg = join(root, "cfg.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 0 }));
  const both = runTrainer(["--config", cfg, "--out", join(root, "o1"), "--init-hf-dpr", hf, "--init-from", join(root, "x")]);
  assert.equal(both.status, 2, both.stderr);
  assert.match(both.stderr, /error: .*cfg\.json: field 'init': both --init-from and --init-hf-dpr are given Fix: pass one of them/);
  const withInit = join(root, "cfg-init.json");
  writeFileSync(withInit, JSON.stringify({ epochs: 0, init: { kind: "random" } }));
  const r = runTrainer(["--config", withInit, "--out", join(root, "o2"), "--init-hf-dpr", hf]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /field 'init': both --init-hf-dpr and init are given Fix: drop the config's init or the --init-hf-dpr flag/);
  // training (epochs > 0) still needs --inputs
  writeFileSync(cfg, JSON.stringify({ epochs: 1 }));
  const noInputs = runTrainer(["--config", cfg, "--out", join(root, "o3"), "--init-hf-dpr", hf]);
  assert.equal(noInputs.status, 2, noInputs.stderr);
  assert.match(noInputs.stderr, /field 'epochs': --inputs is required when epochs > 0/);
  assert.ok(!existsSync(join(root, "o3")), "nothing written");
});

test("train.py with epochs 0 and --inputs: the dev evaluation of the initial encoders is epoch 0, nothing is trained", () => {
  const inputs = join(root, "inputs");
  writeSyntheticInputs(inputs);
  const cfg = join(root, "cfg-eval.json");
  writeFileSync(cfg, JSON.stringify({ epochs: 0, export_onnx: false, init: { kind: "random", bert_config: TEST_BERT } }));
  const out = join(root, "eval-out");
  const r = runTrainer(["--config", cfg, "--inputs", inputs, "--out", out]);
  assert.equal(r.status, 0, r.stderr);
  const epochs = r.stdout.split("\n").filter((l) => l.startsWith("EPOCH ")).map((l) => JSON.parse(l.slice(6)) as { epoch: number; dev_queries: number });
  assert.deepEqual(epochs.map((e) => [e.epoch, e.dev_queries]), [[0, 32]]);
  const result = readTrainingResult(out);
  assert.deepEqual([result.best_epoch, result.steps, result.examples, result.train_queries], [0, 0, 0, 64]);
  assert.deepEqual(Object.keys(result.dev_recall_per_epoch), ["0"]);
  assert.equal(result.dev_recall_at_5, result.dev_recall_per_epoch["0"]);
  assert.deepEqual(result.outputs, ["query_encoder.safetensors", "passage_encoder.safetensors", "config.json"]);
});
