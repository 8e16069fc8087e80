import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { registerDiagnoseCommand } from "../../pipeline/commands/diagnose.ts";
import { DATASETS } from "../../steps/data/datasets/registry.ts";
import { parseConversations } from "../../steps/diagnose/conversations.ts";
import { diagnose, type TurnMetrics } from "../../steps/diagnose/core.ts";
import type { LineBatch } from "../../steps/files/hashed-lines.ts";
import { tempDir } from "../tmp.ts";

/*
 * A hand-made dataset with known exposure (fixtures/, also the README's worked example).
 * 8 passages on four topics; 3 conversations:
 *   c1: t1 "Who founded Apple?" (first), t2 "Where is its headquarters?" (gold apple_p1 again: no-switch),
 *       t3 "What is the tallest volcano on Mars?" (mars_p2: switch);
 *   c2 (lines out of order): t1 jazz origin (first), t2 "Which trumpeter came from there?" (jazz_p2: a
 *       different passage, so switch by the passage rule), t3 no gold (not scored);
 *   c3: types given in TopiOCQA keys: 1st, tc.
 * BM25 over X_t \ q_t, top 10 of 8 passages: nothing for first turns (empty history); c1t2's history
 * names Apple, Jobs, Wozniak, Cupertino (apple_p1 found); c1t3's history shares no term with mars_p2;
 * c2t2's history shares jazz / New Orleans with jazz_p2; c3t2's history shares green tea with tea_p1.
 * X_t finds every gold in the top 10. Recall@10 kept without q_t: all 3/7, first 0/3, switch 1/2,
 * no-switch 2/2.
 */
const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));
const conversations = join(fixtures, "conversations.jsonl");
const passages = join(fixtures, "passages.jsonl");
const dir = tempDir("cspipe-diagnose-");
const store = join(dir, "store");

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command("cspipe").exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerDiagnoseCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {} }, (c) => (code = c));
  await program.parseAsync(["diagnose", ...args], { from: "user" });
  return { code, stdout, stderr };
}

async function* lines(text: string): AsyncGenerator<LineBatch> {
  yield { lines: text.split("\n"), firstLine: 1 };
}

test("conversations: history from the earlier turns, types given or computed from gold", async () => {
  const turns = await parseConversations(lines(readFileSync(conversations, "utf8")), "conversations.jsonl", "all");
  assert.deepEqual(turns.map((t) => [t.qid, t.question_type, t.typeSource]), [
    ["c1_1", "first", "computed"],
    ["c1_2", "no-switch", "computed"],
    ["c1_3", "switch", "computed"],
    ["c2_1", "first", "computed"],
    ["c2_2", "switch", "computed"],
    ["c2_3", null, "none"],
    ["c3_1", "first", "given"],
    ["c3_2", "no-switch", "given"],
  ]);
  assert.deepEqual(turns[4]!.history, [{ question: "Where did jazz originate?", answer: "New Orleans." }]);
  assert.equal(turns[5]!.history[1]!.answer, "Louis Armstrong.");
});

test("conversations: bad lines name the file, the line and the field", async () => {
  const bad = async (text: string) => parseConversations(lines(text), "c.jsonl", "all");
  const t = (o: object) => JSON.stringify({ conversation_id: "a", turn: 1, question: "q", ...o });
  await assert.rejects(bad(t({ gold: ["x"] })), /c\.jsonl:1: field 'gold': unknown field 'gold'/);
  await assert.rejects(bad(`${t({})}\n${t({ turn: 3 })}`), /c\.jsonl:2: field 'turn': conversation 'a' has no turn 2 \(its turns are 1, 3\)/);
  await assert.rejects(bad(`${t({})}\n${t({})}`), /c\.jsonl:2: field 'qid': qid 'a_1' appears twice/);
  await assert.rejects(bad(t({ question_type: "topic" })), /field 'question_type': unknown question_type 'topic'/);
  await assert.rejects(bad(t({ turn: 0 })), /field 'turn': turn must be an integer >= 1/);
  await assert.rejects(bad(`${t({})}\n{"conversation_id": `), /c\.jsonl:2: malformed JSON/);
});

test("core: kept share and solved-without-q per group, exact where every resample agrees", () => {
  const row = (qid: string, type: TurnMetrics["type"], withoutQ: number, full: number): TurnMetrics => ({
    qid,
    type,
    forms: { q_t: { mrr: 0, "recall@10": 0, "success@10": 0 }, history_without_q: { mrr: 0, "recall@10": withoutQ, "success@10": withoutQ > 0 ? 1 : 0 }, history: { mrr: 0, "recall@10": full, "success@10": 1 } },
  });
  const groups = diagnose([row("a", "first", 0, 1), row("b", "no-switch", 0.5, 1), row("c", "no-switch", 1, 1), row("d", "switch", 0, 0.5)], { cutoffs: [10], samples: 200, seed: 1, level: 0.95 });
  assert.deepEqual(groups.map((g) => [g.group, g.n]), [["all", 4], ["first", 1], ["switch", 1], ["no-switch", 2]]);
  assert.equal(groups[0]!.keptShare["10"]!.value, 1.5 / 3.5);
  assert.deepEqual(groups[1]!.keptShare["10"], { value: 0, low: 0, high: 0 });
  assert.equal(groups[3]!.keptShare["10"]!.value, 0.75);
  assert.deepEqual(groups[3]!.solvedWithoutQ["10"], { value: 1, low: 1, high: 1 });
});

