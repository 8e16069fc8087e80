/**
 * The lexical targets and the report target build and analyze (no execution): expected
 * step names, the shared BM25 prefix resolving to one step, params that validate, paper
 * references that exist, and titles that name the data.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { analyze } from "../../pipeline/engine/graph.ts";
import { readLockFile } from "../../pipeline/engine/datasets-lock.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import type { AnyStep } from "../../pipeline/engine/step.ts";
import { LEXICAL_TARGETS, figure2aBm25Target, table1Bm25Spec, table1Bm25Target, table2Bm25Target, table3Bm25Spec, table3Bm25Target } from "../../pipeline/definitions/lexical.ts";
import { LEXICAL_SECTIONS, reportTarget } from "../../pipeline/definitions/report.ts";
import { renderTable } from "../../steps/report/table.ts";
import { paperTable } from "../../steps/report/paper-numbers.ts";

const lock = readLockFile(join(findProjectRoot(), "datasets.lock"));
const mini = { data: "mini" } as const;

function names(steps: readonly AnyStep[]): string[] {
  const a = analyze(steps, lock);
  assert.ok(a.ok, a.ok ? "" : JSON.stringify(a.failures));
  return a.graph.order.map((s) => s.name).sort();
}

const EVAL_SPLIT: Record<string, string> = { qrecc: "test", topiocqa: "dev", orquac: "test" };
const prefix = (ds: string) => [`build-bm25-index.mini-${ds}`, `generate-mini-${ds}`, `preprocess-collection-mini-${ds}`, `preprocess-mini-${ds}.${EVAL_SPLIT[ds]}`];
const bm25 = (ds: string, forms: string[]) => forms.flatMap((f) => [`evaluate.bm25.mini-${ds}.${f}`, `search-bm25.mini-${ds}.${f}`]);

test("table1-bm25: QReCC, X_t and X_t \\ q_t, one render step", () => {
  assert.deepEqual(names(table1Bm25Target.steps(mini)), [...bm25("qrecc", ["history", "history_without_q"]), ...prefix("qrecc"), "render-table1-bm25"].sort());
});

test("table3-bm25: OR-QuAC, q_1, q_t, Q_{t-1}, Q_t", () => {
  assert.deepEqual(names(table3Bm25Target.steps(mini)), [...bm25("orquac", ["q_first", "q_t", "questions", "questions_prev"]), ...prefix("orquac"), "render-table3-bm25"].sort());
});

test("figure2a-bm25: the four QReCC query forms", () => {
  assert.deepEqual(names(figure2aBm25Target.steps(mini)), [...bm25("qrecc", ["a_prev", "history", "history_without_q", "q_t"]), ...prefix("qrecc"), "render-figure2a-bm25"].sort());
});

test("report: every lexical section, BM25 steps shared (one per dataset and form), and an export named report", () => {
  const target = reportTarget(LEXICAL_SECTIONS);
  const steps = target.steps(mini);
  const got = names([...steps, ...Object.values(target.exports!(mini)).map((r) => r.step), ...table2Bm25Target.steps(mini)]);
  const expected = [
    ...bm25("qrecc", ["a_prev", "history", "history_without_q", "q_t"]),
    ...bm25("topiocqa", ["a_prev", "history", "history_without_q", "q_t"]),
    ...bm25("orquac", ["q_first", "q_t", "questions", "questions_prev"]),
    ...prefix("qrecc"),
    ...prefix("topiocqa"),
    ...prefix("orquac"),
    "render-figure2a-bm25",
    "render-provenance",
    "render-table1-bm25",
    "render-table2-bm25",
    "render-table3-bm25",
    "write-report",
  ].sort();
  assert.deepEqual(got, expected);
  assert.deepEqual(Object.keys(target.exports!(mini)), ["report"]);
  assert.equal(target.name, "report");
});

test("every lexical target builds together with the others (no duplicate step names) and titles say which data", () => {
  const all = LEXICAL_TARGETS.flatMap((t) => t.steps(mini));
  assert.equal(names(all).filter((n) => n.startsWith("render-")).length, 4);
  assert.match(table1Bm25Spec("mini").title, /mini benchmark/);
  assert.match(table3Bm25Spec("real").title, /real data/);
  const render = (t: (typeof LEXICAL_TARGETS)[number]) => t.steps(mini)[0]!;
  const params = render(table2Bm25Target).params as { spec: { title: string } };
  assert.match(params.spec.title, /mini benchmark/);
});

test("table specs match their paper tables (rows and columns exist) and table 1 takes groups per column", () => {
  const t1 = table1Bm25Spec("mini");
  assert.doesNotThrow(() => renderTable(t1, {}, paperTable("early-table1")));
  assert.doesNotThrow(() => renderTable(table3Bm25Spec("mini"), {}, paperTable("early-table3")));
  assert.deepEqual(
    t1.columns.map((c) => `${c.id}:${c.group?.value ?? "aggregate"}:${c.metric}`),
    [
      "all-mrr:aggregate:mrr",
      "all-r10:aggregate:recall@10",
      "all-r100:aggregate:recall@100",
      "first-mrr:first:mrr",
      "first-r10:first:recall@10",
      "first-r100:first:recall@100",
      "switch-mrr:switch:mrr",
      "switch-r10:switch:recall@10",
      "switch-r100:switch:recall@100",
      "no-switch-mrr:no-switch:mrr",
      "no-switch-r10:no-switch:recall@10",
      "no-switch-r100:no-switch:recall@100",
    ],
  );
});

test("on the real data the same targets build other steps (no mini step leaks in) and say so in titles", () => {
  const steps = table1Bm25Target.steps({ data: "real" });
  const params = steps[0]!.params as { spec: { title: string } };
  assert.match(params.spec.title, /real data/);
  const all = names(steps);
  assert.ok(all.includes("search-bm25.real-qrecc.history"), all.join(", "));
  assert.ok(all.includes("render-table1-bm25"));
  assert.equal(all.filter((n) => n.includes("mini")).length, 0);
});
