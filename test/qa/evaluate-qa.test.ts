/**
 * The evaluate-qa command on hand-written files in the real formats (test/qa/fixtures/): a SCAI run
 * and SCAI ground truth (4-space JSON arrays, string and integer Conversation_no, an empty
 * Truth_answer), TopiOCQA's raw dev turns with Additional_answers and FiD's results file, plain
 * JSONL with a BOM and CRLF line ends. Expected numbers are computed by hand in the comments.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { registerEvaluateQaCommand } from "../../pipeline/commands/evaluate-qa.ts";
import { tempDir } from "../tmp.ts";

const fx = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerEvaluateQaCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }, (c) => (code = c));
  await program.parseAsync(["evaluate-qa", ...args], { from: "user" });
  return { stdout, stderr, code };
}

const json = async (args: string[]) => {
  const r = await cli([...args, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as { aggregate: { n: number; metrics: { em: number; f1: number }; scoring: string; counts: Record<string, number> }; byQuestionType: { groups: { group: string; n: number }[] }; files: Record<string, string> };
};
const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-9, `${a} != ${b}`);

test("SCAI run against SCAI ground truth: empty truths skipped, a missing answer is empty", async () => {
  // 1_1 "Paris" vs "The Eiffel Tower is in Paris.": EM 0, F1 1/3; 1_2 empty truth: skipped;
  // 1_3 EM 1, F1 1; 2_1 no prediction: EM 0, F1 0. N 3.
  const m = await json(["--predictions", fx("scai-run.json"), "--references", fx("scai-truth.json"), "--labels", fx("scai-labels.json")]);
  assert.equal(m.files["referenceFormat"], "scai");
  assert.equal(m.aggregate.scoring, "qrecc");
  assert.equal(m.aggregate.n, 3);
  close(m.aggregate.metrics.em, 1 / 3);
  close(m.aggregate.metrics.f1, 4 / 9);
  assert.equal(m.aggregate.counts["missingPredictions"], 1);
  assert.deepEqual(m.byQuestionType.groups.map((g) => [g.group, g.n]), [["first", 2], ["switch", 1]]);
  // --keep-empty-truth scores 1_2 ("No idea" vs ""): 0, 0. N 4.
  const k = await json(["--predictions", fx("scai-run.json"), "--references", fx("scai-truth.json"), "--keep-empty-truth"]);
  assert.equal(k.aggregate.n, 4);
  close(k.aggregate.metrics.em, 1 / 4);
  close(k.aggregate.metrics.f1, (1 / 3 + 1) / 4);
});

test("FiD results against TopiOCQA raw turns: leave-one-out, a missing answer scores 0", async () => {
  // 1_1 "Obama" vs {Barack Obama, Obama, President Barack Obama}: EM 2/3, F1 8/9; 1_2 "2009" vs
  // {in 2009}: EM 0, F1 2/3; 2_1 missing: 0, 0. The prediction for 9_9 is ignored.
  const m = await json(["--predictions", fx("topiocqa-fid-results.json"), "--references", fx("topiocqa_dev.json")]);
  assert.equal(m.aggregate.scoring, "topiocqa");
  assert.equal(m.aggregate.n, 3);
  close(m.aggregate.metrics.em, 2 / 9);
  close(m.aggregate.metrics.f1, (8 / 9 + 2 / 3) / 3);
  assert.equal(m.aggregate.counts["ignoredPredictions"], 1);
  // The same files under the plain max rule: 1_1 1, 1; 1_2 0, 2/3; 2_1 missing = "": 0, 0.
  const x = await json(["--predictions", fx("topiocqa-fid-results.json"), "--references", fx("topiocqa_dev.json"), "--dataset", "max"]);
  close(x.aggregate.metrics.em, 1 / 3);
  close(x.aggregate.metrics.f1, 5 / 9);
});

test("plain JSONL with BOM and CRLF; the text table and --out", async () => {
  const out = tempDir("cspipe-qa-");
  const r = await cli(["--predictions", fx("predictions.jsonl"), "--references", fx("references.jsonl"), "--out", out]);
  assert.equal(r.code, 0, r.stderr);
  // 1_1 and 2_1 exact ("Nile" = "the Nile"), 2_2 missing: EM 2/3, F1 2/3 -> 66.7.
  // Aligned text like evaluate's tables (no Markdown on a terminal).
  assert.deepEqual(r.stdout.trimEnd().split("\n").slice(-2), ["group  N    EM    F1", "all    3  66.7  66.7"]);
  const m = JSON.parse(readFileSync(join(out, "metrics.json"), "utf8")) as { aggregate: { n: number } };
  assert.equal(m.aggregate.n, 3);
});

test("bad input names the file, the line and the fix", async () => {
  const dir = tempDir("cspipe-qa-");
  const mixed = join(dir, "mixed.jsonl");
  writeFileSync(mixed, '{"qid": "1_1", "prediction": "a"}\n{"Conversation_no": 1, "Turn_no": 2, "Model_answer": "b"}\n');
  let r = await cli(["--predictions", mixed, "--references", fx("references.jsonl")]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /mixed\.jsonl:2: a scai record in a jsonl file/);
  const dup = join(dir, "dup.jsonl");
  writeFileSync(dup, '{"qid": "1_1", "prediction": "a"}\n{"qid": "1_1", "prediction": "b"}\n');
  r = await cli(["--predictions", dup, "--references", fx("references.jsonl")]);
  assert.match(r.stderr, /dup\.jsonl:2: duplicate question 1_1 \(first at line 1\)/);
  const badRef = join(dir, "ref.json");
  writeFileSync(badRef, '[\n  {"Conversation_no": 1, "Turn_no": 1, "Answer": "x", "Additional_answers": [{"Topic": "t"}]}\n]\n');
  r = await cli(["--predictions", fx("predictions.jsonl"), "--references", badRef]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /ref\.json:2: field 'Answer': missing field/);
  const unknown = join(dir, "u.jsonl");
  writeFileSync(unknown, '{"id": "1_1", "text": "a"}\n');
  r = await cli(["--predictions", unknown, "--references", fx("references.jsonl")]);
  assert.match(r.stderr, /u\.jsonl:1: not a known prediction record \(keys: id, text\).*Fix: write SCAI/);
});
