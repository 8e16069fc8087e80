/**
 * The report steps run through the engine on hand-made metrics.json inputs: render-table
 * with breakdown-group columns, render-figure (ours + paper points), write-report, and the
 * report target's export to `<export root>/report/` after a run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type OutputRef } from "../../pipeline/engine/step.ts";
import { TargetRegistry, type Target } from "../../pipeline/engine/targets.ts";
import { renderFigureDef, renderTableDef, writeReportDef } from "../../steps/report/steps.ts";
import type { RenderedTableJson } from "../../steps/report/table.ts";
import type { FigureJson } from "../../steps/report/figure.ts";
import { project, run, tempDir } from "../engine/helpers.ts";

const dir = tempDir();
const src = join(dir, "fixture.ts");
writeFileSync(src, "export const fixture = 1;\n");

/** A metrics.json with groups: all N=4; first N=1; switch N=3; domain nq N=4. */
function metricsJson(mrr: number, r10: number): string {
  return JSON.stringify({
    split: "test",
    aggregate: { n: 4, metrics: { mrr, "recall@10": r10 }, noGold: "normalized", missing: "zero", tieRule: "trec_eval", counts: {} },
    byQuestionType: {
      by: "questionType",
      groups: [
        { group: "first", n: 1, metrics: { mrr: 1, "recall@10": 1 } },
        { group: "switch", n: 3, metrics: { mrr: (4 * mrr - 1) / 3, "recall@10": (4 * r10 - 1) / 3 } },
      ],
      unlabelled: 0,
      all: { group: "all", n: 4, metrics: { mrr, "recall@10": r10 } },
    },
    byDomain: { by: "domain", groups: [{ group: "nq", n: 4, metrics: { mrr, "recall@10": r10 } }], unlabelled: 0, all: { group: "all", n: 4, metrics: { mrr, "recall@10": r10 } } },
  });
}

const writeMetrics = defineStep({
  id: "write-fixture-metrics",
  version: 1,
  source: src,
  params: z.object({ json: z.string() }).strict(),
  inputs: {},
  outputs: { metrics: file("json:metrics", "metrics.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      writeFileSync(ctx.outputs.metrics, ctx.params.json);
    },
  },
});

function metrics(name: string, mrr: number, r10: number): OutputRef<"json:metrics"> {
  return use(writeMetrics, { name, params: { json: metricsJson(mrr, r10) }, inputs: {} }).out.metrics;
}

