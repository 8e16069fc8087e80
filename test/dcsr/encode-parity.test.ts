/**
 * DCSR's encode steps check the model's ONNX parity fixtures before encoding, with the DPR
 * encoders' code (encoding/onnx/parity.ts): `encode-dcsr-queries` the query encoder's fixture
 * (through the query-encoding body it shares with DPR's `encode-queries`), `encode-dcsr-sentences`
 * the sentence encoder's (`parity/sentence_encoder/`, a [batch, markers, hidden] output). Run
 * through the engine on a model exported by cspipe's trainers (a random tiny BERT: DPR's
 * trainer at epochs 0 for the query encoder, DCSR's export for the sentence encoder): intact
 * fixtures encode; one fixture value moved by 0.01, or no fixtures at all, stops exactly the
 * step of that encoder, naming the ONNX file (or the missing fixture directory) and the fix.
 * Needs /usr/bin/python3 with torch (CI has it: scripts/setup.sh installs python3-torch).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, use, type OutputRef } from "../../pipeline/engine/step.ts";
import type { RunFailure } from "../../pipeline/engine/failures.ts";
import { readNpy, writeNpy } from "../../steps/lib/npy.ts";
import { encodeDcsrQueries, encodeDcsrSentences } from "../../steps/dcsr/encode.ts";
import { trainingConfig } from "../../steps/training/contract.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";
import { PYTHON, TEST_BERT, program, runTrainer } from "../training/python.ts";

const skip = spawnSync(PYTHON, ["-c", "import torch"]).status === 0 ? false : `no torch for ${PYTHON} (apt-get install -y python3-torch)`;
const work = tempDir("cspipe-dcsr-parity-");
const FIXTURE_SOURCE = join(work, "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");
const MODEL = join(work, "model");
/** Model directories by tag: intact, a tampered query / sentence fixture, no fixtures. */
const MODELS = { good: MODEL, query: join(work, "tampered-query"), sentence: join(work, "tampered-sentence"), bare: join(work, "bare") } as const;
type Tag = keyof typeof MODELS;

const NP = 6;
const L = 16;
const M = 3;

const fixture = <K extends string>(id: string, kind: K, write: (out: string) => void) =>
  defineStep({ id, version: 1, source: FIXTURE_SOURCE, params: z.object({}).strict(), inputs: {}, outputs: { out: dir(kind, "out") }, runtime: { type: "in-process", run: async (ctx) => write(ctx.outputs.out) } });

/** Passages `[CLS] <m> w w <m> w ... [SEP]` with 1-3 markers, ids inside the tiny vocabulary (marker id 1). */
const writePassages = fixture("test-write-dcsr-passage-tokens", "tokens:dcsr-passages", (o) => {
  const ids = new Int32Array(NP * L);
  const markers = new Int32Array(NP * M).fill(-1);
  for (let r = 0; r < NP; r++) {
    const len = 8 + (r % 3) * 3;
    for (let c = 0; c < len; c++) ids[r * L + c] = c === 0 ? 101 : c === len - 1 ? 102 : 5 + ((r * 31 + c * 17) % 300);
    for (let s = 0; s <= r % M; s++) {
      ids[r * L + 1 + 3 * s] = 1;
      markers[r * M + s] = 1 + 3 * s;
    }
  }
  writeNpy(join(o, "ids.npy"), { dtype: "int32", shape: [NP, L], data: ids });
  writeNpy(join(o, "type_ids.npy"), { dtype: "int8", shape: [NP, L], data: new Int8Array(NP * L) });
  writeNpy(join(o, "markers.npy"), { dtype: "int32", shape: [NP, M], data: markers });
  writeFileSync(join(o, "pids.txt"), Array.from({ length: NP }, (_, i) => `doc${i}\n`).join(""));
  writeFileSync(join(o, "meta.json"), JSON.stringify({ vocabSize: 400, dcsr: { markerId: 1, maxMarkers: M } }));
});
const writeQueries = fixture("test-write-dcsr-query-tokens", "tokens:queries", (o) => {
  const ids = new Int32Array(4 * 8);
  for (let r = 0; r < 4; r++) for (let c = 0; c < 3 + r; c++) ids[r * 8 + c] = c === 0 ? 101 : c === 2 + r ? 102 : 7 + r * 11 + c;
  writeNpy(join(o, "ids.npy"), { dtype: "int32", shape: [4, 8], data: ids });
  writeFileSync(join(o, "qids.txt"), "q0\nq1\nq2\nq3\n");
  writeFileSync(join(o, "meta.json"), JSON.stringify({ vocabSize: 400, specialIds: { pad: 0, cls: 101, sep: 102 } }));
});

const ONNX = { batchSize: 4, provider: "cpu", threads: 1 } as const;
const modelOf = (tag: Tag): OutputRef<"dcsr:model"> => use(fixture(`test-copy-dcsr-model-${tag}`, "dcsr:model", (o) => cpSync(MODELS[tag], o, { recursive: true })), { inputs: {} }).out.out;
const encodings = (tag: Tag) => {
  const model = modelOf(tag);
  return [
    use(encodeDcsrQueries, { name: `q-${tag}`, params: ONNX, inputs: { model, tokens: use(writeQueries, { inputs: {} }).out.out } }),
    use(encodeDcsrSentences, { name: `s-${tag}`, params: { shard: 0, shards: 1, ...ONNX }, inputs: { model, tokens: use(writePassages, { inputs: {} }).out.out } }),
  ];
};

