/**
 * The paper's lexical analysis as targets, on the mini benchmark or the real data
 * (`ctx.data`; every title says which):
 *  - table2-bm25: BM25 over q_t, a_{t-1}, X_t \ {q_t}, X_t on QReCC test and TopiOCQA dev (final Table 2);
 *  - table1-bm25: BM25(X_t) and BM25(X_t \ {q_t}) on QReCC test, all / first / switch / no-switch (early Table 1);
 *  - table3-bm25: BM25 over q_1, q_t, Q_{t-1}, Q_t on OR-QuAC test (early Table 3, a superset of final Table 3);
 *  - figure2a-bm25: Figure 2(a), R@10 and R@100 of the four QReCC query forms, ours beside the paper's.
 * Each `…Bm25(ctx)` builder returns the rendered output so the report target can reuse it.
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DataSource, Overrides, Target, TargetContext } from "../engine/targets.ts";
import { buildBm25Index, searchBm25 } from "../../steps/sparse/steps.ts";
import { QUERY_FORMS, type QueryFormName } from "../../steps/encoding/format/query-forms.ts";
import { evaluateRunStep } from "../../steps/eval/steps.ts";
import { noInputOnFirstTurns, renderFigureStep, renderTableStep, type CellSource } from "./render.ts";
import type { TableColumnSpec, TableSpec } from "../../steps/report/table.ts";
import type { FigureSpec } from "../../steps/report/figure.ts";
import { tablesIn } from "./datasets.ts";
import { bm25Of, sharedParameters } from "./shared-parameters.ts";
import { resultTarget } from "./results.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import { descriptorOf, perDataset } from "../../steps/data/datasets/registry.ts";
import { profiled } from "./resources.ts";

/** Evaluation split and metrics per dataset, as the paper reports them. */
export const EVAL_SETUP: Readonly<Record<DatasetName, { split: string; metrics: string[] }>> = perDataset((d) => ({ split: d.evaluation.split, metrics: [...d.evaluation.metrics] }));


/** Where a lexical builder reads its data source and `--set` overrides (bm25.*, data.*; a target's context). */
export interface LexicalContext {
  readonly data: DataSource;
  readonly overrides?: Overrides;
}

/** BM25's evaluation of one query form on a dataset's evaluation split (depth 100, the paper's k1 and b unless overridden). */
export function bm25Metrics(dataset: DatasetName, form: QueryFormName, ctx: LexicalContext): OutputRef<"json:metrics"> {
  const { split, metrics } = EVAL_SETUP[dataset];
  // Only the evaluation split's turns: a test-split table fetches no training file.
  const tables = tablesIn(ctx, dataset, [split]);
  const tag = `${ctx.data}-${dataset}`;
  const index = use(buildBm25Index, { name: `build-bm25-index.${tag}`, params: {}, inputs: { passages: tables.passages }, ...profiled(ctx.data, "build-bm25-index") });
  const run = use(searchBm25, {
    name: `search-bm25.${tag}.${form}`,
    params: { form, split, k: 100, ...bm25Of(ctx.overrides, dataset) },
    inputs: { index: index.out.index, turns: tables.turns },
    ...profiled(ctx.data, "search-bm25"),
  });
  const ev = use(evaluateRunStep, {
    name: `evaluate.bm25.${tag}.${form}`,
    params: { split, metrics },
    inputs: { run: run.out.run, turns: tables.turns },
  });
  return ev.out.metrics;
}

/** How titles name the data a table was computed on. */
export const DATA_LABEL: Readonly<Record<DataSource, string>> = { mini: "mini benchmark", real: "real data" };

interface FormRow {
  readonly form: QueryFormName;
  /** Row id in the paper table. */
  readonly row: string;
  readonly label: string;
}

const mrrFormat = { kind: "fixed", digits: 3 } as const;
const pct = { kind: "percent", digits: 1 } as const;

/** A render-table step: one metrics input per (dataset, row), each filling the given columns of its row. */
function renderBm25Table(ctx: TargetContext, name: string, spec: TableSpec, paperTableId: string, cells: readonly { dataset: DatasetName; row: FormRow; columns: readonly string[] }[]): OutputRef<"table"> {
  const sources: CellSource[] = cells.map((c) => ({
    input: `${c.dataset}_${c.row.form}`,
    metrics: bm25Metrics(c.dataset, c.row.form, ctx),
    map: { row: c.row.row, columns: c.columns, noInput: noInputOnFirstTurns(c.row.form) },
  }));
  return renderTableStep(name, spec, paperTableId, sources);
}

// ---- Table 2 (final version): BM25 block -------------------------------------------------

