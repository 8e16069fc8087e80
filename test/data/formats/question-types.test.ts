import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseQuestionTypeLabels } from "../../../steps/data/formats/qrecc.ts";
import { parseJsonQrels } from "../../../steps/data/formats/qrels.ts";
import { readJsonFile } from "../../../steps/data/formats/records.ts";
import type { TurnRow } from "../../../steps/data/schemas.ts";
import { applyLabels, compareWithLabels, goldOverlapTypes, topicTypes, turnsFromQrels } from "../../../steps/data/preprocess/question-types.ts";
import { chooseDevConversations, devSize, splitmix32 } from "../../../steps/data/preprocess/dev-split.ts";

function row(conv: string, turn: number, gold: string[], domain: string | null = "nq", topic: string | null = null): TurnRow {
  return {
    dataset: "qrecc",
    split: "test",
    conversation_id: conv,
    turn,
    qid: `${conv}_${turn}`,
    question: "q",
    rewrite: null,
    answer: null,
    history: [],
    gold_passage_ids: gold,
    source_domain: domain,
    question_type: null,
    topic,
    topic_section: null,
  };
}

const QRECC = { domains: new Set(["nq", "trec"]), rule: "shared-page" as const };

test("gold-overlap rule: first, shared passage, shared document, switch, missing gold, quac excluded", () => {
  const rows = [
    row("1", 1, []), // first even without gold
    row("1", 2, ["u/a_p0"]), // previous turn has no gold -> null
    row("1", 3, ["u/a_p1"]), // same document u/a -> no-switch
    row("1", 4, ["u/b_p0", "u/a_p1"]), // shares passage u/a_p1 -> no-switch
    row("1", 5, ["u/c_p0"]), // nothing shared -> switch
    row("1", 6, []), // no gold -> null
    row("2", 2, ["u/a_p0"]), // turn 1 missing -> null
    row("3", 1, ["u/q_p0"], "quac"), // quac -> null
    row("3", 2, ["u/q_p0"], "quac"),
    row("4", 1, ["u/x_p0"], null), // unknown domain -> null
  ];
  assert.deepEqual(goldOverlapTypes(rows, QRECC), ["first", null, "no-switch", "no-switch", "switch", null, null, null, null, null]);
  // no domain filter and passage-only overlap (OR-QuAC)
  assert.deepEqual(goldOverlapTypes(rows.slice(7), { domains: null, rule: "shared-passage" as const }), ["first", "no-switch", "first"]);
  // "u/a_p1" vs "u/a_p0" without the document rule is a switch
  assert.deepEqual(goldOverlapTypes([row("9", 1, ["u/a_p0"]), row("9", 2, ["u/a_p1"])], { domains: null, rule: "shared-passage" as const }), ["first", "switch"]);
});

test("topic rule: first, continues, switch, unknown topic", () => {
  const rows = [row("1", 1, [], null, "Messi"), row("1", 2, [], null, "Messi"), row("1", 3, [], null, "Rosario"), row("1", 4, [], null, null), row("2", 3, [], null, "X")];
  assert.deepEqual(topicTypes(rows), ["first", "topic-continues", "topic-switch", null, null]);
});

test("agreement with a labels file: confusion counts over turns typed on either side", () => {
  const rows = [row("1", 1, ["a_p0"]), row("1", 2, ["a_p1"]), row("1", 3, ["b_p0"]), row("2", 1, ["c_p0"], "quac")];
  const computed = goldOverlapTypes(rows, QRECC); // first, no-switch, switch, null
  const labels = {
    domain: new Map([["2_1", "quac"]]),
    type: new Map<string, "first" | "switch" | "no-switch">([
      ["1_1", "first"],
      ["1_2", "switch"],
      ["1_3", "switch"],
    ]),
  };
  const a = compareWithLabels(rows, computed, labels);
  assert.deepEqual(a.confusion, { first: { first: 1 }, switch: { "no-switch": 1, switch: 1 } });
  assert.equal(a.total, 3);
  assert.equal(a.agree, 2);
  assert.equal(a.agreement, 2 / 3);

  const copy = rows.map((r, i) => ({ ...r, question_type: computed[i] ?? null, source_domain: i === 3 ? null : r.source_domain }));
  assert.deepEqual(applyLabels(copy, labels, "override"), { domainConflicts: 0 });
  assert.deepEqual(copy.map((r) => r.question_type), ["first", "switch", "switch", null]);
  assert.equal(copy[3]!.source_domain, "quac");
  assert.deepEqual(applyLabels([row("2", 1, [], "nq")], labels, "compare"), { domainConflicts: 1 });
});

