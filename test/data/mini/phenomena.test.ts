/**
 * The phenomena the paper studies exist in the default mini datasets, measured with the
 * small tf-idf retriever in lexical.ts over the pool collection (dev/test turns with gold).
 *
 * Measured with the default params (hit@10 = any gold passage in the top 10):
 *                               mini-qrecc  mini-topiocqa  mini-orquac
 *   history without q_t, no-switch   0.902       0.657        1.000
 *   history without q_t, switch      0.028       0.024          -
 *   q_t alone, pronoun follow-ups    0.022       0.005        0.003
 *   gold rewrite, pronoun follow-ups 1.000       0.995        1.000
 * The history names the entity whose passages hold the next answer (the shortcut) unless the
 * topic switched; a pronoun question alone names nothing specific; the rewrite does.
 * (TopiOCQA is lower on no-switch: half of its Introduction-restated facts are answered from
 * the Introduction, which shares less with the history than a section passage does.)
 * The data is deterministic; thresholds leave a few points of margin for generator changes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateWorld, resolveParams } from "../../../steps/data/mini/index.ts";
import type { MiniDatasetName, World } from "../../../steps/data/mini/index.ts";
import { TfIdf } from "./lexical.ts";

interface Rates { [k: string]: { hit: number; n: number } }

function measure(w: World): Rates {
  const idx = new TfIdf(w.passages.map((p) => p.id), w.passages.map((p) => p.text));
  const r: Rates = {};
  const add = (k: string, hit: boolean) => { const a = r[k] ?? { hit: 0, n: 0 }; a.hit += hit ? 1 : 0; a.n++; r[k] = a; };
  for (const c of w.conversations) {
    if (c.split === "train") continue;
    const history: string[] = [];
    for (const t of c.turns) {
      if (t.gold.length > 0) {
        const hit = (q: string) => idx.search(q, 10).some((id) => t.gold.includes(id));
        if (t.type !== "first") add(`history ${t.type}`, hit(history.join(" ")));
        if (t.form === "pronoun") { add("question pronoun", hit(t.question)); add("rewrite pronoun", hit(t.rewrite)); }
      }
      history.push(t.question, t.answer);
    }
  }
  return r;
}

const rate = (r: Rates, k: string): number => {
  const a = r[k];
  assert.ok(a !== undefined && a.n >= 30, `enough '${k}' turns to measure (${a?.n ?? 0})`);
  return a.hit / a.n;
};

const EXPECT: Record<Exclude<MiniDatasetName, "mini-nq">, { noSwitch: number; switch?: number }> = {
  "mini-qrecc": { noSwitch: 0.85, switch: 0.1 },
  "mini-topiocqa": { noSwitch: 0.6, switch: 0.1 },
  "mini-orquac": { noSwitch: 0.95 },
};

for (const [name, e] of Object.entries(EXPECT)) {
  test(`${name}: history finds no-switch golds, not switch golds; pronoun questions need the rewrite`, () => {
    const r = measure(generateWorld(resolveParams(name as MiniDatasetName)));
    assert.ok(rate(r, "history no-switch") >= e.noSwitch, `history no-switch ${rate(r, "history no-switch")}`);
    if (e.switch !== undefined) assert.ok(rate(r, "history switch") <= e.switch, `history switch ${rate(r, "history switch")}`);
    assert.ok(rate(r, "question pronoun") <= 0.1, `q_t alone ${rate(r, "question pronoun")}`);
    assert.ok(rate(r, "rewrite pronoun") >= 0.95, `rewrite ${rate(r, "rewrite pronoun")}`);
  });
}

test("answers are spans of the gold passage, and every entity has several passages", () => {
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac"] as const) {
    const w = generateWorld(resolveParams(name));
    for (const c of w.conversations) {
      for (const t of c.turns) {
        const p = w.passageById.get(t.answerPassage);
        assert.ok(p !== undefined);
        assert.equal(p.text.slice(t.answerStart, t.answerStart + t.answer.length), t.answer);
        if (t.gold.length > 0) assert.ok(t.gold.includes(t.answerPassage));
        assert.ok(t.rationale.includes(t.answer));
      }
    }
    const perEntity = new Map<number, number>();
    for (const p of w.passages) perEntity.set(p.entity, (perEntity.get(p.entity) ?? 0) + 1);
    assert.equal(perEntity.size, w.entities.length);
    assert.ok([...perEntity.values()].every((n) => n >= 4), "Introduction + at least 3 sections");
    const words = w.passages.map((p) => p.text.split(" ").length);
    assert.ok(Math.min(...words) >= 40 && Math.max(...words) <= 150, `passage words ${Math.min(...words)}..${Math.max(...words)}`);
  }
});

test("mini-qrecc keeps QReCC's quirks: turns without gold, a few with two gold passages, three sub-domains", () => {
  const w = generateWorld(resolveParams("mini-qrecc"));
  const test_ = w.conversations.filter((c) => c.split === "test");
  const turns = test_.flatMap((c) => c.turns);
  const noGold = turns.filter((t) => t.gold.length === 0).length / turns.length;
  const multi = turns.filter((t) => t.gold.length > 1).length / turns.length;
  assert.ok(noGold > 0.1 && noGold < 0.3, `no-gold share ${noGold}`);
  assert.ok(multi > 0.03 && multi < 0.3, `multi-gold share ${multi}`);
  assert.deepEqual([...new Set(test_.map((c) => c.domain))].sort(), ["nq", "quac", "trec"]);
  assert.ok(test_.filter((c) => c.domain === "quac").every((c) => c.turns.every((t) => t.type !== "switch")), "QuAC conversations stay on topic");
});

test("mini-nq questions are self-contained and never repeat a dev/test conversation question", () => {
  const w = generateWorld(resolveParams("mini-qrecc", { standaloneTrain: 500, standaloneDev: 50 }));
  assert.equal(w.standalone.length, 550);
  const conv = new Set(w.conversations.filter((c) => c.split !== "train").flatMap((c) => c.turns.flatMap((t) => [t.question, t.rewrite])));
  for (const q of w.standalone) {
    assert.ok(!conv.has(q.question));
    const e = w.entities[q.entity];
    assert.ok(e !== undefined && q.question.includes(e.name));
  }
});
