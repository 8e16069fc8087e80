import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { registerEvaluateCommand } from "../../pipeline/commands/evaluate.ts";
import { readParquetRows } from "../../steps/lib/parquet.ts";
import { tempDir } from "../tmp.ts";

/*
 * Fixture (hand-computed). Gold: q1 {d1}, q2 {d2, d3}, q3 none (QReCC's {"": 1}), q4 {d4}.
 * Run: q1 d1 > d9 (MRR 1, R@2 1, R@10 1); q2 d9 > d2 > d8 > d3 (MRR 1/2, R@2 1/2, R@10 1);
 * q3 d5 (no gold); q4 absent (missing); q5 only in the run (ignored).
 * normalized + zero: N = 3 (q1, q2, q4): MRR 1.5/3 = 0.5, R@2 1.5/3 = 0.5, R@10 2/3.
 * Labels: first {q1}, switch {q2, q4}; nq {q1, q2}, trec {q4}:
 *   first N=1: 1, 1, 1; switch N=2: MRR 0.25, R@2 0.25, R@10 0.5; nq N=2: 0.75, 0.75, 1; trec N=1: 0, 0, 0.
 */
const dir = tempDir("cspipe-evaluate-");
const trecRun = join(dir, "run.trec");
writeFileSync(trecRun, ["q1 Q0 d1 1 3 t", "q1 Q0 d9 2 2 t", "q2 Q0 d9 1 5 t", "q2 Q0 d2 2 4 t", "q2 Q0 d8 3 3 t", "q2 Q0 d3 4 2 t", "q3 Q0 d5 1 1 t", "q5 Q0 d1 1 1 t", ""].join("\n"));
const jsonRun = join(dir, "run.json");
writeFileSync(jsonRun, JSON.stringify({ q1: { d1: 3, d9: 2 }, q2: { d9: 5, d2: 4, d8: 3, d3: 2 }, q3: { d5: 1 }, q5: { d1: 1 } }));
const qrels = join(dir, "qrels.json");
writeFileSync(qrels, JSON.stringify({ q1: { d1: 1 }, q2: { d2: 1, d3: 1 }, q3: { "": 1 }, q4: { d4: 1 } }));
const labels = join(dir, "labels.json");
writeFileSync(labels, JSON.stringify({ first: ["q1"], switch: ["q2", "q4"], nq: ["q1", "q2"], trec: ["q4"] }));

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerEvaluateCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }, (c) => (code = c));
  await program.parseAsync(["evaluate", ...args], { from: "user" });
  return { stdout, stderr, code };
}

const METRICS = ["--metrics", "mrr,recall@2,recall@10"];

test("plain table: aggregate and breakdowns with N, hand-computed values", async () => {
  const r = await cli(["--run", trecRun, "--qrels", qrels, "--labels", labels, ...METRICS]);
  assert.equal(r.code, 0);
  assert.equal(r.stderr, "");
  const lines = r.stdout.split("\n");
  assert.match(lines[1]!, /^3 queries evaluated of 4 in the qrels; 1 without gold \(skipped\), 1 missing from the run \(scored 0\), 1 run queries not in the qrels \(ignored\)/);
  assert.deepEqual(lines.slice(3, 9), [
    "group                N     mrr  recall@2  recall@10",
    "all                  3  0.5000    0.5000     0.6667",
    "questionType=first   1  1.0000    1.0000     1.0000",
    "questionType=switch  2  0.2500    0.2500     0.5000",
    "domain=nq            2  0.7500    0.7500     1.0000",
    "domain=trec          1  0.0000    0.0000     0.0000",
  ]);
});