test("dev split: clamp rule", () => {
  assert.equal(devSize(10_823, { devConversations: 2000, seed: 42 }), 2000);
  assert.equal(devSize(100, { devConversations: 2000, seed: 42 }), 20);
  assert.equal(devSize(5, { devConversations: 2000, seed: 42 }), 1);
  assert.equal(devSize(1, { devConversations: 2000, seed: 42 }), 0);
  assert.equal(devSize(100, { devConversations: 0, seed: 42 }), 0);
  assert.equal(devSize(100, { devConversations: 3, seed: 42, maxFraction: 0.5 }), 3);
  assert.throws(() => devSize(10, { devConversations: -1, seed: 1 }), RangeError);
});

test("dev split: deterministic for a seed, independent of input order, different for another seed", () => {
  const ids = Array.from({ length: 200 }, (_, i) => String(i + 1));
  const a = chooseDevConversations(ids, { devConversations: 25, seed: 42 });
  const b = chooseDevConversations([...ids].reverse().concat(ids), { devConversations: 25, seed: 42 });
  const c = chooseDevConversations(ids, { devConversations: 25, seed: 7 });
  assert.equal(a.length, 25);
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  assert.ok(a.every((x, i) => i === 0 || Number(a[i - 1]) < Number(x)));
  // pinned outputs: changing the generator silently changes every dev split
  const r = splitmix32(0);
  assert.deepEqual([r(), r(), r()].map((x) => Math.round(x * 4294967296)), [2462723854, 1020716019, 454327756]);
  assert.deepEqual(chooseDevConversations(["1", "2", "3", "4", "5"], { devConversations: 2000, seed: 42 }), ["3"]);
});

test("agreement per class on a hand-made QReCC test fragment (real qrels and labels formats): passage ids, not pages", () => {
  const dir = join(import.meta.dirname, "fixtures", "qrecc", "types");
  const qrelsFile = join(dir, "qrels.txt");
  const labelsFile = join(dir, "test_question_types.json");
  const labels = parseQuestionTypeLabels(readJsonFile(labelsFile).value, labelsFile);
  const rows = turnsFromQrels(parseJsonQrels(readJsonFile(qrelsFile).value, qrelsFile).gold, labels);
  const per = (rule: "shared-passage" | "shared-page") => {
    const a = compareWithLabels(rows, goldOverlapTypes(rows, { domains: new Set(["nq", "trec"]), rule }), labels);
    return Object.fromEntries(Object.entries(a.perClass).map(([c, x]) => [c, `${x.both}/${x.labelled}`]));
  };
  // same page, another paragraph: the labels call it a switch, the page rule does not
  assert.deepEqual(per("shared-passage"), { first: "5/5", "no-switch": "5/6", switch: "7/8" });
  assert.deepEqual(per("shared-page"), { first: "5/5", "no-switch": "5/6", switch: "2/8" });
  // the step default is the passage rule
  assert.deepEqual(goldOverlapTypes(rows, { domains: new Set(["nq", "trec"]) }), goldOverlapTypes(rows, { domains: new Set(["nq", "trec"]), rule: "shared-passage" }));
  const a = compareWithLabels(rows, goldOverlapTypes(rows, { domains: new Set(["nq", "trec"]) }), labels);
  assert.deepEqual(a.disagreements, [
    { qid: "2449_3", label: "switch", computed: "no-switch" },
    { qid: "55_2", label: "no-switch", computed: "switch" },
  ]);
});
