/**
 * Tokenization steps run through the engine on tiny inputs: a hand-written vocabulary gives
 * hand-computed token ids for passages (title pair, truncation, padding to the longest row)
 * and for queries (history form, qid order, gold filter, empty split).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, file, use } from "../../pipeline/engine/step.ts";
import { writeParquetFile } from "../../steps/lib/parquet.ts";
import { passagesSchema, turnsSchema, type PassageRow, type TurnRow } from "../../steps/data/schemas.ts";
import { readNpy } from "../../steps/lib/npy.ts";
import { writeVocabFile } from "../../steps/encoding/tokenize/vocab.ts";
import { trainWordPieceVocab } from "../../steps/encoding/tokenize/wordpiece-trainer.ts";
import { tokenizePassages, tokenizeQueries, trainVocab, type TokensMeta } from "../../steps/encoding/steps.ts";
import { readSpill, RowSpill } from "../../steps/encoding/format/row-spill.ts";
import { project, registry, run, tempDir } from "../engine/helpers.ts";

// Fixture steps get a stand-alone source file: this test's own import closure reaches
// pipeline/engine/sources.ts, whose doc comment the source scanner mistakes for an import.
const FIXTURE_SOURCE = join(tempDir(), "fixture.ts");
writeFileSync(FIXTURE_SOURCE, "export const fixture = 1;\n");

// ids:            0      1      2      3      4       5     6     7     8     9
const VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "dog", "##s"];

const PASSAGES: PassageRow[] = [
  { id: "p1", title: "Cats", text: "the cat sat" },
  { id: "p2", title: null, text: "dogs sat" },
];

function turn(split: string, conv: string, n: number, question: string, answer: string | null, history: { question: string; answer: string }[], gold: string[]): TurnRow {
  return {
    dataset: "qrecc",
    split,
    conversation_id: conv,
    turn: n,
    qid: `${conv}_${n}`,
    question,
    rewrite: null,
    answer,
    history,
    gold_passage_ids: gold,
    source_domain: null,
    question_type: null,
    topic: null,
    topic_section: null,
  };
}

const TURNS: TurnRow[] = [
  turn("train", "2", 1, "the dog", "sat", [], ["p2"]),
  turn("train", "1", 2, "dogs", "the cat", [{ question: "the cat", answer: "sat" }], ["p1"]),
  turn("train", "1", 1, "the cat", "sat", [], []),
  turn("dev", "9", 1, "zebra", "zzz", [], ["p1"]),
];

const writePassages = defineStep({
  id: "test-write-passages",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { passages: file("parquet:passages", "passages.parquet") },
  runtime: { type: "in-process", run: async (ctx) => void (await writeParquetFile(ctx.outputs.passages, passagesSchema(), PASSAGES)) },
});

const writeTurns = defineStep({
  id: "test-write-turns",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { turns: file("parquet:turns", "turns.parquet") },
  runtime: { type: "in-process", run: async (ctx) => void (await writeParquetFile(ctx.outputs.turns, turnsSchema(), TURNS)) },
});

const writeVocab = defineStep({
  id: "test-write-vocab",
  version: 1,
  source: FIXTURE_SOURCE,
  params: z.object({}).strict(),
  inputs: {},
  outputs: { vocab: dir("wordpiece:vocab", "vocab") },
  runtime: { type: "in-process", run: async (ctx) => writeVocabFile(join(ctx.outputs.vocab, "vocab.txt"), VOCAB) },
});

function graph(passageParams: object, queryParams: object) {
  const passages = use(writePassages, { inputs: {} });
  const turns = use(writeTurns, { inputs: {} });
  const vocab = use(writeVocab, { inputs: {} });
  return [
    use(tokenizePassages, { name: "tok-p", params: passageParams, inputs: { passages: passages.out.passages, vocab: vocab.out.vocab } }),
    use(tokenizeQueries, { name: "tok-q", params: queryParams as { form: "history"; split: string }, inputs: { turns: turns.out.turns, vocab: vocab.out.vocab } }),
  ];
}

async function runGraph(passageParams: object, queryParams: object) {
  const p = project(registry({ t: () => graph(passageParams, queryParams) }));
  const r = await run(p, ["t"]);
  const result = "result" in r.outcome ? r.outcome.result : undefined;
  const out = (name: string, output: string): string => p.store.outputPath(result!.results.get(name)!.entry!, output);
  return { r, result, out };
}

const matrix = (path: string) => {
  const a = readNpy(path);
  return { dtype: a.dtype, shape: a.shape, rows: Array.from({ length: a.shape[0]! }, (_, i) => Array.from(a.data.subarray(i * a.shape[1]!, (i + 1) * a.shape[1]!) as Int32Array)) };
};
const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter((l) => l !== "");
const meta = (dirPath: string) => JSON.parse(readFileSync(join(dirPath, "meta.json"), "utf8")) as TokensMeta;

test("tokenize-passages: title pair, padding to the longest row, pids in collection order", async () => {
  const { r, out } = await runGraph({}, { form: "history", split: "train" });
  assert.equal(r.outcome.ok, true);
  const d = out("tok-p", "tokens");
  // p1: [CLS] cat ##s [SEP] the cat sat [SEP];  p2 (no title): [CLS] dog ##s sat [SEP] + 3 pads
  assert.deepEqual(matrix(join(d, "ids.npy")), { dtype: "int32", shape: [2, 8], rows: [[2, 6, 9, 3, 5, 6, 7, 3], [2, 8, 9, 7, 3, 0, 0, 0]] });
  assert.deepEqual(matrix(join(d, "type_ids.npy")), { dtype: "int8", shape: [2, 8], rows: [[0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]] });
  assert.deepEqual(lines(join(d, "pids.txt")), ["p1", "p2"]);
  const m = meta(d);
  assert.deepEqual([m.kind, m.rows, m.length, m.maxLength, m.truncated, m.vocabSize], ["passages", 2, 8, 384, 0, 10]);
});

test("tokenize-passages: longest-first truncation of the pair, no title, bert segment ids", async () => {
  const { out } = await runGraph({ maxLength: 6, segmentIds: "bert" }, { form: "history", split: "train" });
  const d = out("tok-p", "tokens");
  // budget 3 for title (2) + text (3): the text loses 2 tokens -> [CLS] cat ##s [SEP] the [SEP]
  assert.deepEqual(matrix(join(d, "ids.npy")).rows, [[2, 6, 9, 3, 5, 3], [2, 8, 9, 7, 3, 0]]);
  assert.deepEqual(matrix(join(d, "type_ids.npy")).rows, [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0]]);
  assert.equal(meta(d).truncated, 1);
  const noTitle = await runGraph({ title: false }, { form: "history", split: "train" });
  assert.deepEqual(matrix(join(noTitle.out("tok-p", "tokens"), "ids.npy")).rows, [[2, 5, 6, 7, 3], [2, 8, 9, 7, 3]]);
});

test("tokenize-queries: history form, qids sorted, gold filter", async () => {
  const { out } = await runGraph({}, { form: "history", split: "train" });
  const d = out("tok-q", "tokens");
  assert.deepEqual(lines(join(d, "qids.txt")), ["1_1", "1_2", "2_1"]);
  // 1_2: [CLS] the cat [SEP] sat [SEP] dog ##s [SEP];  1_1: [CLS] the cat [SEP];  2_1: [CLS] the dog [SEP]
  assert.deepEqual(matrix(join(d, "ids.npy")), {
    dtype: "int32",
    shape: [3, 9],
    rows: [
      [2, 5, 6, 3, 0, 0, 0, 0, 0],
      [2, 5, 6, 3, 7, 3, 8, 9, 3],
      [2, 5, 8, 3, 0, 0, 0, 0, 0],
    ],
  });
  assert.deepEqual([meta(d).kind, meta(d).rows, meta(d).length, meta(d).params.form], ["queries", 3, 9, "history"]);
  const gold = await runGraph({}, { form: "q_t", split: "train", goldOnly: true, maxLength: 3 });
  const g = gold.out("tok-q", "tokens");
  assert.deepEqual(lines(join(g, "qids.txt")), ["1_2", "2_1"]);
  // q_t right-truncated to 3: [CLS] dog [SEP], [CLS] the [SEP]
  assert.deepEqual(matrix(join(g, "ids.npy")).rows, [[2, 8, 3], [2, 5, 3]]);
  assert.equal(meta(g).truncated, 2);
});

test("tokenize-queries: an empty split is a bad-input failure naming the file and field", async () => {
  const { r, result } = await runGraph({}, { form: "q_t", split: "test" });
  assert.equal(r.outcome.ok, false);
  const f = result!.failures.find((x) => x.step === "tok-q");
  assert.equal(f?.reason, "bad-input");
  assert.ok(f?.reason === "bad-input" && f.field === "split" && f.file?.endsWith("turns.parquet") === true && /no turns in split 'test'/.test(f.message), JSON.stringify(f));
});

test("train-wordpiece-vocab: trained on passages + the questions/answers of the chosen splits, deterministic", async () => {
  const build = (splits: string[]) => {
    const passages = use(writePassages, { inputs: {} });
    const turns = use(writeTurns, { inputs: {} });
    return [use(trainVocab, { name: "vocab", params: { vocabSize: 30, minFrequency: 1, splits }, inputs: { passages: passages.out.passages, turns: turns.out.turns } })];
  };
  const p = project(registry({ train: () => build(["train"]), both: () => build(["train", "dev"]) }));
  const a = await run(p, ["train"]);
  const b = await run(p, ["both"]);
  const vocabOf = (o: typeof a) => readFileSync(join(p.store.outputPath(("result" in o.outcome ? o.outcome.result : undefined)!.results.get("vocab")!.entry!, "vocab"), "vocab.txt"), "utf8");
  const texts = ["Cats", "the cat sat", "dogs sat", ...TURNS.filter((t) => t.split === "train").flatMap((t) => [t.question, t.answer!])];
  const expected = trainWordPieceVocab(texts, { vocabSize: 30, minFrequency: 1 }).vocab;
  assert.equal(vocabOf(a), expected.map((t) => `${t}\n`).join(""));
  assert.deepEqual(expected.slice(0, 5), ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]);
  assert.ok(!expected.includes("z"));
  assert.ok(vocabOf(b).split("\n").includes("z"), "the dev split's words join the vocabulary");
  const tokJson = JSON.parse(readFileSync(join(p.store.outputPath(("result" in a.outcome ? a.outcome.result : undefined)!.results.get("vocab")!.entry!, "vocab"), "tokenizer.json"), "utf8")) as { model: { vocab: Record<string, number> } };
  assert.equal(Object.keys(tokJson.model.vocab).length, expected.length);
});

test("the passage spill file reads back every row, across buffer refills and a row larger than the buffer", () => {
  const spill = new RowSpill(join(tempDir(), "rows.bin"));
  const rows = Array.from({ length: 50 }, (_, r) => {
    const n = 1 + ((r * 7) % 30);
    return { ids: Array.from({ length: n }, (_, j) => r * 1000 + j - 5), typeIds: Array.from({ length: n }, (_, j) => (j % 2 === 0 ? 0 : -1)), truncated: false };
  });
  rows.forEach((row) => spill.append(row));
  const lengths = spill.close();
  assert.deepEqual(Array.from(lengths), rows.map((r) => r.ids.length));
  const back = [...readSpill(spill.path, lengths, 64)].map((r) => ({ ids: Array.from(r.ids), typeIds: Array.from(r.types), truncated: false }));
  assert.deepEqual(back, rows);
});
