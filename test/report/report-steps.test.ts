/**
 * The report steps run through the engine on hand-made metrics.json inputs, wired as the
 * definitions wire them (pipeline/definitions/render.ts and report.ts): a table with a
 * question-type band, an undefined cell and a cell averaged over three seeds; a figure with
 * seeds and paper markers; the findings; the provenance pages; the export to
 * `<export root>/report/`. Then every number of index.html must link to a page that exists.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, file, use, type OutputRef } from "../../pipeline/engine/step.ts";
import { TargetRegistry, type Target } from "../../pipeline/engine/targets.ts";
import { renderFigureStep, renderTableStep } from "../../pipeline/definitions/render.ts";
import { reportTarget, type ReportSection } from "../../pipeline/definitions/report.ts";
import type { RenderedTableJson } from "../../steps/report/table.ts";
import type { FigureJson } from "../../steps/report/figure.ts";
import { project, run, tempDir } from "../engine/helpers.ts";
import { checkReportLinks } from "./report-links.ts";

const dir = tempDir();
const src = join(dir, "fixture.ts");
writeFileSync(src, "export const fixture = 1;\n");

/** A metrics.json with groups: all N=4; first N=1; switch N=3; domain nq N=4. */
function metricsJson(mrr: number, r10: number): string {
  return JSON.stringify({
    split: "test",
    aggregate: { n: 4, metrics: { mrr, "recall@10": r10 }, noGold: "normalized", missing: "zero", tieRule: "trec_eval", counts: { evaluated: 4 } },
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
  description: "a fixture evaluation",
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

/** A findings.json (schema cspipe.findings/1) whose evidence is the `m` input's evaluation. */
const writeFindings = defineStep({
  id: "write-fixture-findings",
  version: 1,
  source: src,
  params: z.object({}).strict(),
  inputs: { m: "json:metrics" },
  outputs: { findings: file("json:findings", "findings.json") },
  // Its evidence names the `m` input's producer key, as check-findings' does.
  provenanceKeys: true,
  runtime: {
    type: "in-process",
    async run(ctx) {
      const evidence = [{ label: "DPR (IBN), R@10, seed 1", stepKey: ctx.inputKeys.m.key, stepId: ctx.inputKeys.m.stepId }];
      const claims = [
        { id: "shortcut-keeps-recall", title: "DPR^shortcut keeps most of DPR's R@10", paper: "78% (46.5 / 59.1)", measure: "R@10 of DPR^shortcut / R@10 of DPR", value: 0.69, sd: 0.03, seeds: 3, unit: "ratio", threshold: "holds when the ratio is at least 0.6", verdict: "holds", evidence },
        { id: "ihn-helps-first", title: "IHN helps first turns", paper: "+26.3 R@10", measure: "R@10 difference", value: -1.5, sd: null, seeds: 1, unit: "points", threshold: "holds when above 0 by more than 2 sd", verdict: "does-not-hold", evidence: [] },
      ];
      writeFileSync(ctx.outputs.findings, JSON.stringify({ schema: "cspipe.findings/1", data: "mini", claims }));
    },
  },
});

const metrics = (name: string, mrr: number, r10: number): OutputRef<"json:metrics"> => use(writeMetrics, { name, params: { json: metricsJson(mrr, r10) }, inputs: {} }).out.metrics;

const pct = { kind: "percent", digits: 1 } as const;

const sections: ReportSection[] = [
  {
    kind: "table",
    id: "t1",
    build: () =>
      renderTableStep(
        "render-t",
        {
          id: "t1",
          title: "T1: X_t and X_t \\ {q_t}",
          caption: "groups",
          columns: [
            { id: "all-mrr", band: "all", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "all-mrr" },
            { id: "first-r10", band: "first", header: "R@10", metric: "recall@10", format: pct, paperColumn: "first-r10", group: { by: "questionType", value: "first" } },
            { id: "switch-mrr", band: "switch", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "switch-mrr", group: { by: "questionType", value: "switch" } },
            { id: "no-switch-mrr", band: "no-switch", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "no-switch-mrr", group: { by: "questionType", value: "no-switch" } },
          ],
          rows: [
            { id: "x", label: "BM25(X_t, C)", paperRow: "bm25" },
            { id: "y", label: "BM25(X_t \\ {q_t}, C)", paperRow: "bm25-without-q" },
          ],
        },
        "early-table1",
        [
          { input: "a", metrics: metrics("metrics-a", 0.5, 0.75), map: { row: "x", columns: ["all-mrr", "first-r10", "switch-mrr", "no-switch-mrr"] } },
          { input: "b", metrics: [metrics("metrics-b1", 0.25, 0.25), metrics("metrics-b2", 0.5, 0.25), metrics("metrics-b3", 0.75, 0.25)], map: { row: "y", columns: ["all-mrr", "first-r10", "switch-mrr"], noInput: { groups: ["first"], reason: "X_t \\ {q_t} is empty on a first turn" } } },
        ],
      ),
  },
  {
    kind: "figure",
    id: "f1",
    build: () =>
      renderFigureStep(
        "render-f",
        {
          id: "f1",
          chart: "bar",
          title: "F1",
          caption: "ours and paper",
          yLabel: "Recall",
          categories: ["A", "B"],
          series: [{ name: "ours", points: [{ input: "a", metric: "recall@10", paper: { table: "final-table2", row: "bm25-q", column: "qrecc-r10" } }, { input: "b", metric: "recall@10", group: { by: "questionType", value: "switch" } }] }],
          valueFormat: pct,
        },
        { a: metrics("metrics-a", 0.5, 0.75), b: [metrics("metrics-b1", 0.25, 0.25), metrics("metrics-b2", 0.5, 0.25), metrics("metrics-b3", 0.75, 0.25)] },
      ),
  },
];

const findings = () => use(writeFindings, { name: "findings", params: {}, inputs: { m: metrics("metrics-a", 0.5, 0.75) } }).out.findings;

test("tables, figures, findings and provenance end to end: every number links to a page that exists", async () => {
  const p = project(new TargetRegistry().register(reportTarget(sections, "report", "test", { findings })));
  const exportRoot = join(dir, "export");
  const first = await run(p, ["report"], { exportRoot });
  assert.equal(first.outcome.ok, true, JSON.stringify(first.outcome.analysis) + JSON.stringify(first.events.filter((e) => e.type === "failed")));
  assert.deepEqual(first.executed, ["findings", "metrics-a", "metrics-b1", "metrics-b2", "metrics-b3", "render-f", "render-provenance", "render-t", "write-report"]);
  const out = join(exportRoot, "report");
  assert.deepEqual(readdirSync(out).sort(), ["figures", "index.html", "index.md", "provenance", "tables"]);
  const keyOf = async (name: string) => (await p.store.entries()).find((e) => e.manifest.step.name === name)!.key;

  // Table: seeds average, the undefined cell, the group N, the paper's numbers.
  const t = JSON.parse(readFileSync(join(out, "tables", "t1.json"), "utf8")) as RenderedTableJson;
  const [x, y] = [t.rows[0]!.cells, t.rows[1]!.cells];
  assert.deepEqual([x["first-r10"]!.value, x["first-r10"]!.n, x["first-r10"]!.formatted, x["first-r10"]!.paperFormatted], [1, 1, "100.0", "56.1"]);
  assert.deepEqual([x["no-switch-mrr"]!.status, x["no-switch-mrr"]!.formatted, x["no-switch-mrr"]!.paperFormatted], ["no-turns", "-", "0.78"]);
  assert.deepEqual([y["all-mrr"]!.value, y["all-mrr"]!.sd, y["all-mrr"]!.seeds, y["all-mrr"]!.formatted], [0.5, 0.25, 3, "0.500 ± 0.250"]);
  assert.deepEqual(y["all-mrr"]!.stepKeys, [await keyOf("metrics-b1"), await keyOf("metrics-b2"), await keyOf("metrics-b3")].sort());
  assert.deepEqual([y["first-r10"]!.status, y["first-r10"]!.formatted, y["first-r10"]!.paperFormatted], ["no-input", "-", "-"]);

  // Figure: the seeds' mean with its sd, the paper's number, N; its SVG links to the pages.
  const f = JSON.parse(readFileSync(join(out, "figures", "f1.json"), "utf8")) as FigureJson;
  const [pa, pb] = f.series[0]!.points;
  assert.deepEqual([pa!.ours!.value, pa!.ours!.n, pa!.ours!.stepKeys, pa!.paper!.value], [0.75, 4, [await keyOf("metrics-a")], 0.111]);
  assert.deepEqual([pb!.ours!.value, pb!.ours!.seeds, pb!.ours!.n, pb!.paper], [0, 3, 3, null]);
  assert.equal(f.nNote, "N (turns) per category: A 4, B 3.");

  // Every number of index.html links to a provenance page that exists; so do all links of all pages.
  const links = checkReportLinks(out);
  assert.deepEqual([links.cells, links.marks], [5, 2]);
  assert.ok(links.links > 20 && links.pages > 8, JSON.stringify(links));
  const html = readFileSync(join(out, "index.html"), "utf8");
  assert.match(html, /<a href="provenance\/[0-9a-f]{64}\.html" title="N = 4: provenance">0\.500<\/a>/);
  assert.match(html, /<a href="provenance\/seeds-[0-9a-f]{16}\.html" title="N = 4, mean ± sd over 3 seeds: provenance">0\.500<span class="sd"> ± 0\.250<\/span><\/a>/);
  assert.match(html, /<th scope="row" class="system">BM25\(X<sub>t<\/sub> ∖ \{q<sub>t<\/sub>\}, C\)<\/th>/);
  // Findings first, coloured by verdict, evidence linked.
  assert.ok(html.indexOf('id="findings"') < html.indexOf('id="tables"'));
  assert.match(html, /<span class="verdict holds">holds<\/span>/);
  assert.match(html, /<span class="verdict does-not-hold">does not hold<\/span>/);
  assert.match(html, /0\.69 ± 0\.03 \(3 seeds\)/);
  assert.match(html, new RegExp(`<a href="provenance/${await keyOf("metrics-a")}\\.html" title="write-fixture-metrics [0-9a-f]{64}">DPR \\(IBN\\), R@10, seed 1</a>`));
  const md = readFileSync(join(out, "index.md"), "utf8");
  assert.match(md, /### DPR<sup>shortcut<\/sup> keeps most of DPR's R@10: \*\*holds\*\*/);
  assert.match(md, /\| BM25\(X<sub>t<\/sub>, C\) \| \[0\.500\]\(provenance\/[0-9a-f]{64}\.html\) \| 0\.47 \|/);

  // Provenance page of an evaluation: the step, its key, its metrics, where it is used.
  const page = readFileSync(join(out, "provenance", `${await keyOf("metrics-a")}.html`), "utf8");
  assert.match(page, /<h1>metrics-a<\/h1>/);
  assert.match(page, /N = 4 turns of &#39;test&#39;: MRR 0\.500, R@10 75\.0%/);
  assert.match(page, /<a href="files\/[0-9a-f]{64}\/metrics\.json">metrics\.json<\/a>/);
  assert.match(page, /render-t<\/a> <code>render-table<\/code>/, "used by the table");
  const seeds = readdirSync(join(out, "provenance")).filter((n) => n.startsWith("seeds-"));
  assert.equal(seeds.length, 1, "one page for the seeds set (the table and the figure share it)");
  assert.equal((readFileSync(join(out, "provenance", seeds[0]!), "utf8").match(/<li>/g) ?? []).length, 3);

  // A second run is all cache hits; same bytes; the export is replaced whole.
  writeFileSync(join(out, "stray.txt"), "x");
  const second = await run(p, ["report"], { exportRoot });
  assert.deepEqual(second.executed, []);
  assert.equal(existsSync(join(out, "stray.txt")), false);
  assert.equal(readFileSync(join(out, "index.html"), "utf8"), html);
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

  const p2 = project(new TargetRegistry().register(reportTarget(sections)));
  const exportRoot2 = join(dir, "export-only");
  const only = await run(p2, ["report"], { exportRoot: exportRoot2, only: "metrics-a" });
  assert.equal(only.outcome.ok, true);
  assert.ok("exported" in only.outcome && only.outcome.exported.length === 0);
  assert.equal(existsSync(join(exportRoot2, "report")), false);
});

test("an export name must be a relative path of plain names (results/x is one; ../up and /abs are not)", () => {
  const base = reportTarget(sections);
  for (const bad of ["../up", "/abs", "results/../up", "results//x", ".hidden"]) {
    const target: Target = { ...base, name: "weird", exports: (ctx) => ({ [bad]: base.exports!(ctx).report! }) };
    const p = project(new TargetRegistry().register(target));
    assert.throws(() => p.graph(["weird"]), new RegExp(`exports '${bad.replace(/[./]/g, "\\$&")}', which is not a relative path of plain names`), bad);
  }
  const nested: Target = { ...base, name: "nested", exports: (ctx) => ({ "results/nested": base.exports!(ctx).report! }) };
  assert.ok(project(new TargetRegistry().register(nested)).graph(["nested"]).ok);
});
