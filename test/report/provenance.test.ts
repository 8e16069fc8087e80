/**
 * Provenance pieces on hand-written fixtures: the chain walk, the one-line params, the
 * output views (a model's trainer record drawn as training curves, a TREC run copied for
 * download, gzipped with stable bytes), and the stage graph.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { chainLines, consumersOf, paramsLine, type ChainNode } from "../../steps/report/provenance.ts";
import { OUTPUT_VIEWS, parseEpochRows, placeFile } from "../../steps/report/provenance-kinds.ts";
import { trainingCurves } from "../../steps/report/curves.ts";
import { collapseGraph, stageGraphSvg } from "../../steps/report/stage-graph.ts";
import { tempDir } from "../tmp.ts";
import { assertWellFormed } from "./svg-check.ts";

const node = (key: string, inputs: Record<string, string | undefined> = {}): ChainNode => ({ name: `step-${key}`, stepId: "s", key, summary: `summary ${key}`, inputs });

test("the chain: depth first in input-name order; a node reached twice is a repeat without inputs", () => {
  const nodes = new Map([
    ["e", node("e", { run: "s", turns: "t" })],
    ["s", node("s", { queries: "q", index: "i" })],
    ["i", node("i", { model: "m" })],
    ["q", node("q", { model: "m", turns: "t" })],
    ["m", node("m")],
    ["t", node("t", { missing: undefined })],
  ]);
  assert.deepEqual(
    chainLines("e", nodes).map((l) => `${"  ".repeat(l.depth)}${l.via ?? "-"} ${l.node.key}${l.repeat ? " (repeat)" : ""}`),
    ["- e", "  run s", "    index i", "      model m", "    queries q", "      model m (repeat)", "      turns t", "  turns t (repeat)"],
  );
  assert.deepEqual(consumersOf(nodes).get("m"), ["i", "q"]);
  assert.deepEqual(consumersOf(nodes).get("t"), ["e", "q"]);
});

test("params in one line: short scalars by key, long or nested values named only, capped", () => {
  assert.equal(paramsLine({ lr: 0.0002, epochs: 3, form: "history", splits: ["train", "dev"], spec: { deep: 1 } }), "epochs=3, form=history, lr=0.0002, spec=…, splits=[train,dev]");
  assert.equal(paramsLine({ a: "x".repeat(50) }), "a=…");
  assert.equal(paramsLine({ a: 1, b: 2, c: 3 }, 8), "a=1, b=2, …");
  assert.equal(paramsLine(null), "");
});

const EPOCHS = [
  '{"dev_queries": 300, "dev_recall_at_5": 0.1, "epoch": 0, "selectable": false}',
  '{"dev_queries": 300, "dev_recall_at_5": 0.4, "epoch": 1, "lr": 0.0001, "selectable": true, "steps": 94, "train_loss": 2.3017}',
  '{"dev_queries": 300, "dev_recall_at_5": 0.45, "epoch": 2, "lr": 0.0, "selectable": true, "steps": 188, "train_loss": 1.5}',
  "",
].join("\n");

test("a model's page: training curves and the per-epoch table from the trainer's record", async () => {
  const dir = join(tempDir(), "model");
  mkdirSync(dir);
  writeFileSync(join(dir, "metrics.jsonl"), EPOCHS);
  writeFileSync(join(dir, "result.json"), JSON.stringify({ best_epoch: 2, steps: 188, device: "cpu" }));
  const key = "d".repeat(64);
  const view = await OUTPUT_VIEWS.get("dpr:model")!(dir, key, { copy: true, storePath: "entries/x/" });
  assert.equal(view.summary, "2 epochs, best epoch 2 (dev R@5 45.0%), last train loss 1.500");
  assert.deepEqual(view.files.map((f) => f.to), [`files/${key}/metrics.jsonl`, `files/${key}/result.json`]);
  const html = view.sections.map((s) => s.html).join("");
  assert.equal((html.match(/<svg /g) ?? []).length, 2, "train loss and dev recall");
  assert.match(html, /<td class="num">0<\/td><td class="num">-<\/td><td class="num">10\.0<\/td><td class="num">300<\/td><td class="num">-<\/td><td>no \(before training\)<\/td>/);
  assert.match(html, /<th scope="row">best_epoch<\/th><td>2<\/td>/);
  const curves = trainingCurves(parseEpochRows(EPOCHS, "m.jsonl"), key);
  assert.equal(curves.recallKey, "dev_recall_at_5");
  for (const svg of curves.svg) assertWellFormed(svg);
  assert.match(curves.svg[0]!, /mean NLL per batch<\/text>/);
  assert.match(curves.svg[1]!, /dev R@5 \(%\)<\/text>/);
  assert.equal((curves.svg[0]!.match(/<circle class="point"/g) ?? []).length, 2, "no loss before training");
  assert.equal((curves.svg[1]!.match(/<circle class="point"/g) ?? []).length, 3);
  assert.throws(() => parseEpochRows('{"epoch": 1}\nnot json\n', "m.jsonl"), /m\.jsonl:2: not JSON/);
  assert.throws(() => parseEpochRows('{"loss": 1}\n', "m.jsonl"), /m\.jsonl:1: a row without a numeric 'epoch'/);
  const exported = await OUTPUT_VIEWS.get("dpr:model")!(dir.replace(/model$/, "nothing"), key, { copy: true, storePath: "entries/x/" });
  assert.equal(exported.summary, "exported without training");
});

test("a run file: summary, preview, a download copy; a big one is gzipped with stable bytes", async () => {
  const dir = tempDir();
  const trec = join(dir, "run.trec");
  writeFileSync(trec, "c1_1 Q0 p3 1 12.5 cspipe-ibn\nc1_1 Q0 p1 2 11 cspipe-ibn\nc1_2 Q0 p2 1 9 cspipe-ibn\n");
  const key = "e".repeat(64);
  const view = await OUTPUT_VIEWS.get("trec:run")!(trec, key, { copy: true, storePath: "entries/search-dense/k/" });
  assert.equal(view.summary, "TREC run 'cspipe-ibn': 2 queries, 3 lines");
  assert.deepEqual(view.files, [{ label: "run.trec", from: trec, to: `runs/${key}.trec`, gzip: false }]);
  assert.match(view.sections[0]!.html, /<a href="runs\/e{64}\.trec" download="">run\.trec<\/a>/);
  const kept = await OUTPUT_VIEWS.get("trec:run")!(trec, key, { copy: false, storePath: "entries/search-dense/k/" });
  assert.deepEqual(kept.files, [], "a run no evaluation reads stays in the store");
  assert.match(kept.sections[0]!.html, /In the store: <code>entries\/search-dense\/k\/outputs\/run\.trec<\/code>/);
  await placeFile(trec, join(dir, "a.gz"), true);
  await placeFile(trec, join(dir, "b.gz"), true);
  assert.deepEqual(readFileSync(join(dir, "a.gz")), readFileSync(join(dir, "b.gz")));
  assert.equal(gunzipSync(readFileSync(join(dir, "a.gz"))).toString("utf8"), readFileSync(trec, "utf8"));
  const metrics = await OUTPUT_VIEWS.get("json:metrics")!(
    (writeFileSync(join(dir, "metrics.json"), JSON.stringify({ split: "dev", aggregate: { n: 2, metrics: { mrr: 0.5, "recall@5": 1 }, noGold: "normalized", missing: "zero", tieRule: "trec_eval" }, byQuestionType: { by: "questionType", groups: [{ group: "first", n: 1, metrics: { mrr: 1, "recall@5": 1 } }] }, byDomain: { by: "domain", groups: [] } })), join(dir, "metrics.json")),
    key,
    { copy: true, storePath: "entries/evaluate-run/k/" },
  );
  assert.equal(metrics.summary, "N = 2 turns of 'dev': MRR 0.500, R@5 100.0%");
  assert.match(metrics.sections[0]!.html, /<th scope="row">question type first<\/th><td class="num">1<\/td><td class="num">1\.000<\/td><td class="num">100\.0<\/td>/);
});

test("the stage graph: steps collapsed by id with counts, loops drawn back, stable bytes", () => {
  const nodes = [
    { id: "gen", group: "generate" },
    { id: "train1", group: "train-dpr" },
    { id: "search1", group: "search-dense" },
    { id: "mine", group: "mine-negatives" },
    { id: "train2", group: "train-dpr" },
    { id: "search2", group: "search-dense" },
    { id: "eval", group: "evaluate-run" },
  ];
  const edges = [
    { from: "gen", to: "train1" },
    { from: "train1", to: "search1" },
    { from: "search1", to: "mine" },
    { from: "mine", to: "train2" },
    { from: "train2", to: "search2" },
    { from: "search2", to: "eval" },
    { from: "search1", to: "eval" },
  ];
  const g = collapseGraph(nodes, edges);
  assert.deepEqual(g.stages, [
    { id: "generate", count: 1 },
    { id: "train-dpr", count: 2 },
    { id: "search-dense", count: 2 },
    { id: "mine-negatives", count: 1 },
    { id: "evaluate-run", count: 1 },
  ]);
  assert.deepEqual(g.edges.find((e) => e.from === "search-dense" && e.to === "evaluate-run"), { from: "search-dense", to: "evaluate-run", count: 2 });
  const svg = stageGraphSvg(g);
  assertWellFormed(svg);
  assert.equal(stageGraphSvg(g), svg);
  assert.match(svg, />train-dpr ×2<\/text>/);
  assert.match(svg, /<path class="edge back" [^>]*data-from="mine-negatives" data-to="train-dpr"/, "the IHN loop goes back up");
  assert.match(svg, />iterates<\/text>/);
});
