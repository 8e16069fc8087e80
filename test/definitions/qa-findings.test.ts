/**
 * Table 5's text (pipeline/definitions/qa/findings.ts): per dataset and reader, EM and F1 of the
 * reader on DPR (IHN) passages minus on DPR (IBN) passages, read from the very evaluations the
 * table's cells are made of, one per seed, checked on hand-made metrics (one seed; three seeds give mean ± sd);
 * the paper's pair of numbers in each claim comes from paper-numbers.json.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import type { DenseContext } from "../../pipeline/definitions/dense/base.ts";
import { qaClaims } from "../../pipeline/definitions/qa/findings.ts";
import { qaEvaluation } from "../../pipeline/definitions/qa/readers.ts";
import { answerabilityOf } from "../../pipeline/definitions/qa/answerability.ts";
import { paperRetrievers } from "../../pipeline/definitions/qa/retrievers.ts";
import { checkClaim, findingsMarkdown, lookupIn, type FindingsFile } from "../../steps/findings/claims.ts";
import type { MetricsFile } from "../../steps/eval/steps.ts";
import { wiredInput, wiredInputs } from "../../pipeline/engine/wiring.ts";

const MINI: DenseContext = { data: "mini", profile: "paper" };
const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));

test("the table5 target checks its findings over the evaluations its cells read: 8 claims, IHN against IBN per dataset, reader and metric, paired by seed", () => {
  const steps = buildTargets().get("table5")!.steps({ data: "mini" });
  const a = analyze(steps, lock);
  assert.ok(a.ok);
  const findings = steps.find((s) => s.name === "check-findings-qa")!;
  const table = steps.find((s) => s.name === "render-table5")!;
  const ceilings = steps.find((s) => s.name === "render-table5-ceilings")!;
  const inputsOf = (s: AnyStep) => new Set(wiredInputs(s).map((w) => w.ref.step));
  const cells = new Set([...inputsOf(table), ...inputsOf(ceilings)]);
  for (const e of inputsOf(findings)) assert.ok(cells.has(e), `${e.name} is a cell of Table 5 or of its ceilings`);
  type Side = { inputs: string[]; metric: string };
  const { claims } = findings.params as { claims: { id: string; rule: { better: Side; worse: Side }; ceiling: { better: Side; worse: Side } }[] };
  assert.deepEqual(claims.map((c) => c.id), ["qrecc", "topiocqa"].flatMap((d) => ["dpr-reader", "fid"].flatMap((r) => ["em", "f1"].map((m) => `qa-ihn-beats-ibn-${d}-${r}-${m}`))));
  for (const c of claims) {
    const [, dataset, reader] = c.id.match(/^qa-ihn-beats-ibn-(qrecc|topiocqa)-(dpr-reader|fid)-(em|f1)$/)! as unknown as [string, "qrecc" | "topiocqa", "dpr-reader" | "fid"];
    // The mini setup's three seeds, in order: seed s of IHN against seed s of IBN.
    assert.equal(c.rule.better.inputs.length, 3);
    [1, 2, 3].forEach((seed, i) => {
      const paper = paperRetrievers(MINI, dataset, seed);
      assert.equal(wiredInput(findings, `metrics[${c.rule.better.inputs[i]!}]`)?.ref.step, qaEvaluation(MINI, dataset, paper.ihn, reader, seed).step, c.id);
      assert.equal(wiredInput(findings, `metrics[${c.rule.worse.inputs[i]!}]`)?.ref.step, qaEvaluation(MINI, dataset, paper.ibn, reader, seed).step, c.id);
      // The ceiling of each side: the answerability of the same retriever's passages, at the reader's depth.
      assert.equal(wiredInput(findings, `metrics[${c.ceiling.better.inputs[i]!}]`)?.ref.step, answerabilityOf(MINI, dataset, paper.ihn).step, c.id);
      assert.equal(wiredInput(findings, `metrics[${c.ceiling.worse.inputs[i]!}]`)?.ref.step, answerabilityOf(MINI, dataset, paper.ibn).step, c.id);
    });
    assert.equal(c.ceiling.better.metric, `oracle-${c.id.slice(-2)}@${reader === "fid" ? 3 : 10}`);
  }
});

const metrics = (em: number, f1: number): MetricsFile => ({ split: "test", aggregate: { metrics: { em, f1 }, n: 100 } }) as unknown as MetricsFile;
/** An answerability file: the oracle's EM and F1 at both readers' depths. */
const oracle = (em: number, f1: number): MetricsFile =>
  ({ split: "dev", aggregate: { metrics: { "oracle-em@3": em, "oracle-f1@3": f1, "oracle-em@10": em, "oracle-f1@10": f1 }, n: 100 } }) as unknown as MetricsFile;

function text(files: Map<string, MetricsFile>, claims: ReturnType<typeof qaClaims>["claims"]): { file: FindingsFile; md: string } {
  const look = lookupIn(files);
  const file: FindingsFile = { schema: "cspipe.findings/1", data: "mini", claims: claims.map((c) => checkClaim(c, look, [])) };
  return { file, md: findingsMarkdown(file) };
}

