/**
 * mini-topiocqa's Additional_answers: other annotators' short answers (seeded variants of the
 * answer), exact rows on the tiny world of formats.test.ts (seed 5, 8 entities), and what they do
 * to TopiOCQA's leave-one-out scoring: the oracle is no longer capped at EM 0.5.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeMiniDataset } from "../../../steps/data/mini/index.ts";
import { additionalAnswers, answerVariant } from "../../../steps/data/mini/additional-answers.ts";
import { rngFor } from "../../../steps/data/mini/rng.ts";
import { readReferences } from "../../../steps/qa/formats.ts";
import { answerability } from "../../../steps/qa/answerability.ts";
import { tempDir } from "../../tmp.ts";

const TINY = { seed: 5, entities: 8, trainTurns: 1, devTurns: 1, testTurns: 1, standaloneTrain: 2, standaloneDev: 1 };
let root = "";
before(async () => {
  root = tempDir("mini-additional-");
  await writeMiniDataset("mini-topiocqa", TINY, root);
});
after(async () => { await rm(root, { recursive: true, force: true }); });

type Row = Record<string, unknown>;
const jsonOf = async (f: string): Promise<Row[]> => JSON.parse(await readFile(join(root, f), "utf8")) as Row[];

test("variants: the surface form the scorer normalises away, a longer or shorter span of the rationale", () => {
  const rng = rngFor(1, "t");
  const prize = "The Empty River was awarded the Thouxkaerk Prize in 1990.";
  assert.equal(answerVariant(rng, "same", "Thouxkaerk Prize", prize), "Thouxkaerk Prize");
  // The article the rationale puts before the answer, or the answer's own article dropped; else the case changes.
  assert.equal(answerVariant(rng, "surface", "Thouxkaerk Prize", prize), "the Thouxkaerk Prize");
  assert.equal(answerVariant(rng, "surface", "the Thouxkaerk Prize", prize), "Thouxkaerk Prize");
  assert.equal(answerVariant(rng, "surface", "Empty River", prize), "the Empty River");
  assert.equal(answerVariant(rng, "surface", "oceanic", "The weather is oceanic."), "Oceanic");
  // Longer: two words on the only side there is, without the sentence's full stop or a trailing article.
  const cheese = "Kesktu Ford is known for producing cheese.";
  assert.equal(answerVariant(rng, "longer", "Kesktu Ford", cheese), "Kesktu Ford is known");
  assert.equal(answerVariant(rng, "longer", "cheese", cheese), "for producing cheese");
  assert.equal(answerVariant(rng, "longer", "Grioshonvux", "Grioshonvux established the first settlement."), "Grioshonvux established");
  // Shorter: one content word less; a one-word answer gets the longer span instead.
  assert.ok(["Prize", "the Thouxkaerk"].includes(answerVariant(rng, "shorter", "the Thouxkaerk Prize", prize)));
  assert.equal(answerVariant(rng, "shorter", "the cheese", "Kesktu Ford is known for the cheese"), "known for the cheese");
  // An answer that is not a whole-word run of the rationale has no longer span.
  assert.equal(answerVariant(rng, "longer", "Ford is kno", cheese), "Ford is kno");
  // Seeded per turn: the same (seed, conversation, turn) gives the same answers.
  assert.deepEqual(additionalAnswers(5, 1, 8, "Grioshonvux", "Bendtys Grioshonvux established the first settlement at Govzaethmouth."), ["Bendtys Grioshonvux", "Grioshonvux established"]);
});

test("tiny world: every dev turn has two additional answers, short variants of its answer with the answer's topic and rationale; train has none", async () => {
  const dev = await jsonOf("topiocqa_dev.json");
  assert.deepEqual(
    dev.map((t) => [t["Turn_no"], t["Answer"], ...(t["Additional_answers"] as Row[]).map((a) => a["Answer"])]),
    [
      [1, "1218", "founded in 1218", "founded in 1218"],
      [2, "95000", "95000", "95000"],
      [3, "southern", "the southern", "the southern"],
      [4, "Hainvraem festival", "Hainvraem festival", "Hainvraem festival"],
      [5, "pottery", "living from pottery", "living from pottery"],
      [6, "a tower report", "a tower report", "measured in a tower report"],
      [7, "candles", "Traders sell candles", "candles"],
      [8, "Grioshonvux", "Bendtys Grioshonvux", "Grioshonvux established"],
      [9, "windmill", "windmill", "windmill"],
      [10, "Naethfa", "the river Naethfa", "the river Naethfa"],
      [11, "oceanic", "oceanic", "Oceanic"],
      [12, "Vondpour", "the name Vondpour", "vondpour"],
      [13, "smoked eel", "smoked eel", "smoked eel"],
      [14, "1218", "1218", "1218"],
    ],
  );
  for (const t of dev) {
    for (const a of t["Additional_answers"] as Row[]) {
      assert.deepEqual(Object.keys(a), ["Answer", "Topic", "Topic_section", "Rationale"]);
      assert.deepEqual([a["Topic"], a["Topic_section"], a["Rationale"]], [t["Topic"], t["Topic_section"], t["Rationale"]]);
    }
  }
  for (const t of await jsonOf("topiocqa_train.json")) assert.equal("Additional_answers" in t, false);
});

test("tiny world through answerability.ts: reading the gold passage, the leave-one-out oracle reaches EM 41/42, not 0.5", async () => {
  const refs = readReferences(join(root, "topiocqa_dev.json")).references;
  const hist = await jsonOf("data/retriever/all_history/dev.json");
  const passages = new Map<string, string>();
  const turns = refs.map((r, i) => {
    const pos = (hist[i]!["positive_ctxs"] as Row[])[0]!;
    passages.set(pos["passage_id"] as string, pos["text"] as string);
    return { qid: r.qid, answers: r.answers, goldPassageIds: [pos["passage_id"] as string], ranked: [pos["passage_id"] as string] };
  });
  const a = answerability(turns, passages, { scoring: "topiocqa", ks: [1], maxAnswerTokens: 10 });
  assert.equal(a.n, 14);
  // 13 turns where an additional answer agrees with a span (EM 1); turn 8's three answers all
  // differ ("Grioshonvux", "Bendtys Grioshonvux", "Grioshonvux established"): EM 2/3, F1 8/9.
  assert.ok(Math.abs(a.metrics["oracle-em@1"]! - 41 / 42) < 1e-12, String(a.metrics["oracle-em@1"]));
  assert.ok(Math.abs(a.metrics["oracle-f1@1"]! - (13 + 8 / 9) / 14) < 1e-12, String(a.metrics["oracle-f1@1"]));
  assert.deepEqual(a.perTurn.filter((t) => t.metrics["oracle-em@1"] !== 1).map((t) => t.qid), ["1_8"]);
});
