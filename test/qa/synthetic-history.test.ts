import { test } from "node:test";
import assert from "node:assert/strict";
import type { TurnRow } from "../../steps/data/schemas.ts";
import { withSyntheticHistory, type SyntheticHistoryCounts } from "../../steps/qa/synthetic-history.ts";

const turn = (qid: string, gold: string | null, split = "train"): TurnRow => ({
  dataset: "nq" as TurnRow["dataset"],
  split,
  conversation_id: qid,
  turn: 1,
  qid,
  question: `q${qid}?`,
  rewrite: null,
  answer: `a${qid}`,
  history: [],
  gold_passage_ids: gold === null ? [] : [gold],
  source_domain: null,
  question_type: null,
  topic: null,
  topic_section: null,
});

// Entity A: passages pa1, pa2 (five questions); entity B: pb (one question); one turn without gold; one of A in dev.
const TITLES = new Map([
  ["pa1", "A"],
  ["pa2", "A"],
  ["pb", "B"],
]);
const TURNS = [turn("1", "pa1"), turn("2", "pa2"), turn("3", "pa1"), turn("4", "pa1"), turn("5", "pa2"), turn("6", "pb"), turn("7", null), turn("8", "pa1", "dev")];
const counts = (): SyntheticHistoryCounts => ({ turns: 0, withHistory: 0, items: 0, noEntity: 0 });
const run = (turns: readonly TurnRow[], maxTurns: number, seed = 1) => withSyntheticHistory(turns, (pid) => TITLES.get(pid) ?? null, { maxTurns, seed }, counts());

test("a turn's history holds only other questions of its split about the same entity, with their answers, each once", () => {
  const c = counts();
  const out = withSyntheticHistory(TURNS, (pid) => TITLES.get(pid) ?? null, { maxTurns: 8, seed: 1 }, c);
  assert.deepEqual(out.map((t) => t.qid), TURNS.map((t) => t.qid), "order kept");
  const entityA = new Set(["1", "2", "3", "4", "5"]);
  for (const t of out.slice(0, 5)) {
    const qids = t.history.map((h) => h.question.slice(1, -1));
    assert.equal(new Set(qids).size, qids.length, `no repeats in ${t.qid}`);
    for (const q of qids) {
      assert.ok(entityA.has(q) && q !== t.qid, `${t.qid}'s history holds ${q}`);
      assert.ok(t.history.some((h) => h.answer === `a${q}`));
    }
    assert.ok(t.history.length <= 4);
  }
  // B has one question, the turn without gold none, and dev's only A question has no other in dev.
  assert.deepEqual([out[5]!.history, out[6]!.history, out[7]!.history], [[], [], []]);
  assert.deepEqual({ turns: c.turns, noEntity: c.noEntity }, { turns: 8, noEntity: 1 });
  assert.equal(c.items, out.reduce((n, t) => n + t.history.length, 0));
  assert.equal(c.withHistory, out.filter((t) => t.history.length > 0).length);
});

test("histories depend on the seed and the qid only: the same for a shuffled table, other for another seed", () => {
  const a = run(TURNS, 4);
  const b = run([...TURNS].reverse(), 4);
  const byQid = new Map(b.map((t) => [t.qid, t.history]));
  for (const t of a) assert.deepEqual(byQid.get(t.qid), t.history, t.qid);
  const seeds = [2, 3, 4, 5, 6].map((s) => JSON.stringify(run(TURNS, 4, s).map((t) => t.history)));
  assert.ok(seeds.some((s) => s !== JSON.stringify(a.map((t) => t.history))), "some other seed draws another history");
});

test("maxTurns bounds the length; 0 gives every turn an empty history; lengths cover 0..maxTurns", () => {
  assert.ok(run(TURNS, 0).every((t) => t.history.length === 0));
  assert.ok(run(TURNS, 2).every((t) => t.history.length <= 2));
  // Over many seeds, entity A's turns (4 others each) reach every length 0..4.
  const lengths = new Set<number>();
  for (let s = 0; s < 40; s++) for (const t of run(TURNS, 4, s).slice(0, 5)) lengths.add(t.history.length);
  assert.deepEqual([...lengths].sort(), [0, 1, 2, 3, 4]);
});