test("diagnose on the hand-made dataset: known exposure, report files, cached rerun, missing gold warned", async () => {
  const out = join(dir, "report");
  const r = await cli(["--conversations", conversations, "--collection", passages, "--cutoffs", "10", "--out", out, "--store", store]);
  assert.equal(r.code, 0, r.stderr);
  const d = JSON.parse(readFileSync(join(out, "diagnosis.json"), "utf8"));
  const byGroup = Object.fromEntries(d.groups.map((g: { group: string; n: number; keptShare: Record<string, { value: number }>; solvedWithoutQ: Record<string, { value: number }> }) => [g.group, [g.n, g.keptShare["10"]!.value, g.solvedWithoutQ["10"]!.value]]));
  assert.deepEqual(byGroup, { all: [7, 3 / 7, 3 / 7], first: [3, 0, 0], switch: [2, 0.5, 0.5], "no-switch": [2, 1, 1] });
  assert.deepEqual(d.counts, { conversations: 3, turns: 8, withGold: 7, passages: 8, types: { given: 2, computed: 5, none: 0 } });
  assert.equal(d.missingGold.count, 0);
  // stdout is plain text: the caution about 7 turns first, no conclusion the intervals do not support, no Markdown escapes
  assert.match(r.stdout, /^Shortcut exposure: conversations\.jsonl\n\nCaution: only 7 scored turns \(turns with gold\): the intervals are wide, so read the shares below as indications, not findings\.\n\nWithout reading the current question, BM25 over the conversation history \(X_t \\ q_t\) keeps 42\.9% \[/);
  assert.match(r.stdout, /\nNo-switch turns \(kept share 100\.0%, N=2\) and switch turns \(50\.0%, N=2\) do not differ clearly at this size: their intervals overlap\.\n/);
  const lines = r.stdout.split("\n");
  assert.equal(lines.find((l) => l.startsWith("question type")), "question type  N  R@10 q_t  R@10 X_t \\ q_t  R@10 X_t      kept share @10 [CI]  solved without q_t @10 [CI]");
  assert.equal(lines.find((l) => l.startsWith("no-switch")), "no-switch      2     50.0%          100.0%    100.0%  100.0% [100.0%, 100.0%]      100.0% [100.0%, 100.0%]");
  assert.match(readFileSync(join(out, "report.md"), "utf8"), /^# Shortcut exposure: conversations\.jsonl\n\n\*\*Caution: only 7 scored turns/);
  assert.match(readFileSync(join(out, "report.html"), "utf8"), /^<!doctype html>[\s\S]*<td>no-switch<\/td><td>2<\/td>/);
  const again = await cli(["--conversations", conversations, "--collection", passages, "--cutoffs", "10", "--out", out, "--store", store]);
  assert.match(again.stderr, /ok: 0 executed, \d+ cached/);
  // A gold passage the collection lacks is reported (its turn cannot be solved by any form).
  const missing = join(dir, "missing.jsonl");
  writeFileSync(missing, readFileSync(conversations, "utf8").replace('"tea_p2"', '"tea_p9"'));
  const m = await cli(["--conversations", missing, "--collection", passages, "--cutoffs", "10", "--out", join(dir, "m"), "--store", store]);
  assert.equal(m.code, 0, m.stderr);
  assert.match(m.stdout, /^Shortcut exposure: missing\.jsonl\n\nWarning: 1 gold passage id is not in the collection \(e\.g\. tea_p9\); their turns cannot be solved by any form\.\n/);
});

test("usage errors: exactly one input, positive cutoffs, a registered dataset", async () => {
  await assert.rejects(cli(["--dataset", "msmarco"]), { message: `error: option '--dataset <name>' argument 'msmarco' is invalid. Allowed choices are ${DATASETS.join(", ")}.` });
  assert.match((await cli(["--conversations", conversations])).stderr, /--conversations and --collection go together/);
  assert.match((await cli(["--conversations", conversations, "--collection", passages, "--dataset", "qrecc"])).stderr, /give either --conversations with --collection, or --dataset/);
  const c = await cli(["--conversations", conversations, "--collection", passages, "--cutoffs", "0"]);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /field '--cutoffs'/);
});