const p = project(registry({ good: () => encodings("good"), query: () => encodings("query"), sentence: () => encodings("sentence"), bare: () => encodings("bare") }));
const runs = new Map<Tag, Awaited<ReturnType<typeof run>>>();

/** Moves one value of a fixture's expected output by 0.01: the graph and the weights are intact, the check must still fail. */
function tamper(file: string): void {
  const a = readNpy(file);
  (a.data as Float32Array)[3]! += 0.01;
  writeNpy(file, { dtype: "float32", shape: a.shape, data: a.data as Float32Array });
}

before(async () => {
  if (skip !== false) return;
  const cfg = join(work, "cfg.json");
  writeFileSync(cfg, JSON.stringify(trainingConfig({ epochs: 0, seed: 5, init: { kind: "random", bert_config: TEST_BERT } })));
  const t = runTrainer(["--config", cfg, "--out", MODEL]);
  assert.equal(t.status, 0, t.stderr);
  const s = spawnSync(PYTHON, program("dcsr.python.train_dcsr", ["--selftest", "export"]), { input: JSON.stringify({ out: MODEL, seed: 5, vocab_size: 400 }), encoding: "utf8", timeout: 120_000 });
  assert.equal(s.status, 0, s.stderr);
  cpSync(MODEL, MODELS.query, { recursive: true });
  tamper(join(MODELS.query, "parity", "query_encoder", "embedding.npy"));
  cpSync(MODEL, MODELS.sentence, { recursive: true });
  tamper(join(MODELS.sentence, "parity", "sentence_encoder", "sentence_embeddings.npy"));
  cpSync(MODEL, MODELS.bare, { recursive: true });
  rmSync(join(MODELS.bare, "parity"), { recursive: true });
  for (const tag of Object.keys(MODELS) as Tag[]) runs.set(tag, await run(p, [tag], { failureMode: "continue" }));
});
after(() => rmSync(work, { recursive: true, force: true }));

const failuresOf = (tag: Tag): Extract<RunFailure, { reason: "bad-input" }>[] =>
  runs.get(tag)!.events.flatMap((e) => (e.type === "failed" ? [e.failure] : [])).map((f) => {
    assert.equal(f.reason, "bad-input", JSON.stringify(f));
    return f as Extract<RunFailure, { reason: "bad-input" }>;
  });
/** Where the engine placed a tag's copy of the model (the directory the steps read). */
const modelDir = (tag: Tag): string => {
  const r = runs.get(tag)!.outcome;
  const entry = "result" in r ? r.result.results.get(`test-copy-dcsr-model-${tag}`)?.entry : undefined;
  assert.ok(entry, `no model entry for ${tag}`);
  return p.store.outputPath(entry, "out");
};

/** A bad-input failure with exactly this file, text and fix (the message is the InputError's: `<file>: <text> Fix: <fix>`). */
function assertRefused(f: Extract<RunFailure, { reason: "bad-input" }>, file: string, text: string, fix: string): void {
  assert.deepEqual([f.file, f.fix, f.message], [file, fix, `${file}: ${text} Fix: ${fix}`]);
}
const REEXPORT = "re-export the encoder (a different onnxruntime or a damaged file can cause this); do not encode with it";

test("intact fixtures: both DCSR encode steps check them and encode", { skip }, () => {
  assert.deepEqual(failuresOf("good"), []);
  assert.deepEqual(runs.get("good")!.executed.filter((s) => !s.startsWith("test-")), ["q-good", "s-good"]);
});

test("a tampered query-encoder fixture stops encode-dcsr-queries, naming query_encoder.onnx and the fix; the sentence step runs", { skip }, () => {
  const [f, ...rest] = failuresOf("query");
  assert.deepEqual(rest, []);
  assert.equal(f!.step, "q-query");
  assertRefused(f!, join(modelDir("query"), "query_encoder.onnx"), "query_encoder.onnx differs from the torch model it was exported from: max abs diff 0.0100 on the parity fixture (tolerance 0.0001)", REEXPORT);
  assert.ok(runs.get("query")!.executed.includes("s-query"));
});

test("a tampered sentence-encoder fixture stops encode-dcsr-sentences, naming sentence_encoder.onnx and the fix; the query step runs", { skip }, () => {
  const [f, ...rest] = failuresOf("sentence");
  assert.deepEqual(rest, []);
  assert.equal(f!.step, "s-sentence");
  assertRefused(f!, join(modelDir("sentence"), "sentence_encoder.onnx"), "sentence_encoder.onnx differs from the torch model it was exported from: max abs diff 0.0100 on the parity fixture (tolerance 0.0001)", REEXPORT);
  assert.ok(runs.get("sentence")!.executed.includes("q-sentence"));
});

test("a DCSR model without parity fixtures is refused by both steps, naming the missing directory and how to export one", { skip }, () => {
  const byStep = new Map(failuresOf("bare").map((f) => [f.step, f]));
  assert.deepEqual([...byStep.keys()].sort(), ["q-bare", "s-bare"]);
  for (const [step, name] of [["q-bare", "query_encoder"], ["s-bare", "sentence_encoder"]] as const) {
    assertRefused(
      byStep.get(step)!,
      join(modelDir("bare"), "parity", name),
      `the model has no ONNX parity fixtures for ${name}, so its ONNX encoder cannot be checked against the torch model it was exported from`,
      `export the model with cspipe's trainer (train.py and train_dcsr.py write parity/${name}/ beside ${name}.onnx; DPR's epochs 0 exports an existing checkpoint)`,
    );
  }
});
