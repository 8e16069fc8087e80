/**
 * The native formats: exact field sets, id conventions and cross-file consistency on a tiny
 * world (seed 5, 8 entities), plus hand-checked values of its first QReCC test conversation.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeMiniDataset } from "../../../steps/data/mini/index.ts";
import type { MiniDatasetName } from "../../../steps/data/mini/index.ts";
import { tempDir } from "../../tmp.ts";

const TINY = { seed: 5, entities: 8, trainTurns: 1, devTurns: 1, testTurns: 1, standaloneTrain: 2, standaloneDev: 1 };
let root = "";
const files: Partial<Record<MiniDatasetName, string[]>> = {};

before(async () => {
  root = tempDir("mini-fmt-");
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac", "mini-nq"] as const) {
    files[name] = (await writeMiniDataset(name, TINY, join(root, name))).files;
  }
});
after(async () => { await rm(root, { recursive: true, force: true }); });

const text = (name: string, f: string) => readFile(join(root, name, f), "utf8");
const json = async (name: string, f: string): Promise<unknown> => JSON.parse(await text(name, f));
const jsonl = async (name: string, f: string): Promise<Record<string, unknown>[]> =>
  (await text(name, f)).split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l) as Record<string, unknown>);
const rec = (x: unknown) => x as Record<string, unknown>;

test("mini-qrecc: SCAI turn files, URL passage ids, qrels and question types", async () => {
  assert.deepEqual(files["mini-qrecc"], [
    "scai-qrecc21-training-turns.json", "scai-qrecc21-test-turns.json", "qrels.txt", "qrels_train.txt",
    "test_question_types.json", "collection-paragraph/wayback/mini-00000.jsonl",
  ]);
  const raw = await text("mini-qrecc", "scai-qrecc21-test-turns.json");
  assert.ok(raw.startsWith("[\n    {\n        \"Context\": []"), "JSON array, 4-space indent, sorted keys");
  const turns = (JSON.parse(raw) as unknown[]).map(rec);
  const collection = await jsonl("mini-qrecc", "collection-paragraph/wayback/mini-00000.jsonl");
  const ids = new Set(collection.map((p) => p["id"] as string));
  for (const p of collection) {
    assert.deepEqual(Object.keys(p), ["id", "contents"]);
    assert.match(p["id"] as string, /^http:\/\/web\.archive\.org\/web\/\d{14}id_\/http:\/\/www\.[a-z0-9-]+\.org:80\/articles\/\d+\/[a-z0-9-]+_p\d+$/);
  }
  const qrels = rec(await json("mini-qrecc", "qrels.txt"));
  for (const t of turns) {
    assert.deepEqual(Object.keys(t), ["Context", "Conversation_no", "Conversation_source", "Question", "Truth_answer", "Truth_passages", "Truth_rewrite", "Turn_no"]);
    assert.equal((t["Context"] as string[]).length, 2 * ((t["Turn_no"] as number) - 1));
    const gold = t["Truth_passages"] as string[];
    for (const g of gold) assert.ok(ids.has(g), `gold ${g} in collection`);
    const q = rec(qrels[`${String(t["Conversation_no"])}_${String(t["Turn_no"])}`]);
    assert.deepEqual(Object.keys(q).sort(), gold.length === 0 ? [""] : [...gold].sort());
    if (gold.length > 0) {
      const passage = collection.find((p) => p["id"] === gold[0]);
      assert.ok((passage?.["contents"] as string).includes(t["Truth_answer"] as string), "answer is a span of the gold passage");
    }
  }
  // Hand-checked: conversation 1 is a TREC conversation. Turn 1 names a work by its short name
  // ("Last Winter") and is paraphrased; turn 2 switches to a place by name; turn 3 is a pronoun
  // follow-up on a fact the Introduction restates (two gold passages: p2 and the Introduction
  // p0); turn 4 has no gold passage; turn 6 is an open follow-up on turn 5's passage.
  const t1 = turns[0] ?? {};
  assert.equal(t1["Conversation_source"], "trec");
  assert.equal(t1["Question"], "who is the hero of Last Winter?");
  assert.equal(t1["Truth_rewrite"], "who is the hero of The Last Winter?");
  assert.equal(t1["Truth_answer"], "The Last Winter follows the life of Dyxko Coundtrouliox.");
  assert.deepEqual(t1["Truth_passages"], ["http://web.archive.org/web/20170713024252id_/http://www.last.org:80/articles/2/the-last-winter_p2"]);
  const page = "http://web.archive.org/web/20180618115326id_/http://www.tiorkkrouxmouth.org:80/articles/6/tiorkkrouxmouth";
  assert.equal(turns[2]?.["Question"], "how old is it?");
  assert.equal(turns[2]?.["Truth_rewrite"], "how old is Tiorkkrouxmouth?");
  assert.deepEqual(turns[2]?.["Truth_passages"], [`${page}_p2`, `${page}_p0`]);
  assert.deepEqual(turns[3]?.["Truth_passages"], []);
  assert.deepEqual(rec(qrels["1_4"]), { "": 1 });
  assert.equal(turns[5]?.["Question"], "what happened next?");
  assert.deepEqual(turns[5]?.["Truth_passages"], [`${page}_p1`]);
  assert.deepEqual(turns[4]?.["Truth_passages"], [`${page}_p1`, `${page}_p0`]);
  const types = rec(await json("mini-qrecc", "test_question_types.json"));
  assert.deepEqual(Object.keys(types), ["trec", "quac", "nq", "first", "switch", "no-switch"]);
  assert.deepEqual(types["first"], ["1_1"]);
  // A type compares the gold passages of t-1 and t (the authors' rule): 1_2 and 1_3 share none
  // with their predecessor; 1_4 and 1_5 follow or are a turn without gold, so they have no pair;
  // 1_6 shares p1 with 1_5; 1_7 has no gold and 1_8 follows it.
  assert.deepEqual(types["switch"], ["1_2", "1_3"]);
  assert.deepEqual(types["no-switch"], ["1_6"]);
});

test("mini-topiocqa: raw turns, DPR all_history files and the wiki segments TSV", async () => {
  const tsv = (await text("mini-topiocqa", "data/wikipedia_split/full_wiki_segments.tsv")).split("\n").filter((l) => l);
  assert.equal(tsv[0], "id\ttext\ttitle");
  const byId = new Map<string, { text: string; title: string }>();
  tsv.slice(1).forEach((line, i) => {
    const cols = line.split("\t");
    assert.equal(cols.length, 3);
    assert.equal(cols[0], String(i + 1));
    assert.match(cols[2] ?? "", /^[^\t]+ \[SEP\] [^\t]+$/);
    byId.set(cols[0] ?? "", { text: cols[1] ?? "", title: cols[2] ?? "" });
  });
  for (const split of ["train", "dev"] as const) {
    const raw = (await json("mini-topiocqa", `topiocqa_${split}.json`) as unknown[]).map(rec);
    const hist = (await json("mini-topiocqa", `data/retriever/all_history/${split}.json`) as unknown[]).map(rec);
    assert.equal(raw.length, hist.length);
    raw.forEach((t, i) => {
      const keys = ["Conversation_no", "Turn_no", "Context", "Question", "Answer", "Topic", "Topic_section", "Rationale", "is_nq"];
      assert.deepEqual(Object.keys(t), split === "dev" ? [...keys, "Additional_answers"] : keys);
      const h = hist[i] ?? {};
      assert.deepEqual(Object.keys(h), ["conv_id", "turn_id", "question", "answers", "positive_ctxs", "negative_ctxs", "hard_negative_ctxs"]);
      assert.equal(h["conv_id"], t["Conversation_no"]);
      assert.equal(h["turn_id"], t["Turn_no"]);
      assert.equal(h["question"], [...(t["Context"] as string[]), t["Question"]].join(" [SEP] "));
      const pos = rec((h["positive_ctxs"] as unknown[])[0]);
      assert.deepEqual(Object.keys(pos), ["title", "text", "passage_id"]);
      assert.equal(pos["title"], `${String(t["Topic"])} [SEP] ${String(t["Topic_section"])}`);
      assert.deepEqual(byId.get(pos["passage_id"] as string), { text: pos["text"], title: pos["title"] });
      assert.ok((pos["text"] as string).includes(t["Rationale"] as string));
      assert.ok((t["Rationale"] as string).includes(t["Answer"] as string));
      assert.equal(t["is_nq"], t["Turn_no"] === 1);
    });
  }
});

test("mini-orquac: preprocessed JSONL turns, blocks, dev blocks and qrels", async () => {
  const blocks = await jsonl("mini-orquac", "all_blocks.txt");
  const blockById = new Map(blocks.map((b) => [b["id"] as string, b] as const));
  for (const b of blocks) {
    assert.deepEqual(Object.keys(b), ["id", "title", "text", "aid", "bid"]);
    assert.equal(b["id"], `${String(b["aid"])}@${String(b["bid"])}`);
  }
  for (const b of await jsonl("mini-orquac", "dev_blocks.txt")) assert.deepEqual(blockById.get(b["id"] as string), b);
  const qrels = rec(await json("mini-orquac", "qrels.txt"));
  let n = 0;
  for (const split of ["train", "dev", "test"]) {
    const goldOfDialog = new Map<string, string>();
    for (const t of await jsonl("mini-orquac", `preprocessed/${split}.txt`)) {
      n++;
      assert.deepEqual(Object.keys(t), ["qid", "question", "rewrite", "answer", "history", "evidences", "retrieval_labels", "followup", "yesno"]);
      const m = /^(C_[0-9a-f]{32}_[01])_q#(\d+)$/.exec(t["qid"] as string);
      assert.ok(m, `qid ${String(t["qid"])}`);
      const [, dialog = "", k = ""] = m;
      assert.equal((t["history"] as unknown[]).length, Number(k));
      const gold = Object.keys(rec(qrels[t["qid"] as string]));
      assert.equal(gold.length, 1);
      const g = gold[0] ?? "";
      assert.equal(goldOfDialog.get(dialog) ?? g, g, "all turns of a dialog share one gold passage");
      goldOfDialog.set(dialog, g);
      const labels = t["retrieval_labels"] as number[];
      const evidences = t["evidences"] as string[];
      assert.equal(labels.length, evidences.length);
      assert.equal(labels.filter((x) => x === 1).length, 1);
      const goldText = evidences[labels.indexOf(1)] ?? "";
      assert.equal(goldText, blockById.get(g)?.["text"]);
      const a = rec(t["answer"]);
      assert.deepEqual(Object.keys(a), ["text", "answer_start", "bid"]);
      assert.equal(goldText.slice(a["answer_start"] as number, (a["answer_start"] as number) + (a["text"] as string).length), a["text"]);
      assert.ok(["y", "m", "n"].includes(t["followup"] as string));
      assert.equal(t["yesno"], "x");
    }
  }
  assert.equal(Object.keys(qrels).length, n);
});

test("mini-nq: standalone questions with their gold passage in psgs_w100.tsv", async () => {
  const tsv = (await text("mini-nq", "psgs_w100.tsv")).split("\n").filter((l) => l);
  assert.equal(tsv[0], "id\ttext\ttitle");
  const byId = new Map(tsv.slice(1).map((l) => { const [id = "", t = "", title = ""] = l.split("\t"); return [id, { t, title }] as const; }));
  const train = await jsonl("mini-nq", "nq-train.jsonl");
  const dev = await jsonl("mini-nq", "nq-dev.jsonl");
  assert.equal(train.length, 2);
  assert.equal(dev.length, 1);
  for (const q of [...train, ...dev]) {
    assert.deepEqual(Object.keys(q), ["question", "answers", "positive_passage_id", "positive_ctxs", "negative_ctxs", "hard_negative_ctxs"]);
    const pos = rec((q["positive_ctxs"] as unknown[])[0]);
    assert.equal(pos["passage_id"], q["positive_passage_id"]);
    assert.deepEqual(byId.get(q["positive_passage_id"] as string), { t: pos["text"], title: pos["title"] });
    for (const a of q["answers"] as string[]) assert.ok((pos["text"] as string).includes(a));
    assert.ok((q["question"] as string).includes(pos["title"] as string), "standalone questions name their entity");
  }
});