const TABLE2_ROWS: readonly FormRow[] = [
  { form: "q_t", row: "bm25-q", label: "BM25(q_t, C)" },
  { form: "a_prev", row: "bm25-prev-answer", label: "BM25(a_{t-1}, C)" },
  { form: "history_without_q", row: "bm25-history-without-q", label: "BM25(X_t \\ {q_t}, C)" },
  { form: "history", row: "bm25-history", label: "BM25(X_t, C)" },
];

export function table2Bm25Spec(data: DataSource): TableSpec {
  return {
    id: "table2-bm25",
    title: `Table 2 (BM25 block): QReCC test and TopiOCQA dev, ${DATA_LABEL[data]}`,
    caption: "BM25 over the current question, the previous answer, the history without the current question, and the whole input.",
    columns: [
      { id: "qrecc-mrr", band: "QReCC test", header: "MRR", metric: "mrr", format: mrrFormat, paperColumn: "qrecc-mrr" },
      { id: "qrecc-r10", band: "QReCC test", header: "R@10", metric: "recall@10", format: pct, paperColumn: "qrecc-r10" },
      { id: "qrecc-r100", band: "QReCC test", header: "R@100", metric: "recall@100", format: pct, paperColumn: "qrecc-r100" },
      { id: "topiocqa-r5", band: "TopiOCQA dev", header: "R@5", metric: "recall@5", format: pct, paperColumn: "topiocqa-r5" },
      { id: "topiocqa-r20", band: "TopiOCQA dev", header: "R@20", metric: "recall@20", format: pct, paperColumn: "topiocqa-r20" },
      { id: "topiocqa-r100", band: "TopiOCQA dev", header: "R@100", metric: "recall@100", format: pct, paperColumn: "topiocqa-r100" },
    ],
    rows: TABLE2_ROWS.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })),
  };
}

export function table2Bm25(ctx: TargetContext): OutputRef<"table"> {
  return renderBm25Table(ctx, "render-table2-bm25", table2Bm25Spec(ctx.data), "final-table2", [
    ...TABLE2_ROWS.map((row) => ({ dataset: "qrecc" as const, row, columns: ["qrecc-mrr", "qrecc-r10", "qrecc-r100"] })),
    ...TABLE2_ROWS.map((row) => ({ dataset: "topiocqa" as const, row, columns: ["topiocqa-r5", "topiocqa-r20", "topiocqa-r100"] })),
  ]);
}

// ---- Table 1 (early version): BM25 rows with the question-type breakdown -------------------

const TABLE1_ROWS: readonly FormRow[] = [
  { form: "history", row: "bm25", label: "BM25(X_t, C)" },
  { form: "history_without_q", row: "bm25-without-q", label: "BM25(X_t \\ {q_t}, C)" },
];

/** Question-type groups of early Table 1, in its column order (QReCC's labels' order, from its descriptor); "all" is the aggregate. */
const TABLE1_GROUPS = ["all", ...descriptorOf("qrecc").questionTypeOrder];
const TABLE1_METRICS = [
  { id: "mrr", header: "MRR", metric: "mrr", format: mrrFormat },
  { id: "r10", header: "R@10", metric: "recall@10", format: pct },
  { id: "r100", header: "R@100", metric: "recall@100", format: pct },
] as const;

export function table1Bm25Spec(data: DataSource): TableSpec {
  const columns: TableColumnSpec[] = TABLE1_GROUPS.flatMap((g) =>
    TABLE1_METRICS.map((m) => ({
      id: `${g}-${m.id}`,
      band: g === "all" ? "all turns" : `${g} turns`,
      header: m.header,
      metric: m.metric,
      format: m.format,
      paperColumn: `${g}-${m.id}`,
      ...(g === "all" ? {} : { group: { by: "questionType" as const, value: g } }),
    })),
  );
  return {
    id: "table1-bm25",
    title: `Table 1 (BM25 rows): QReCC test by question type, ${DATA_LABEL[data]}`,
    caption:
      "BM25 over the whole input X_t and over the history without the current question, on all turns with gold and on the first / switch / no-switch subsets (labelled NQ and TREC turns). Paper: early version, Table 1 (MRR printed with 2 decimals there).",
    columns,
    rows: TABLE1_ROWS.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })),
  };
}

export function table1Bm25(ctx: TargetContext): OutputRef<"table"> {
  const spec = table1Bm25Spec(ctx.data);
  return renderBm25Table(ctx, "render-table1-bm25", spec, "early-table1", TABLE1_ROWS.map((row) => ({ dataset: "qrecc" as const, row, columns: spec.columns.map((c) => c.id) })));
}

// ---- Table 3: BM25 rows on OR-QuAC ----------------------------------------------------------

const TABLE3_ROWS: readonly FormRow[] = [
  { form: "q_first", row: "bm25-first-q", label: "BM25(q_1, C)" },
  { form: "q_t", row: "bm25-q", label: "BM25(q_t, C)" },
  { form: "questions_prev", row: "bm25-prev-questions", label: "BM25(Q_{t-1}, C)" },
  { form: "questions", row: "bm25-questions", label: "BM25(Q_t, C)" },
];

