/**
 * Dense steps through the engine on a tiny collection and a tiny ONNX encoder exported in the
 * test (needs /usr/bin/python3 with torch; skipped with the reason otherwise):
 * embeddings equal torch's, the run equals a brute force computed here, 2 shards give the same
 * bytes as 1, and the backend (faiss, brute force, torch; $CSPIPE_DENSE_BACKEND) does not change them.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { defineStep, dir, file, use } from "../../pipeline/engine/step.ts";
import { writeParquetFile, readParquetRows } from "../../steps/lib/parquet.ts";
import { passagesSchema, turnsSchema, type PassageRow, type TurnRow } from "../../steps/data/schemas.ts";
import { readNpy, writeNpy } from "../../steps/lib/npy.ts";
import { writeVocabFile } from "../../steps/encoding/tokenize/vocab.ts";
import { tokenizePassages, tokenizeQueries } from "../../steps/encoding/steps.ts";
import { buildFlatIpIndex, denseBackendFromEnv, encodePassages, encodeQueries, formatFloat32, rescoreDepth, searchDense } from "../../steps/dense/steps.ts";
import { faissAvailability } from "../../steps/dense/backend.ts";
import { mergeDenseHits, searchDenseShard } from "../../steps/dense/shard-steps.ts";
import type { RunRow } from "../../steps/eval/run-table.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";

const PY = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const SCRIPT = fileURLToPath(new URL("../encoding/onnx/tiny_encoder.py", import.meta.url));
const torchCheck = spawnSync(PY, ["-c", "import torch"], { encoding: "utf8" });
const skip = torchCheck.status === 0 ? false : `no torch for ${PY} (apt-get install -y python3-torch)`;
const faissPy = spawnSync(PY, ["-c", "import faiss"]).status === 0;
const MODEL_ARGS = ["--kind", "bert", "--vocab", "16", "--hidden", "16", "--layers", "1", "--heads", "2", "--max-len", "64", "--seed", "3"];

const work = tempDir("cspipe-dense-steps-");
// Fixture steps get a stand-alone source file: this test's own import closure reaches
// pipeline/engine/sources.ts, whose doc comment the source scanner mistakes for an import.
const FIXTURE_SOURCE = join(work, "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");
const MODEL = join(work, "tiny.onnx");
// The parity fixture the encode steps check (as the trainer's export writes it): ids, mask,
// types and torch's output on them (tiny_encoder.py writes the reference when exporting).
const PARITY = join(work, "parity");
const PARITY_IDS = BigInt64Array.from([2, 5, 6, 7, 3, 8, 9, 3, 0, 0, 2, 13, 3, 0, 0, 0, 0, 0, 0, 0].map(BigInt));

const VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "dog", "##s", "on", "mat", "ran", "big", "red"];
const words = ["the", "cat", "sat", "dog", "dogs", "on", "mat", "ran", "big", "red"];
// 11 passages; p10 (row 1) and p03 (row 8) are identical, so they tie exactly and must be ordered by pid.
const PASSAGES: PassageRow[] = Array.from({ length: 11 }, (_, r) => {
  const text = Array.from({ length: 2 + ((r * 3) % 5) }, (_, j) => words[(r * 7 + j * 3) % words.length]!).join(" ");
  return { id: `p${String(r).padStart(2, "0")}`, title: r % 3 === 0 ? null : words[r % words.length]!, text };
});
PASSAGES[1] = { id: "p10", title: "big dog", text: "the dog ran" };
PASSAGES[8] = { id: "p03", title: "big dog", text: "the dog ran" };
PASSAGES[3] = { id: "p01", title: "red", text: "mat" };
PASSAGES[10] = { id: "p08", title: null, text: "red cat on the big mat" };

function turn(conv: string, n: number, question: string, history: { question: string; answer: string }[]): TurnRow {
  return {
    dataset: "topiocqa",
    split: "test",
    conversation_id: conv,
    turn: n,
    qid: `${conv}_${n}`,
    question,
    rewrite: null,
    answer: "the mat",
    history,
    gold_passage_ids: [],
    source_domain: null,
    question_type: null,
    topic: null,
    topic_section: null,
  };
}
const TURNS: TurnRow[] = [
  turn("1", 1, "big dog", []),
  turn("1", 2, "red cat", [{ question: "big dog", answer: "the dog ran" }]),
  turn("2", 1, "the cat sat on the mat", []),
  turn("3", 1, "dogs ran", []),
  // Nothing to search for ([CLS] [SEP]): no hits, as BM25 gives an empty query.
  turn("4", 1, "", []),
];

const fixture = <K extends string>(id: string, output: ReturnType<typeof file<K>> | ReturnType<typeof dir<K>>, write: (out: string) => Promise<void>) =>
  defineStep({
    id,
    version: 1,
    source: FIXTURE_SOURCE,
    params: z.object({}).strict(),
    inputs: {},
    outputs: { out: output },
    runtime: { type: "in-process", run: (ctx) => write(ctx.outputs.out) },
  });

const writePassages = fixture("test-write-passages", file("parquet:passages", "p.parquet"), async (o) => void (await writeParquetFile(o, passagesSchema(), PASSAGES)));
const writeTurns = fixture("test-write-turns", file("parquet:turns", "t.parquet"), async (o) => void (await writeParquetFile(o, turnsSchema(), TURNS)));
const writeVocab = fixture("test-write-vocab", dir("wordpiece:vocab", "vocab"), async (o) => writeVocabFile(join(o, "vocab.txt"), VOCAB));
const writeModel = fixture("test-write-model", dir("dpr:model", "model"), async (o) => {
  copyFileSync(MODEL, join(o, "query_encoder.onnx"));
  copyFileSync(MODEL, join(o, "passage_encoder.onnx"));
  for (const name of ["query_encoder", "passage_encoder"]) cpSync(PARITY, join(o, "parity", name), { recursive: true });
});

const ENC = { batchSize: 3, provider: "cpu", threads: 1 } as const;

function graph() {
  const passages = use(writePassages, { inputs: {} });
  const turns = use(writeTurns, { inputs: {} });
  const vocab = use(writeVocab, { inputs: {} });
  const model = use(writeModel, { inputs: {} });
  const tokP = use(tokenizePassages, { name: "tok-p", inputs: { passages: passages.out.out, vocab: vocab.out.out } });
  const tokQ = use(tokenizeQueries, { name: "tok-q", params: { form: "history", split: "test" }, inputs: { turns: turns.out.out, vocab: vocab.out.out } });
  const encQ = use(encodeQueries, { name: "enc-q", params: { ...ENC, batchSize: 2 }, inputs: { model: model.out.out, tokens: tokQ.out.tokens } });
  const shardSteps = (shards: number) =>
    Array.from({ length: shards }, (_, s) => {
      const enc = use(encodePassages, { name: `enc-p${shards}-${s}`, params: { shard: s, shards, ...ENC }, inputs: { model: model.out.out, tokens: tokP.out.tokens } });
      return use(buildFlatIpIndex, { name: `index${shards}-${s}`, inputs: { embeddings: enc.out.embeddings } });
    });
  const search = (name: string, shards: number, k: number) =>
    use(searchDense, { name, params: { k }, inputs: { queries: encQ.out.embeddings, shards: shardSteps(shards).map((x) => x.out.index) } });
  // The scale path: one search step per shard, then the merge (k 20 > a shard's 5-6 rows: padding).
  const shardMerge = (name: string, k: number) => {
    const hits = shardSteps(2).map((x, s) => use(searchDenseShard, { name: `${name}-shard${s}`, params: { k }, inputs: { queries: encQ.out.embeddings, index: x.out.index } }).out.hits);
    return use(mergeDenseHits, { name, params: { k }, inputs: { queries: encQ.out.embeddings, shards: hits } });
  };
  return [search("search-1", 1, 5), search("search-2", 2, 5), search("search-all", 2, 20), shardMerge("merge-2", 5), shardMerge("merge-all", 20)];
}

const p = project(registry({ dense: graph }));
const outputOf = (res: Awaited<ReturnType<typeof run>>, step: string, output: string): string => {
  const r = "result" in res.outcome ? res.outcome.result : undefined;
  return p.store.outputPath(r!.results.get(step)!.entry!, output);
};
let first: Awaited<ReturnType<typeof run>>;

before(async () => {
  if (skip !== false) return;
  mkdirSync(PARITY, { recursive: true });
  const shape = [2, 10];
  writeNpy(join(PARITY, "input_ids.npy"), { dtype: "int64", shape, data: PARITY_IDS });
  writeNpy(join(PARITY, "attention_mask.npy"), { dtype: "int64", shape, data: PARITY_IDS.map((v) => (v !== 0n ? 1n : 0n)) });
  writeNpy(join(PARITY, "token_type_ids.npy"), { dtype: "int64", shape, data: PARITY_IDS.map((_, i) => (i % 10 >= 5 && PARITY_IDS[i] !== 0n ? 1n : 0n)) });
  const ref = ["--ids", join(PARITY, "input_ids.npy"), "--types", join(PARITY, "token_type_ids.npy"), "--ref", join(PARITY, "embedding.npy")];
  execFileSync(PY, [SCRIPT, "export", "--out", MODEL, ...MODEL_ARGS, ...ref], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, OMP_NUM_THREADS: "1" } });
  first = await run(p, ["dense"]);
});

after(() => rmSync(work, { recursive: true, force: true }));

async function runRows(path: string): Promise<RunRow[]> {
  const rows: RunRow[] = [];
  for await (const r of readParquetRows<RunRow>(path)) rows.push({ ...r });
  return rows;
}

const embeddings = (dirPath: string) => {
  const a = readNpy(join(dirPath, "embeddings.npy"));
  return { dim: a.shape[1]!, data: a.data as Float32Array, ids: readFileSync(join(dirPath, "pids.txt"), "utf8").split("\n").filter(Boolean) };
};

test("passage embeddings equal torch's; 2 shards concatenate to 1 shard's rows", { skip }, () => {
  assert.equal(first.outcome.ok, true, JSON.stringify("result" in first.outcome ? first.outcome.result.failures : first.outcome.analysis));
  const one = embeddings(outputOf(first, "enc-p1-0", "embeddings"));
  assert.deepEqual(one.ids, PASSAGES.map((x) => x.id));
  const tok = outputOf(first, "tok-p", "tokens");
  const ref = join(work, "ref.npy");
  execFileSync(PY, [SCRIPT, "run", "--out", MODEL, ...MODEL_ARGS, "--ids", join(tok, "ids.npy"), "--types", join(tok, "type_ids.npy"), "--ref", ref], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, OMP_NUM_THREADS: "1" } });
  const torch = readNpy(ref).data as Float32Array;
  assert.equal(torch.length, one.data.length);
  for (let i = 0; i < torch.length; i++) assert.ok(Math.abs(torch[i]! - one.data[i]!) < 1e-5, `value ${i}: ${one.data[i]} vs torch ${torch[i]}`);
  const a = embeddings(outputOf(first, "enc-p2-0", "embeddings"));
  const b = embeddings(outputOf(first, "enc-p2-1", "embeddings"));
  assert.deepEqual([a.ids.length, b.ids.length], [6, 5]);
  assert.deepEqual([...a.ids, ...b.ids], one.ids);
  const both = [...a.data, ...b.data];
  both.forEach((v, i) => assert.ok(Math.abs(v - one.data[i]!) < 1e-6));
});

test("search-dense equals a brute force computed here, ties by pid", { skip }, async () => {
  const q = readNpy(join(outputOf(first, "enc-q", "embeddings"), "embeddings.npy"));
  const qids = readFileSync(join(outputOf(first, "enc-q", "embeddings"), "qids.txt"), "utf8").split("\n").filter(Boolean);
  assert.deepEqual(qids, ["1_1", "1_2", "2_1", "3_1", "4_1"]);
  assert.equal(readFileSync(join(outputOf(first, "enc-q", "embeddings"), "empty_qids.txt"), "utf8"), "4_1\n");
  const pe = embeddings(outputOf(first, "enc-p1-0", "embeddings"));
  const dim = pe.dim;
  const qd = q.data as Float32Array;
  for (const [step, k] of [["search-1", 5], ["search-all", 20]] as const) {
    const expected: RunRow[] = [];
    qids.forEach((qid, qi) => {
      if (qid === "4_1") return;
      const scored = pe.ids.map((pid, r) => {
        let s = 0;
        for (let d = 0; d < dim; d++) s += qd[qi * dim + d]! * pe.data[r * dim + d]!;
        return { pid, score: Math.fround(s) };
      });
      scored.sort((x, y) => y.score - x.score || (x.pid < y.pid ? -1 : 1));
      scored.slice(0, k).forEach((h, j) => expected.push({ qid, pid: h.pid, rank: j + 1, score: h.score }));
    });
    const got = await runRows(outputOf(first, step, "run"));
    assert.deepEqual(got.map((r) => [r.qid, r.pid, r.rank]), expected.map((r) => [r.qid, r.pid, r.rank]), step);
    got.forEach((r, i) => assert.ok(Math.abs(r.score - expected[i]!.score) < 1e-5, `${step} row ${i}`));
  }
  const all = await runRows(outputOf(first, "search-all", "run"));
  assert.equal(all.length, 4 * 11, "k > collection: every passage once per non-empty query");
  assert.equal(all.filter((r) => r.qid === "4_1").length, 0, "the empty query has no hits");
  for (const qid of qids.slice(0, 4)) {
    const hits = all.filter((r) => r.qid === qid);
    const i03 = hits.findIndex((h) => h.pid === "p03");
    assert.equal(hits[i03 + 1]?.pid, "p10", `${qid}: the identical passages tie and p03 comes first`);
    assert.equal(hits[i03]!.score, hits[i03 + 1]!.score);
  }
  const trec = readFileSync(outputOf(first, "search-all", "trec"), "utf8").trimEnd().split("\n");
  assert.equal(trec.length, all.length);
  assert.equal(trec[0], `${all[0]!.qid} Q0 ${all[0]!.pid} 1 ${formatFloat32(all[0]!.score)} cspipe-dpr`);
  assert.equal(Math.fround(Number(trec[0]!.split(" ")[4])), all[0]!.score, "the TREC score reads back as the same float32");
});

test("2 index shards give byte-identical runs to 1 shard", { skip }, () => {
  for (const o of ["run", "trec"]) assert.deepEqual(readFileSync(outputOf(first, "search-2", o)), readFileSync(outputOf(first, "search-1", o)), o);
});

test("per-shard search + merge give search-dense's bytes (k within and beyond a shard's rows)", { skip }, () => {
  for (const [merged, single] of [["merge-2", "search-2"], ["merge-all", "search-all"]]) {
    for (const o of ["run", "trec"]) assert.deepEqual(readFileSync(outputOf(first, merged!, o)), readFileSync(outputOf(first, single!, o)), `${merged} ${o}`);
  }
  const meta = JSON.parse(readFileSync(join(outputOf(first, "merge-all-shard1", "hits"), "meta.json"), "utf8")) as Record<string, unknown>;
  assert.deepEqual(meta, { format: "cspipe/dense-shard-hits@1", queries: TURNS.length, k: 20, passages: 5, dim: 16 });
});

test("the backend ($CSPIPE_DENSE_BACKEND) is not in the key and does not change the run", { skip }, async () => {
  const before = readFileSync(outputOf(first, "search-all", "run"));
  const saved = { backend: process.env.CSPIPE_DENSE_BACKEND, python: process.env.CSPIPE_PYTHON };
  process.env.CSPIPE_PYTHON ??= PY;
  try {
    // torch: bfloat16 candidates with a proven depth on CPU (torch-search.ts); its per-shard
    // hits are the same bytes too, so the merge after them is a cache hit.
    for (const backend of [...(faissAvailability().available ? ["brute-force", "faiss"] : ["brute-force"]), "torch"]) {
      process.env.CSPIPE_DENSE_BACKEND = backend;
      const shardSteps = backend === "torch" ? ["merge-all-shard1"] : [];
      const again = await run(p, ["dense"], { force: ["search-all", ...shardSteps] });
      assert.ok(again.executed.includes("search-all") && again.hits.includes("search-1"), backend);
      assert.deepEqual(readFileSync(outputOf(again, "search-all", "run")), before, backend);
      for (const s of shardSteps) assert.ok(again.executed.includes(s), s);
      if (shardSteps.length > 0) assert.ok(again.hits.includes("merge-all"), "merge-all reads byte-identical shard hits");
    }
  } finally {
    for (const [name, v] of [["CSPIPE_DENSE_BACKEND", saved.backend], ["CSPIPE_PYTHON", saved.python]] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
  }
});

// CI installs python3-faiss (scripts/setup.sh) and must not skip this: there a missing module fails the test.
test("the index file is a faiss IndexFlatIP that Python faiss reads", { skip: skip !== false ? skip : faissPy || process.env.CI !== undefined ? false : "no python3-faiss (apt-get install -y python3-faiss)" }, () => {
  const dirPath = outputOf(first, "index1-0", "index");
  const out = execFileSync(PY, ["-c", `import faiss; i = faiss.read_index(${JSON.stringify(join(dirPath, "index.faiss"))}); print(i.metric_type == faiss.METRIC_INNER_PRODUCT, i.ntotal, i.d)`], { encoding: "utf8" });
  assert.equal(out.trim(), "True 11 16");
});

test("search-dense takes its shards as one list input; encode-passages rejects shard >= shards", async () => {
  assert.deepEqual(searchDense.inputs, { queries: "embeddings:queries", shards: { list: "faiss:flat-ip" } });
  assert.equal(searchDense.id, "search-dense");
  assert.equal(encodePassages.params.safeParse({ shard: 2, shards: 2 }).success, false);
  assert.deepEqual(encodePassages.params.parse({ shard: 1, shards: 2 }), { shard: 1, shards: 2, batchSize: 64, provider: "auto", threads: 1, parity: "required" });
  assert.equal(rescoreDepth(100), 116);
  assert.equal(denseBackendFromEnv({}), "auto");
  assert.equal(denseBackendFromEnv({ CSPIPE_DENSE_BACKEND: "brute-force" }), "brute-force");
  assert.throws(() => denseBackendFromEnv({ CSPIPE_DENSE_BACKEND: "gpu" }), /CSPIPE_DENSE_BACKEND.*unknown dense search backend "gpu"/);
  assert.equal(formatFloat32(Math.fround(0.1)), "0.1");
  assert.equal(formatFloat32(Math.fround(12.345678)), "12.345678");
});
