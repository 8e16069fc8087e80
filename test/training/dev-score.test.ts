/**
 * read-dev-score: a trained model's own selection record (result.json, metrics.jsonl, in the
 * trainer's format) as metrics the tables read, and `dev-selection`, the target the dense setup
 * is chosen with: each model's dev score over the seeds, its setup in the title, no test split.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { devScoreMetrics, readDevScore, readDevScoreStep, type DevScoreFile } from "../../steps/training/dev-score.ts";
import { buildTargets } from "../../pipeline/definitions/index.ts";
import { inputKeyOf, type AnyStep } from "../../pipeline/engine/step.ts";
import type { OverrideValue } from "../../pipeline/engine/targets.ts";
import { wiredInputs } from "../../pipeline/engine/wiring.ts";
import { graphOf, producer } from "../definitions/graph-helpers.ts";
import { tempDir } from "../tmp.ts";

// An OR-QuAC IHN-2 training's record, as the trainer writes it (trimmed to the fields read; values real; no seconds: an output holds what was computed).
const RESULT = { best_epoch: 10, epochs_run: 10, dev_recall_at_5: 0.6871880199667221, steps: 1010, device: "cpu", torch_version: "1.13.0a0", dev_recall_per_epoch: { "5": 0.6422628951747088, "10": 0.6871880199667221 } };
const ROWS = [
  '{"epoch": 1, "fallback_negatives": 0, "lr": 0.0002, "selectable": false, "steps": 101, "train_loss": 2.2858564853668213}',
  '{"dev_queries": 601, "dev_recall_at_5": 0.6422628951747088, "epoch": 5, "fallback_negatives": 0, "lr": 0.00011111111111111112, "selectable": true, "steps": 505, "train_loss": 0.05247391015291214}',
  '{"dev_queries": 598, "dev_recall_at_5": 0.6871880199667221, "epoch": 10, "fallback_negatives": 0, "lr": 0.0, "selectable": true, "steps": 1010, "train_loss": 0.003884415840730071}',
];

function modelDir(result: unknown, rows: readonly string[] | null): string {
  const dir = join(tempDir("cspipe-dev-score-"), "model");
  mkdirSync(dir);
  writeFileSync(join(dir, "result.json"), JSON.stringify(result));
  if (rows !== null) writeFileSync(join(dir, "metrics.jsonl"), rows.join("\n") + "\n");
  return dir;
}

test("the kept epoch's dev Recall@5, the epochs and the kept epoch; N from the kept epoch's row", () => {
  const m = readDevScore(modelDir(RESULT, ROWS));
  assert.equal(m.split, "dev");
  assert.equal(m.aggregate.n, 598);
  assert.deepEqual(Object.keys(m.aggregate.metrics).sort(), ["dev-recall@5", "epochs", "kept-epoch"]);
  assert.equal(m.aggregate.metrics["dev-recall@5"], 0.6871880199667221);
  assert.equal(m.aggregate.metrics.epochs, 10);
  assert.equal(m.aggregate.metrics["kept-epoch"], 10);
  // An earlier kept epoch: its own row's N.
  const early = devScoreMetrics({ ...RESULT, best_epoch: 5, dev_recall_at_5: 0.6422628951747088 }, ROWS.map((r) => JSON.parse(r) as { epoch: number }), { result: "result.json", metrics: "metrics.jsonl" });
  assert.deepEqual([early.aggregate.n, early.aggregate.metrics["kept-epoch"]], [601, 5]);
});

test("bad records are errors naming the file, the field and the fix", () => {
  const exported = modelDir({ ...RESULT, best_epoch: 0, epochs_run: 0, dev_recall_at_5: null }, []);
  assert.throws(() => readDevScore(exported), (e: Error) => {
    assert.match(e.message, /result\.json: field 'dev_recall_at_5': dev_recall_at_5 is null: the model was not scored on dev/);
    assert.match(e.message, /Fix: a dev score needs a model trained with dev inputs/);
    return true;
  });
  const { epochs_run: _gone, ...noEpochs } = RESULT;
  assert.throws(() => readDevScore(modelDir(noEpochs, ROWS)), /result\.json: field 'epochs_run': .*Fix: rerun the training step/);
  assert.throws(() => readDevScore(modelDir({ ...RESULT, dev_recall_at_10: 0.7 }, ROWS)), /expected one dev_recall_at_<k> field, found dev_recall_at_5, dev_recall_at_10/);
  assert.throws(() => readDevScore(modelDir(RESULT, null)), /metrics\.jsonl: field 'dev_queries': no epoch row says how many dev queries were scored/);
  assert.throws(() => readDevScore(modelDir(RESULT, ["{not json"])), /metrics\.jsonl:1: not JSON/);
  const broken = modelDir(RESULT, ROWS);
  writeFileSync(join(broken, "result.json"), '{"best_epoch": 10,');
  assert.throws(() => readDevScore(broken), /result\.json: cannot read it as JSON .*Fix: rerun the training step/);
});

test("read-dev-score step writes the metrics file", async () => {
  const dir = modelDir(RESULT, ROWS);
  const out = join(dir, "..", "metrics.json");
  const runtime = readDevScoreStep.runtime;
  if (runtime.type !== "in-process") throw new Error("read-dev-score runs in process");
  const logs: string[] = [];
  await runtime.run({
    params: {}, inputs: { model: dir }, outputs: { metrics: out },
    log: (l: string) => logs.push(l), progress: () => {}, signal: new AbortController().signal, settings: {}, workDir: dir, scratchDir: dir, datasets: {}, inputKeys: { model: inputKeyOf(readDevScoreStep, "model", "k", "train-dpr", "dpr:model") },
  });
  assert.equal((JSON.parse(readFileSync(out, "utf8")) as DevScoreFile).aggregate.metrics["dev-recall@5"], 0.6871880199667221);
  assert.deepEqual(logs, ["dev-recall@5=0.6872 epochs=10 kept-epoch=10 over 598 dev queries"]);
});

function devSelection(overrides?: Record<string, OverrideValue>): AnyStep {
  const [render] = buildTargets().get("dev-selection")!.steps({ data: "mini", ...(overrides === undefined ? {} : { overrides }) }) as AnyStep[];
  assert.ok(render);
  return render;
}

test("dev-selection: θ0 and DPR (IBN) per dataset over the seeds, each by its own training's record; no test split is read", () => {
  const render = devSelection();
  const g = graphOf([render]);
  assert.deepEqual(g.order.filter((s) => /^(evaluate|encode|search-dense|check-findings)/.test(s.def.id)).map((s) => s.name), [], "no evaluation: only the trainings and their inputs");
  const splits = new Set(g.order.map((s) => (s.params as { split?: unknown }).split).filter((x) => x !== undefined));
  assert.deepEqual([...splits].sort(), ["dev", "train"], "every split read is a training or dev split");
  const reads = wiredInputs(render).map((w) => producer(render, w.name));
  assert.deepEqual(reads.map((s) => producer(s, "model").name).sort(), [
    "pretrain-dpr.mini.theta0", "pretrain-dpr.mini.theta0.s2", "pretrain-dpr.mini.theta0.s3",
    ...["orquac", "qrecc", "topiocqa"].flatMap((d) => [1, 2, 3].map((s) => `train-dpr.mini-${d}.ibn.s${s}`)),
  ]);
  const title = (s: AnyStep) => (s.params as { spec: { title: string } }).spec.title;
  assert.equal(title(render), "Dev selection, mini benchmark: θ0 2 x 64, FF 256, 30 epochs at lr 0.0003; IBN: QReCC 10 epochs at lr 0.0004, batch 32; TopiOCQA 12 epochs at lr 0.0008, batch 32; OR-QuAC 10 epochs at lr 0.0002, batch 32; query / passage tokens 64 / 96; seeds 1, 2, 3");
  // A candidate under --set: its own models (other keys), and the title says what changed.
  const wide = devSelection({ "model.hidden_size": 128, "model.intermediate_size": 512, "theta0.epochs": 12, seeds: [1] });
  assert.match(title(wide), /^Dev selection, mini benchmark: θ0 2 x 128, FF 512, 12 epochs at lr 0\.0003; .*seeds 1$/);
  const theta0Of = (r: AnyStep) => producer(producer(r, "metrics[theta0_s1]"), "model");
  assert.equal(theta0Of(wide).name, "pretrain-dpr.mini.theta0");
  assert.notEqual(theta0Of(wide), theta0Of(render));
  assert.deepEqual(wiredInputs(wide).map((w) => w.name).sort(), ["metrics[ibn_orquac_s1]", "metrics[ibn_qrecc_s1]", "metrics[ibn_topiocqa_s1]", "metrics[theta0_s1]"]);
});

test("dev-selection on real data: DPR (IBN) from the locked DPR-NQ on each dataset, no θ0 row (DPR-NQ is imported, not trained here)", () => {
  const [render] = buildTargets().get("dev-selection")!.steps({ data: "real" }) as AnyStep[];
  assert.ok(render);
  graphOf([render]);
  assert.deepEqual(wiredInputs(render).map((w) => w.name).sort(), ["metrics[ibn_orquac_s1]", "metrics[ibn_qrecc_s1]", "metrics[ibn_topiocqa_s1]"]);
  assert.match((render.params as { spec: { title: string } }).spec.title, /^Dev selection, real data: BERT-base \(DPR-NQ\); IBN: QReCC 10 epochs at lr 0\.00003, batch 256; .*seeds 42$/);
});