test("one seed: the gain in points and whether IHN beats IBN; a tie does not", () => {
  const { claims } = qaClaims(MINI, (d, r, reader) => [{ seed: 1, metrics: qaEvaluation(MINI, d, r(1), reader, 1) }]);
  const files = new Map<string, MetricsFile>();
  for (const d of ["qrecc", "topiocqa"]) {
    for (const r of ["dpr_reader", "fid"]) {
      files.set(`${d}_dpr_ibn_${r}`, metrics(0.1, 0.3));
      // QReCC DPR reader: IHN better on EM, worse on F1; FiD ties; TopiOCQA DPR reader worse.
      files.set(`${d}_dpr_ihn_${r}`, d === "qrecc" && r === "dpr_reader" ? metrics(0.125, 0.29) : r === "fid" ? metrics(0.1, 0.3) : metrics(0.09, 0.3));
    }
    files.set(`${d}_dpr_ibn_answerability`, oracle(0.4, 0.6));
    files.set(`${d}_dpr_ihn_answerability`, oracle(0.5, 0.7));
  }
  const { file, md } = text(files, claims);
  const by = new Map(file.claims.map((c) => [c.id, c]));
  assert.deepEqual([by.get("qa-ihn-beats-ibn-qrecc-dpr-reader-em")!.value, by.get("qa-ihn-beats-ibn-qrecc-dpr-reader-em")!.verdict], [(0.125 - 0.1) * 100, "holds"]);
  assert.equal(by.get("qa-ihn-beats-ibn-qrecc-dpr-reader-f1")!.verdict, "does-not-hold");
  assert.equal(by.get("qa-ihn-beats-ibn-qrecc-fid-em")!.verdict, "does-not-hold", "a tie is not a win");
  assert.equal(by.get("qa-ihn-beats-ibn-topiocqa-dpr-reader-em")!.verdict, "does-not-hold");
  const row = md.split("\n").find((l) => l.startsWith("| The DPR reader does better on DPR (IHN) passages than on DPR (IBN) passages (QReCC EM) |"))!;
  // The paper's pair from paper-numbers.json (final Table 5), ours from the metrics, the strict threshold.
  assert.match(row, /\| QReCC EM, DPR reader: DPR \(IHN\) vs DPR \(IBN\) \d+\.\d vs \d+\.\d \([+-]\d+\.\d\) \(final Table 5\) \| 2\.5 points \(1 seed\): EM of the DPR reader .* QReCC test, paired by seed \| > 0\.0 points \(mean - t-margin over seeds\) \| holds \(ceiling \(.*\): .* no spread over seeds to compare it with\) \|$/);
});

test("several seeds: mean ± sd of the per-seed gains, and the verdict by the spread", () => {
  const { claims, refs, labels } = qaClaims(MINI, (d, r, reader) => [1, 2, 3].map((seed) => ({ seed, metrics: qaEvaluation(MINI, d, r(seed), reader, seed) })));
  // the evaluations (dataset x seed x reader x retriever) and the ceilings (dataset x seed x retriever)
  assert.equal(Object.keys(refs).length, 2 * 3 * 2 * 2 + 2 * 3 * 2);
  assert.equal(labels["qrecc_dpr_ihn_fid_s2"], "QReCC FiD on DPR (IHN) passages, seed 2");
  const files = new Map<string, MetricsFile>();
  const ibn = [0.1, 0.2, 0.3];
  const ihn = { clear: [0.13, 0.23, 0.33], mixed: [0.15, 0.18, 0.32] };
  for (const d of ["qrecc", "topiocqa"]) {
    for (const r of ["dpr_reader", "fid"]) {
      [1, 2, 3].forEach((s, i) => {
        files.set(`${d}_dpr_ibn_${r}_s${s}`, metrics(ibn[i]!, ibn[i]!));
        files.set(`${d}_dpr_ihn_${r}_s${s}`, metrics((r === "fid" ? ihn.mixed : ihn.clear)[i]!, ibn[i]!));
      });
    }
    for (const s of [1, 2, 3]) [["ibn", 0.4], ["ihn", 0.5]].forEach(([r, v]) => files.set(`${d}_dpr_${r}_answerability_s${s}`, oracle(v as number, v as number)));
  }
  const { file, md } = text(files, claims);
  const by = new Map(file.claims.map((c) => [c.id, c]));
  const clear = by.get("qa-ihn-beats-ibn-qrecc-dpr-reader-em")!;
  assert.equal(clear.seeds, 3);
  assert.ok(Math.abs(clear.value! - 3) < 1e-9 && clear.sd! < 1e-9);
  assert.equal(clear.verdict, "holds");
  // FiD gains +5, -2, +2 points: mean 1.67, sd 3.51: the seeds disagree.
  const mixed = by.get("qa-ihn-beats-ibn-qrecc-fid-em")!;
  assert.deepEqual(mixed.perSeed.map((x) => Math.round(x * 10) / 10), [5, -2, 2]);
  assert.equal(mixed.verdict, "inconclusive");
  assert.match(md, /\| 1\.7 points ± 3\.5 \(3 seeds\): EM of the FiD .* \| inconclusive \(ceiling \(the oracle extractive reader's EM on the FiD's top 3 passages, QReCC dev\): .*\) \|/);
});