function graph() {
  const a = metrics("metrics-a", 0.5, 0.75);
  const b = metrics("metrics-b", 0.25, 0.25);
  const table = use(renderTableDef(["a", "b"]), {
    name: "render-t",
    params: {
      spec: {
        id: "t1",
        title: "T1",
        caption: "groups",
        columns: [
          { id: "all-mrr", header: "all MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "all-mrr" },
          { id: "first-r10", header: "first R@10", metric: "recall@10", format: { kind: "percent", digits: 1 }, paperColumn: "first-r10", group: { by: "questionType", value: "first" } },
          { id: "switch-mrr", header: "switch MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "switch-mrr", group: { by: "questionType", value: "switch" } },
          { id: "no-switch-mrr", header: "no-switch MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "no-switch-mrr", group: { by: "questionType", value: "no-switch" } },
        ],
        rows: [
          { id: "x", label: "X", paperRow: "bm25" },
          { id: "y", label: "Y", paperRow: "bm25-without-q" },
        ],
      },
      paperTable: "early-table1",
      cells: { a: { row: "x", columns: ["all-mrr", "first-r10", "switch-mrr", "no-switch-mrr"] }, b: { row: "y", columns: ["all-mrr", "switch-mrr"] } },
    },
    inputs: { a, b },
  });
  const figure = use(renderFigureDef(["a", "b"]), {
    name: "render-f",
    params: {
      spec: {
        id: "f1",
        chart: "bar",
        title: "F1",
        caption: "ours and paper",
        yLabel: "Recall",
        categories: ["A", "B"],
        series: [
          { name: "ours", points: [{ input: "a", metric: "recall@10" }, { input: "b", metric: "recall@10", group: { by: "questionType", value: "switch" } }] },
          { name: "paper", points: [{ paper: { table: "final-table2", row: "bm25-q", column: "qrecc-r10" } }, null] },
        ],
        valueFormat: { kind: "percent", digits: 1 },
        yMax: 1,
      },
    },
    inputs: { a, b },
  });
  const report = use(writeReportDef(["t"], ["f"]), {
    name: "write-report",
    params: { title: "Test report", data: "mini", datasetDescription: "tiny fixtures" },
    inputs: { t: table.out.table as OutputRef<"table">, f: figure.out.figure as OutputRef<"figure"> },
  });
  return { table, figure, report };
}

const reportTarget: Target = { name: "report", description: "test", steps: () => [graph().report], exports: () => ({ report: graph().report.out.report }) };

test("table groups, figure points, report index and the export, end to end through the engine", async () => {
  const targets = new TargetRegistry().register(reportTarget);
  const p = project(targets);
  const exportRoot = join(dir, "export");
  const first = await run(p, ["report"], { exportRoot });
  assert.equal(first.outcome.ok, true, JSON.stringify(first.outcome.analysis));
  assert.deepEqual(first.executed, ["metrics-a", "metrics-b", "render-f", "render-t", "write-report"]);
  assert.ok("exported" in first.outcome);
  assert.deepEqual(
    first.outcome.exported.map((e) => [e.name, e.path, e.step]),
    [["report", join(exportRoot, "report"), "write-report"]],
  );

  const out = join(exportRoot, "report");
  assert.deepEqual(readdirSync(out).sort(), ["figures", "index.html", "index.md", "tables"]);
  assert.deepEqual(readdirSync(join(out, "tables")).sort(), ["t1.csv", "t1.json", "t1.md"]);
  assert.deepEqual(readdirSync(join(out, "figures")).sort(), ["f1.json", "f1.svg"]);

  // Table: group cells take the group's value and N; an absent group is "-".
  const t = JSON.parse(readFileSync(join(out, "tables", "t1.json"), "utf8")) as RenderedTableJson;
  const x = t.rows[0]!.cells;
  assert.deepEqual([x["all-mrr"]!.value, x["all-mrr"]!.n], [0.5, 4]);
  assert.deepEqual([x["first-r10"]!.value, x["first-r10"]!.n, x["first-r10"]!.formatted, x["first-r10"]!.paperFormatted], [1, 1, "100.0", "56.1"]);
  assert.deepEqual([x["switch-mrr"]!.value, x["switch-mrr"]!.n, x["switch-mrr"]!.formatted], [1 / 3, 3, "0.333"]);
  assert.deepEqual([x["no-switch-mrr"]!.value, x["no-switch-mrr"]!.formatted, x["no-switch-mrr"]!.paperFormatted], [null, "-", "0.78"]);
  assert.deepEqual(t.columns[1]!.group, { by: "questionType", value: "first" });
  const md = readFileSync(join(out, "tables", "t1.md"), "utf8");
  assert.match(md, /\| X \| 0\.500 \| 0\.47 \| 100\.0 \| 56\.1 \| 0\.333 \| 0\.18 \| - \| 0\.78 \| 1\/3\/4 \|/);
  // switch MRR of b: (4 * 0.25 - 1) / 3 = 0
  assert.match(md, /\| Y \| 0\.250 \| 0\.43 \| - \| - \| 0\.000 \| 0\.16 \| - \| 0\.76 \| 3\/4 \|/);

  // Figure: ours with N and the producing key, paper converted to a fraction, null kept.
  const f = JSON.parse(readFileSync(join(out, "figures", "f1.json"), "utf8")) as FigureJson;
  const [ours, paper] = f.series;
  assert.deepEqual(
    ours!.points.map((pt) => [pt.category, pt.value, pt.source === "ours" ? pt.n : null]),
    [
      ["A", 0.75, 4],
      ["B", 0, 3],
    ],
  );
  const metricsKey = (await p.store.entries()).find((e) => e.manifest.step.name === "metrics-a")!.key;
  assert.equal(ours!.points[0]!.source === "ours" ? ours!.points[0]!.stepKey : "", metricsKey);
  assert.deepEqual(paper!.points[0], { category: "A", source: "paper", value: 0.111, table: "final-table2", row: "bm25-q", column: "qrecc-r10" });
  assert.deepEqual(paper!.points[1], { category: "B", source: "none", value: null });
  const svg = readFileSync(join(out, "figures", "f1.svg"), "utf8");
  assert.equal((svg.match(/<rect class="bar"/g) ?? []).length, 3);
  assert.match(svg, /data-series="paper" data-category="A" data-value="0\.111"/);

  // Index: links to every file and the data statement.
  const index = readFileSync(join(out, "index.md"), "utf8");
  assert.match(index, /\*\*Dataset: mini\.\*\*/);
  assert.match(index, /\[Markdown\]\(tables\/t1\.md\) · \[CSV\]\(tables\/t1\.csv\) · \[JSON\]\(tables\/t1\.json\)/);
  assert.match(index, /!\[F1\]\(figures\/f1\.svg\)/);
  assert.match(readFileSync(join(out, "index.html"), "utf8"), /<img src="figures\/f1\.svg" alt="F1">/);

  // A second run is all cache hits and replaces the export whole (a stray file disappears).
  writeFileSync(join(out, "stray.txt"), "x");
  const second = await run(p, ["report"], { exportRoot });
  assert.deepEqual(second.executed, []);
  assert.equal(existsSync(join(out, "stray.txt")), false);
  assert.equal(existsSync(join(out, "index.md")), true);
  assert.deepEqual(readdirSync(exportRoot).sort(), ["report"]);
});

test("a failed run exports nothing; --only runs skip exports outside the subgraph", async () => {
  const failing = defineStep({
    id: "fail-fixture",
    version: 1,
    source: src,
    params: z.object({}).strict(),
    inputs: {},
    outputs: { report: file("report", "r") },
    runtime: {
      type: "in-process",
      async run() {
        throw new Error("boom");
      },
    },
  });
  const target: Target = { name: "bad", description: "fails", steps: () => [use(failing, { name: "fail", inputs: {} })], exports: () => ({ report: use(failing, { name: "fail", inputs: {} }).out.report }) };
  const p = project(new TargetRegistry().register(target));
  const exportRoot = join(dir, "export-fail");
  mkdirSync(exportRoot);
  const r = await run(p, ["bad"], { exportRoot });
  assert.equal(r.outcome.ok, false);
  assert.deepEqual(readdirSync(exportRoot), []);

  const p2 = project(new TargetRegistry().register(reportTarget));
  const exportRoot2 = join(dir, "export-only");
  const only = await run(p2, ["report"], { exportRoot: exportRoot2, only: "metrics-a" });
  assert.equal(only.outcome.ok, true);
  assert.ok("exported" in only.outcome && only.outcome.exported.length === 0);
  assert.equal(existsSync(join(exportRoot2, "report")), false);
});

test("an export name must be a plain file name", () => {
  const target: Target = { name: "weird", description: "x", steps: () => [graph().report], exports: () => ({ "../up": graph().report.out.report }) };
  const p = project(new TargetRegistry().register(target));
  assert.throws(() => p.graph(["weird"]), /exports '\.\.\/up', which is not a plain file name/);
});
