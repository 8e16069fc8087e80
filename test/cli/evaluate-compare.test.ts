import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Command } from "commander";
import { registerEvaluateCommand } from "../../pipeline/commands/evaluate.ts";
import { formatFixed } from "../../steps/eval/format.ts";
import { tempDir } from "../tmp.ts";

/*
 * Three runs over four queries, one gold passage each (g1..g4). Hand-computed:
 *   base ranks the gold at 1, 2, 3, 4      -> MRR per query 1, 1/2, 1/3, 1/4   (mean 0.5208)
 *   better ranks it at 1, 1, 1, 2          -> 1, 1, 1, 1/2                     (mean 0.8750; success@1 0.75)
 *   same = base (another file, same ranking).
 * better - base: d = (0, 1/2, 2/3, 1/4), mean 0.3542, t = mean / (sd / 2) with ν = 3.
 * Randomization, exact (2^4 = 16 sign assignments): |sum| >= 17/12 only for all + and all -, and the
 * zero doubles each: 4 of 16, p = 0.25. same - base: every d = 0, both tests p = 1.
 * Holm over the two comparisons with the baseline: p(better) is doubled, p(same) stays 1.
 */
const dir = tempDir("cspipe-evaluate-compare-");
const qrels = join(dir, "qrels.txt");
writeFileSync(qrels, ["1 0 g1 1", "2 0 g2 1", "3 0 g3 1", "4 0 g4 1", ""].join("\n"));
const runAt = (ranks: number[]) => ranks.flatMap((r, i) => Array.from({ length: 4 }, (_, k) => `${i + 1} Q0 ${k + 1 === r ? `g${i + 1}` : `n${i + 1}_${k}`} ${k + 1} ${10 - k} x`)).join("\n") + "\n";
const base = join(dir, "base.trec");
const better = join(dir, "better.trec");
const same = join(dir, "same.trec");
writeFileSync(base, runAt([1, 2, 3, 4]));
writeFileSync(better, runAt([1, 1, 1, 2]));
writeFileSync(same, runAt([1, 2, 3, 4]));

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command().exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerEvaluateCommand(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } }, (c) => (code = c));
  await program.parseAsync(["evaluate", ...args], { from: "user" });
  return { stdout, stderr, code };
}

const d = [0, 1 / 2, 2 / 3, 1 / 4];
const meanD = d.reduce((a, b) => a + b, 0) / 4;
const sd = Math.sqrt(d.reduce((a, x) => a + (x - meanD) ** 2, 0) / 3);
const t = meanD / (sd / 2);
const u = t / Math.sqrt(3);
const pT = 1 - (2 / Math.PI) * (Math.atan(u) + u / (1 + u * u)); // Student's t, ν = 3, two-sided

