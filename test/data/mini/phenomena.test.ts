/**
 * One test per property of real conversational data the mini world reproduces (params.ts
 * lists the knobs and the statistic each one stands for), measured on the default worlds.
 * Bounds leave room for sampling noise around the knob's value; a bound that fails means the
 * generator no longer produces the property, not that a number moved a little.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateWorld, resolveParams } from "../../../steps/data/mini/index.ts";
import type { Conversation, MiniDatasetName, Turn, World } from "../../../steps/data/mini/index.ts";

const worlds = new Map<string, World>();
function world(name: MiniDatasetName): World {
  let w = worlds.get(name);
  if (w === undefined) worlds.set(name, (w = generateWorld(resolveParams(name))));
  return w;
}

interface Step { readonly c: Conversation; readonly t: Turn; readonly prev: Turn | undefined }
const steps = (w: World): Step[] => w.conversations.flatMap((c) => c.turns.map((t, i) => ({ c, t, prev: c.turns[i - 1] })));
const share = <T>(items: readonly T[], pred: (x: T) => boolean): number => items.filter(pred).length / Math.max(1, items.length);
const nameOf = (w: World, t: Turn) => w.entities[t.entity]!;

test("vocabulary mismatch: the share of paraphrased questions follows questions.paraphraseRate", () => {
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac"] as const) {
    const w = world(name);
    const asked = steps(w).filter((s) => s.t.form !== "open");
    const rate = w.params.flavor.questions.paraphraseRate;
    assert.ok(Math.abs(share(asked, (s) => s.t.wording === "paraphrase") - rate) < 0.05, `${name}: paraphrase share near ${rate}`);
  }
});

test("underspecified follow-ups: pronoun, elliptic, anaphoric and open questions never name their entity; the rewrite does", () => {
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac"] as const) {
    const w = world(name);
    const vague = steps(w).filter((s) => ["pronoun", "short", "anaphor", "open"].includes(s.t.form));
    assert.ok(vague.length > 0.5 * steps(w).filter((s) => s.prev !== undefined).length, `${name}: most follow-ups are underspecified`);
    for (const { t } of vague) {
      const e = nameOf(w, t);
      assert.ok(!t.question.includes(e.shortName), `${name}: "${t.question}" names ${e.name}`);
      assert.ok(t.rewrite.includes(e.name), `${name}: rewrite "${t.rewrite}" resolves ${e.name}`);
    }
  }
});

test("continuity: same-topic follow-ups often stay in the previous passage (QReCC), always in OR-QuAC", () => {
  const q = steps(world("mini-qrecc")).filter((s) => s.prev !== undefined && s.t.type === "no-switch");
  const same = share(q, (s) => s.prev?.answerPassage === s.t.answerPassage);
  assert.ok(same > 0.35 && same < 0.75, `QReCC same passage ${same.toFixed(3)}`);
  const o = steps(world("mini-orquac")).filter((s) => s.prev !== undefined);
  assert.equal(share(o, (s) => s.prev?.answerPassage === s.t.answerPassage), 1);
});

test("topic switches: TopiOCQA has several topics per conversation, mostly reached through the previous answer", () => {
  const w = world("mini-topiocqa");
  const topics = w.conversations.map((c) => new Set(c.turns.map((t) => t.entity)).size);
  const mean = topics.reduce((a, b) => a + b, 0) / topics.length;
  assert.ok(mean > 2.5 && mean < 5, `topics per conversation ${mean.toFixed(2)} (TopiOCQA: about 4)`);
  const switches = steps(w).filter((s) => s.t.type === "switch");
  assert.ok(share(steps(w).filter((s) => s.prev !== undefined), (s) => s.t.type === "switch") > 0.15);
  // a switch that follows a link: the new entity is named in the answer just given
  const linked = share(switches, (s) => (s.prev?.answer ?? "").includes(nameOf(w, s.t).shortName));
  assert.ok(linked > 0.5, `linked switches ${linked.toFixed(3)}`);
  // QuAC-based conversations never switch
  assert.ok(world("mini-qrecc").conversations.filter((c) => c.domain === "quac").every((c) => c.turns.every((t) => t.type !== "switch")));
  assert.equal(share(steps(world("mini-orquac")), (s) => s.t.type === "switch"), 0);
});

test("hard negatives exist: entities have several passages, names share parts, popular names fill other passages", () => {
  for (const name of ["mini-qrecc", "mini-topiocqa", "mini-orquac", "mini-nq"] as const) {
    const w = world(name);
    const per = new Map<number, number>();
    for (const p of w.passages) per.set(p.entity, (per.get(p.entity) ?? 0) + 1);
    assert.equal(per.size, w.entities.length);
    assert.ok([...per.values()].every((n) => n >= 4), `${name}: Introduction + at least 3 passages`);
    const shortCount = new Map<string, number>();
    for (const e of w.entities) shortCount.set(e.shortName, (shortCount.get(e.shortName) ?? 0) + 1);
    assert.ok(share(w.entities, (e) => (shortCount.get(e.shortName) ?? 0) > 1) > 0.4, `${name}: most short names are shared`);
    const mentioned = new Map<number, number>();
    for (const p of w.passages) for (const m of p.mentions) mentioned.set(m, (mentioned.get(m) ?? 0) + 1);
    const counts = [...mentioned.values()].sort((a, b) => b - a);
    assert.ok((counts[0] ?? 0) > 20 * (counts[Math.floor(counts.length / 2)] ?? 1), `${name}: the most popular entity is mentioned far more than the median one`);
  }
});

test("popularity: conversations are about popular entities (Zipf), uniform when popularity is 0", () => {
  // share of conversations opening on the pool's 10% most popular entities (by popularity rank)
  const opening = (w: World) => share(w.conversations, (c) => (w.pool.rankOf[c.turns[0]!.entity] ?? 0) < w.entities.length / 10);
  assert.ok(opening(world("mini-topiocqa")) > 0.5);
  const uniform = opening(generateWorld(resolveParams("mini-topiocqa", { popularity: 0, scale: 0 })));
  assert.ok(uniform > 0.03 && uniform < 0.2, `uniform ${uniform}`);
});

test("answers: QReCC a fact sentence, OR-QuAC a span at answerStart, TopiOCQA a short free form naming related entities briefly", () => {
  for (const { t } of steps(world("mini-orquac"))) {
    const p = world("mini-orquac").passageById.get(t.answerPassage)!;
    assert.equal(p.text.slice(t.answerStart, t.answerStart + t.answer.length), t.answer);
  }
  for (const { t } of steps(world("mini-qrecc"))) {
    assert.ok(/[.]$/.test(t.answer) && t.rationale === t.answer, `QReCC answers are sentences: ${t.answer}`);
  }
  const tw = world("mini-topiocqa");
  const answers = steps(tw).map((s) => s.t.answer.split(" ").length);
  assert.ok(answers.reduce((a, b) => a + b, 0) / answers.length < 4, "TopiOCQA answers are short");
  for (const { t } of steps(tw)) assert.ok(t.rationale.length >= t.answer.length);
});

test("mini-qrecc keeps QReCC's quirks: turns without gold, a few with two gold passages, three sub-domains", () => {
  const w = world("mini-qrecc");
  const test_ = w.conversations.filter((c) => c.split === "test");
  const turns = test_.flatMap((c) => c.turns);
  const noGold = share(turns, (t) => t.gold.length === 0);
  const multi = share(turns, (t) => t.gold.length > 1);
  assert.ok(noGold > 0.1 && noGold < 0.3, `no-gold share ${noGold}`);
  assert.ok(multi > 0.01 && multi < 0.3, `multi-gold share ${multi}`);
  assert.deepEqual([...new Set(test_.map((c) => c.domain))].sort(), ["nq", "quac", "trec"]);
  for (const t of turns) if (t.gold.length > 0) assert.ok(t.gold.includes(t.answerPassage));
});

test("mini-nq questions are self-contained (full names) and never repeat a dev/test conversation question", () => {
  const w = generateWorld(resolveParams("mini-qrecc", { standaloneTrain: 500, standaloneDev: 50 }));
  assert.equal(w.standalone.length, 550);
  const conv = new Set(w.conversations.filter((c) => c.split !== "train").flatMap((c) => c.turns.flatMap((t) => [t.question, t.rewrite])));
  for (const q of w.standalone) {
    assert.ok(!conv.has(q.question));
    const e = w.entities[q.entity];
    assert.ok(e !== undefined && q.question.includes(e.name));
  }
});