export function table3Bm25Spec(data: DataSource): TableSpec {
  return {
    id: "table3-bm25",
    title: `Table 3 (BM25 rows): OR-QuAC test, ${DATA_LABEL[data]}`,
    caption:
      "BM25 over the first question, the current question, the previous questions and all questions (OR-QuAC feeds only questions). Paper: early version, Table 3, which adds BM25(q_1, C); its other three rows equal final Table 3.",
    columns: [
      { id: "orquac-mrr", band: "OR-QuAC test", header: "MRR", metric: "mrr", format: mrrFormat, paperColumn: "orquac-mrr" },
      { id: "orquac-r5", band: "OR-QuAC test", header: "R@5", metric: "recall@5", format: pct, paperColumn: "orquac-r5" },
    ],
    rows: TABLE3_ROWS.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })),
  };
}

export function table3Bm25(ctx: TargetContext): OutputRef<"table"> {
  return renderBm25Table(ctx, "render-table3-bm25", table3Bm25Spec(ctx.data), "early-table3", TABLE3_ROWS.map((row) => ({ dataset: "orquac" as const, row, columns: ["orquac-mrr", "orquac-r5"] })));
}

// ---- Figure 2(a): BM25 by query form on QReCC -----------------------------------------------

const FIGURE2A_FORMS: readonly (FormRow & { category: string })[] = TABLE2_ROWS.map((r) => ({ ...r, category: QUERY_FORMS[r.form].paper }));

export function figure2aBm25Spec(data: DataSource): FigureSpec {
  const points = (metric: string, column: string) => FIGURE2A_FORMS.map((f) => ({ input: `qrecc_${f.form}`, metric, paper: { table: "final-table2", row: f.row, column } }));
  return {
    id: "figure2a-bm25",
    chart: "bar",
    title: `Figure 2(a): BM25 by query form, QReCC test, ${DATA_LABEL[data]}`,
    caption: "Recall of BM25 over q_t, a_{t-1}, X_t \\ {q_t} and X_t. The paper prints the figure's values in final Table 2's BM25 block: they are the markers.",
    yLabel: "Recall",
    categories: FIGURE2A_FORMS.map((f) => f.category),
    series: [
      { name: "R@10", points: points("recall@10", "qrecc-r10") },
      { name: "R@100", points: points("recall@100", "qrecc-r100") },
    ],
    valueFormat: pct,
  };
}

export function figure2aBm25(ctx: TargetContext): OutputRef<"figure"> {
  const inputs: Record<string, OutputRef<"json:metrics">> = {};
  for (const f of FIGURE2A_FORMS) inputs[`qrecc_${f.form}`] = bm25Metrics("qrecc", f.form, ctx);
  return renderFigureStep("render-figure2a-bm25", figure2aBm25Spec(ctx.data), inputs);
}

// ---- targets -------------------------------------------------------------------------------

/** A lexical target's `--set` parameters: BM25's k1 and b and the preprocessing options of the datasets it reads. */
const LEXICAL_SPACE = (datasets: readonly DatasetName[]) => sharedParameters("the BM25 and preprocessing setup", datasets);

export const table2Bm25Target: Target = resultTarget({ name: "table2-bm25", description: "Table 2's BM25 block (q_t, a_{t-1}, X_t \\ q_t, X_t) on QReCC and TopiOCQA, with the paper's numbers", parameters: LEXICAL_SPACE(["qrecc", "topiocqa"]) }, (ctx) => [table2Bm25(ctx)]);

export const table1Bm25Target: Target = resultTarget({ name: "table1-bm25", description: "Table 1's BM25 rows (X_t, X_t \\ q_t) on QReCC test by question type (all / first / switch / no-switch), with the early version's numbers", parameters: LEXICAL_SPACE(["qrecc"]) }, (ctx) => [table1Bm25(ctx)]);

export const table3Bm25Target: Target = resultTarget({ name: "table3-bm25", description: "Table 3's BM25 rows (q_1, q_t, Q_{t-1}, Q_t) on OR-QuAC test, with the paper's numbers", parameters: LEXICAL_SPACE(["orquac"]) }, (ctx) => [table3Bm25(ctx)]);

export const figure2aBm25Target: Target = resultTarget({ name: "figure2a-bm25", description: "Figure 2(a) as SVG: BM25 R@10 / R@100 by query form on QReCC test, ours beside the paper's", parameters: LEXICAL_SPACE(["qrecc"]) }, (ctx) => [figure2aBm25(ctx)]);

/** Every lexical target, for registration. */
export const LEXICAL_TARGETS: readonly Target[] = [table2Bm25Target, table1Bm25Target, table3Bm25Target, figure2aBm25Target];