test("--json: the same numbers as metrics.json fields; a JSON run gives the same result as the TREC run", async () => {
  const a = JSON.parse((await cli(["--run", trecRun, "--qrels", qrels, "--labels", labels, ...METRICS, "--json"])).stdout);
  const b = JSON.parse((await cli(["--run", jsonRun, "--qrels", qrels, "--labels", labels, ...METRICS, "--json"])).stdout);
  assert.equal(a.aggregate.n, 3);
  assert.equal(a.aggregate.metrics.mrr, 0.5);
  assert.equal(a.aggregate.metrics["recall@10"], 2 / 3);
  assert.deepEqual(
    a.byQuestionType.groups.map((g: { group: string; n: number; metrics: Record<string, number> }) => [g.group, g.n, g.metrics.mrr]),
    [
      ["first", 1, 1],
      ["switch", 2, 0.25],
    ],
  );
  assert.equal(a.byQuestionType.unlabelled, 0);
  assert.deepEqual(b.aggregate, a.aggregate);
  assert.deepEqual(b.byDomain, a.byDomain);
});

test("--no-gold raw scores the no-gold turn 0; --missing skip drops the absent turn", async () => {
  const raw = JSON.parse((await cli(["--run", trecRun, "--qrels", qrels, ...METRICS, "--no-gold", "raw", "--json"])).stdout);
  assert.equal(raw.aggregate.n, 4);
  assert.equal(raw.aggregate.metrics.mrr, 0.375);
  const skip = JSON.parse((await cli(["--run", trecRun, "--qrels", qrels, ...METRICS, "--missing", "skip", "--json"])).stdout);
  assert.equal(skip.aggregate.n, 2);
  assert.equal(skip.aggregate.metrics.mrr, 0.75);
  assert.equal(skip.aggregate.metrics["recall@2"], 0.75);
});

test("without labels no breakdown lines are printed; the unlabelled count stays in JSON", async () => {
  const r = await cli(["--run", trecRun, "--qrels", qrels, ...METRICS]);
  assert.equal(r.stdout.split("\n").filter((l) => l.startsWith("questionType=") || l.startsWith("domain=")).length, 0);
  const j = JSON.parse((await cli(["--run", trecRun, "--qrels", qrels, ...METRICS, "--json"])).stdout);
  assert.equal(j.byQuestionType.unlabelled, 3);
});

test("--out writes metrics.json and per-query.parquet like the evaluation step", async () => {
  const out = join(dir, "out");
  const r = await cli(["--run", trecRun, "--qrels", qrels, "--labels", labels, ...METRICS, "--out", out, "--split", "test"]);
  assert.equal(r.code, 0);
  const m = JSON.parse(readFileSync(join(out, "metrics.json"), "utf8"));
  assert.deepEqual(Object.keys(m).sort(), ["aggregate", "byDomain", "byQuestionType", "split"]);
  assert.equal(m.split, "test");
  assert.equal(m.byDomain.groups[0].group, "nq");
  const rows: Record<string, unknown>[] = [];
  for await (const row of readParquetRows<Record<string, unknown>>(join(out, "per-query.parquet"))) rows.push(row);
  assert.deepEqual(
    rows.map((x) => [x.qid, x.n_gold, x.n_retrieved, x.mrr, x["recall@2"]]),
    [
      ["q1", 1, 2, 1, 1],
      ["q2", 2, 4, 0.5, 0.5],
      ["q4", 1, 0, 0, 0],
    ],
  );
});

test("bad input: exit code 2 and a message naming the file, the field and the fix", async () => {
  const bad = join(dir, "bad-labels.json");
  writeFileSync(bad, JSON.stringify({ first: ["q1"], topic: ["q2"] }));
  const r = await cli(["--run", trecRun, "--qrels", qrels, "--labels", bad]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^error: .*bad-labels\.json: field 'topic': unknown label key 'topic' Fix: use only/);
  const m = await cli(["--run", trecRun, "--qrels", qrels, "--metrics", "mrr,err@3"]);
  assert.equal(m.code, 2);
  assert.match(m.stderr, /unknown metric .err@3./);
});

test("a missing required option is a usage error from commander", async () => {
  await assert.rejects(cli(["--qrels", qrels]), /required option '--run <file>' not specified/);
});