test("a second --run is never ignored: one table with every run, marks and Holm-adjusted p-values", async () => {
  const r = await cli(["--run", base, "--run", better, "--run", same, "--qrels", qrels, "--metrics", "mrr,success@1"]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  assert.match(lines[0]!, /^runs: \[1\] base = .*base\.trec, \[2\] better = .*better\.trec, \[3\] same = .*same\.trec$/);
  const block = lines.indexOf("all (N=4)");
  assert.ok(block > 0, r.stdout);
  assert.deepEqual(lines.slice(block + 1, block + 5), [
    "run                    mrr  success@1",
    "base (baseline)  0.5208     0.2500",
    "better           0.8750     0.7500",
    "same             0.5208     0.2500",
  ]);
  const row = (run: string, metric: string) => lines.find((l) => l.startsWith(`all    ${metric}`) && l.includes(` ${run} `));
  // 0.25 exact randomization p, doubled by Holm to 0.5: not significant at 0.05; t-test likewise.
  assert.equal(row("better", "mrr")!.replace(/\s+/g, " "), `all mrr better base 4 +0.3542 ${formatFixed(pT, 4)} (${formatFixed(2 * pT, 4)}) 0.2500 (0.5000)`);
  assert.equal(row("same", "mrr")!.replace(/\s+/g, " "), "all mrr same base 4 0.0000 1.0000 (1.0000) 1.0000 (1.0000)");
});

test("--json carries the raw and adjusted p-values; --pairs all and --baseline choose the pairs", async () => {
  const j = JSON.parse((await cli(["--run", base, "--run", better, "--run", same, "--qrels", qrels, "--metrics", "mrr", "--json"])).stdout);
  assert.deepEqual(j.runs.map((x: { label: string }) => x.label), ["base", "better", "same"]);
  const c = j.comparisons.find((x: { b: string }) => x.b === "better");
  assert.equal(c.n, 4);
  assert.ok(Math.abs(c.tests["t-test"].p - pT) < 1e-12);
  assert.ok(Math.abs(c.tests["t-test"].pHolm - 2 * pT) < 1e-12);
  assert.equal(c.tests.randomization.p, 0.25);
  assert.equal(c.tests.randomization.exact, true);
  assert.equal(c.tests.randomization.trials, 16);
  const all = JSON.parse((await cli(["--run", base, "--run", better, "--run", same, "--qrels", qrels, "--metrics", "mrr", "--pairs", "all", "--json"])).stdout);
  assert.deepEqual(all.comparisons.map((x: { a: string; b: string }) => `${x.a}-${x.b}`), ["base-better", "base-same", "better-same"]);
  const byBetter = JSON.parse((await cli(["--run", base, "--run", better, "--qrels", qrels, "--metrics", "mrr", "--baseline", "better", "--json"])).stdout);
  assert.equal(byBetter.settings.baseline, "better");
  assert.ok(byBetter.comparisons[0].diff < 0);
});

test("significance marks: a clear difference over many queries is marked by both tests, with its direction (+ above the baseline, - below)", async () => {
  const n = 30;
  const q = join(dir, "qrels30.txt");
  writeFileSync(q, Array.from({ length: n }, (_, i) => `${i} 0 g${i} 1`).join("\n") + "\n");
  const mk = (rankOf: (i: number) => number) => Array.from({ length: n }, (_, i) => Array.from({ length: 5 }, (_, k) => `${i} Q0 ${k + 1 === rankOf(i) ? `g${i}` : `n${k}`} ${k + 1} ${5 - k} x`).join("\n")).join("\n") + "\n";
  const weak = join(dir, "weak.trec");
  const strong = join(dir, "strong.trec");
  writeFileSync(weak, mk((i) => 2 + (i % 4)));
  writeFileSync(strong, mk((i) => (i % 5 === 0 ? 2 : 1)));
  const r = await cli(["--run", weak, "--run", strong, "--qrels", q, "--metrics", "mrr", "--trials", "2000"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\nstrong\s+0\.9000\+\*†\n/);
  assert.match(r.stdout, /randomization test \(sign flips: exact when 2\^N <= 2000, else 2000 seeded draws, seed 42\); \+ marks a value significantly above the baseline's, - below\n/);
  const worse = await cli(["--run", weak, "--run", strong, "--qrels", q, "--metrics", "mrr", "--trials", "2000", "--baseline", "strong"]);
  assert.match(worse.stdout, /\nweak\s+0\.3[0-9]{3}-\*†\n/, "a significantly worse run is marked as below");
});

test("--per-query prints only the TSV (a row per query, a column per run and metric), or writes it beside the table; --out writes per-run files", async () => {
  const out = join(dir, "out");
  const r = await cli(["--run", base, "--run", better, "--qrels", qrels, "--metrics", "mrr", "--per-query", "--out", out, "--tests", "t-test"]);
  assert.equal(r.code, 0, r.stderr);
  const tsv = ["qid\tn_gold\tbase:mrr\tbetter:mrr", "1\t1\t1.0000\t1.0000", "2\t1\t0.5000\t1.0000", "3\t1\t0.3333\t1.0000", "4\t1\t0.2500\t0.5000"];
  assert.equal(r.stdout, tsv.join("\n") + "\n", "no table mixed in: stdout is one TSV");
  const file = join(dir, "per-query.tsv");
  const both = await cli(["--run", base, "--run", better, "--qrels", qrels, "--metrics", "mrr", "--per-query", file, "--tests", "t-test"]);
  assert.equal(readFileSync(file, "utf8"), tsv.join("\n") + "\n");
  assert.match(both.stdout, /^all \(N=4\)$/m);
  assert.ok(both.stdout.trimEnd().endsWith(`per-query values: ${file}`));
  assert.ok(!both.stdout.includes("qid\tn_gold"));
  assert.ok(existsSync(join(out, "base", "metrics.json")) && existsSync(join(out, "better", "per-query.parquet")));
  const cmp = JSON.parse(readFileSync(join(out, "comparison.json"), "utf8"));
  assert.deepEqual(Object.keys(cmp.comparisons[0].tests), ["t-test"]);
});

test("bad comparison options are usage errors naming the option", async () => {
  const r = await cli(["--run", base, "--run", better, "--qrels", qrels, "--tests", "wilcoxon"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /field '--tests': unknown significance test 'wilcoxon'/);
  const b = await cli(["--run", base, "--run", better, "--qrels", qrels, "--baseline", "nope"]);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /--baseline 'nope' names no run/);
});
