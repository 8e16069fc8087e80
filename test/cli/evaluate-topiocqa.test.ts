import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { registerEvaluateCommand } from "../../pipeline/commands/evaluate.ts";
import { parseLabels } from "../../steps/eval/breakdown.ts";
import { normalizeQid } from "../../steps/eval/qids.ts";
import { tempDir } from "../tmp.ts";

/*
 * Issue 12, defect 3. TopiOCQA files in their released shapes (fixtures/topiocqa/): TREC qrels and a
 * question-type file keyed 1st / tc / ts, both naming turns `<conv>-<turn>`, against a run that
 * cspipe wrote (`<conv>_<turn>`, TopiOCQA's integer passage ids). Before the fix evaluate refused
 * the type keys (exit 2, "unknown label key '1st'") and, past that, matched no qid.
 * Hand-computed MRR / R@2: 1_1 gold at 1 (1, 1); 1_2 at 2 (1/2, 1); 1_3 at 3 (1/3, 0); 2_1 at 1 (1, 1);
 * 2_2 not retrieved (0, 0). all: 2.8333/5, 3/5. first {1_1, 2_1}: 1, 1; switch (ts) {1_3}: 1/3, 0;
 * no-switch (tc) {1_2, 2_2}: 1/4, 1/2.
 */
const fixtures = fileURLToPath(new URL("./fixtures/topiocqa/", import.meta.url));
const run = join(fixtures, "run.trec");
const qrels = join(fixtures, "dev_qrels.trec");
const types = join(fixtures, "dev_question_types.json");

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerEvaluateCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }, (c) => (code = c));
  await program.parseAsync(["evaluate", ...args], { from: "user" });
  return { stdout, stderr, code };
}

test("TopiOCQA type keys and <conv>-<turn> qids: breakdown by first / switch / no-switch, mappings stated", async () => {
  const r = await cli(["--run", run, "--qrels", qrels, "--labels", types, "--metrics", "mrr,recall@2"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[1]!, /^5 queries evaluated of 5 in the qrels; 0 without gold/);
  assert.deepEqual(lines.slice(3, 8), [
    "group                   N     mrr  recall@2",
    "all                     5  0.5667    0.6000",
    "questionType=first      2  1.0000    1.0000",
    "questionType=switch     1  0.3333    0.0000",
    "questionType=no-switch  2  0.2500    0.5000",
  ]);
  assert.ok(lines.includes("labels: TopiOCQA keys read as 1st -> first, tc -> no-switch, ts -> switch"), r.stdout);
  assert.ok(lines.some((l) => l.startsWith(`qids: 5 of 5 in the qrels (${qrels}) read as <conv>_<turn> from <conv>-<turn>`)), r.stdout);
  assert.ok(lines.some((l) => l.startsWith(`qids: 5 of 5 in the labels (${types})`)), r.stdout);
  assert.ok(!lines.some((l) => l.includes("in the run")), "the run already uses <conv>_<turn>");
});

test("--qid-mapping none takes qids as written: nothing matches, and evaluate refuses to print a table of zeros", async () => {
  const r = await cli(["--run", run, "--qrels", qrels, "--labels", types, "--qid-mapping", "none"]);
  assert.deepEqual([r.code, r.stdout], [2, ""]);
  assert.equal(r.stderr, `error: ${run}: none of the run's 5 queries is in the qrels (run: 1_1, 1_2, 1_3...; qrels ${qrels}: 1-1, 1-2, 1-3...), so every query would score 0. Fix: pass the qrels of the run's split, with the qids written as the run writes them.\n`);
});

test("the {qid: label} shape, QReCC keys unchanged, and the errors", () => {
  const m = parseLabels({ "3-1": "1st", "3-2": "ts" });
  assert.equal(m.shape, "map");
  assert.deepEqual([...m.labels], [["3-1", { questionType: "first" }], ["3-2", { questionType: "switch" }]]);
  assert.deepEqual(parseLabels({ first: ["1_1"], nq: ["1_1"] }).renamed, {});
  assert.throws(() => parseLabels({ first: ["1_1"], ts: ["1_2"] }, "t.json"), /mixes QReCC type keys .* with TopiOCQA keys/);
  assert.throws(() => parseLabels({ "3-1": "topic-shift" }, "t.json"), /qid '3-1' has unknown label 'topic-shift'/);
  assert.equal(normalizeQid("12-3", "conv-turn"), "12_3");
  assert.equal(normalizeQid("C_5f2a_q#2", "conv-turn"), "C_5f2a_q#2");
  assert.equal(normalizeQid("a-3", "conv-turn"), "a-3");
  assert.equal(normalizeQid("12-3", "none"), "12-3");
});

test("a file that spells one turn both ways is refused", async () => {
  const dir = tempDir("cspipe-topiocqa-");
  const both = join(dir, "qrels.trec");
  writeFileSync(both, "4-1 0 7 1\n4_1 0 8 1\n");
  const r = await cli(["--run", run, "--qrels", both]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /qids '4-1' and '4_1' both become '4_1' under the conv-turn qid mapping.*Fix: keep one spelling/);
});
