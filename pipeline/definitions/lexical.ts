/**
 * The paper's lexical analysis as targets: BM25 over q_t, a_{t-1}, X_t \ {q_t} and X_t on
 * QReCC (test) and TopiOCQA (dev) — Table 2's BM25 block and Figure 2(a) — on the mini
 * benchmark.
 */
import { use, type OutputRef } from "../engine/step.ts";
import type { DataSource, Target } from "../engine/targets.ts";
import { buildBm25Index, searchBm25 } from "../../steps/sparse/steps.ts";
import { BM25_PRESETS } from "../../steps/sparse/similarity.ts";
import type { QueryFormName } from "../../steps/encoding/format/query-forms.ts";
import { evaluateRunStep } from "../../steps/eval/steps.ts";
import { renderTableDef } from "../../steps/report/steps.ts";
import type { TableSpec } from "../../steps/report/table.ts";
import { datasetTables } from "./datasets.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";

/** Evaluation split and metrics per dataset, as the paper reports them. */
export const EVAL_SETUP: Readonly<Record<DatasetName, { split: string; metrics: string[] }>> = {
  qrecc: { split: "test", metrics: ["mrr", "recall@10", "recall@100"] },
  topiocqa: { split: "dev", metrics: ["mrr", "recall@5", "recall@20", "recall@100"] },
  orquac: { split: "test", metrics: ["mrr", "recall@5"] },
};


export function bm25Metrics(dataset: DatasetName, form: QueryFormName, data: DataSource = "mini"): OutputRef<"json:metrics"> {
  const tables = datasetTables(dataset, data);
  const tag = `${data}-${dataset}`;
  const index = use(buildBm25Index, { name: `build-bm25-index.${tag}`, params: {}, inputs: { passages: tables.passages } });
  const { split, metrics } = EVAL_SETUP[dataset];
  const run = use(searchBm25, {
    name: `search-bm25.${tag}.${form}`,
    params: { form, split, k: 100, ...BM25_PRESETS[dataset] },
    inputs: { index: index.out.index, turns: tables.turns },
  });
  const ev = use(evaluateRunStep, {
    name: `evaluate.bm25.${tag}.${form}`,
    params: { split, metrics },
    inputs: { run: run.out.run, turns: tables.turns },
  });
  return ev.out.metrics;
}

const TABLE2_ROWS: readonly { form: QueryFormName; row: string; label: string }[] = [
  { form: "q_t", row: "bm25-q", label: "BM25(q_t, C)" },
  { form: "a_prev", row: "bm25-prev-answer", label: "BM25(a_{t-1}, C)" },
  { form: "history_without_q", row: "bm25-history-without-q", label: "BM25(X_t \\ {q_t}, C)" },
  { form: "history", row: "bm25-history", label: "BM25(X_t, C)" },
];

const pct = { kind: "percent", digits: 1 } as const;
export const TABLE2_BM25_SPEC: TableSpec = {
  id: "table2-bm25",
  title: "Table 2 (BM25 block): QReCC test and TopiOCQA dev, mini benchmark",
  caption: "BM25 over the current question, the previous answer, the history without the current question, and the whole input.",
  columns: [
    { id: "qrecc-mrr", header: "QReCC MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "qrecc-mrr" },
    { id: "qrecc-r10", header: "QReCC R@10", metric: "recall@10", format: pct, paperColumn: "qrecc-r10" },
    { id: "qrecc-r100", header: "QReCC R@100", metric: "recall@100", format: pct, paperColumn: "qrecc-r100" },
    { id: "topiocqa-r5", header: "TopiOCQA R@5", metric: "recall@5", format: pct, paperColumn: "topiocqa-r5" },
    { id: "topiocqa-r20", header: "TopiOCQA R@20", metric: "recall@20", format: pct, paperColumn: "topiocqa-r20" },
    { id: "topiocqa-r100", header: "TopiOCQA R@100", metric: "recall@100", format: pct, paperColumn: "topiocqa-r100" },
  ],
  rows: TABLE2_ROWS.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })),
};

export const table2Bm25Target: Target = {
  name: "table2-bm25",
  description: "Table 2's BM25 block (q_t, a_{t-1}, X_t \\ q_t, X_t) on mini QReCC and TopiOCQA, with the paper's numbers",
  steps(ctx) {
    const inputs: Record<string, OutputRef<"json:metrics">> = {};
    const cells: Record<string, { row: string; columns: string[] }> = {};
    for (const r of TABLE2_ROWS) {
      inputs[`qrecc_${r.form}`] = bm25Metrics("qrecc", r.form, ctx.data);
      cells[`qrecc_${r.form}`] = { row: r.row, columns: ["qrecc-mrr", "qrecc-r10", "qrecc-r100"] };
      inputs[`topiocqa_${r.form}`] = bm25Metrics("topiocqa", r.form, ctx.data);
      cells[`topiocqa_${r.form}`] = { row: r.row, columns: ["topiocqa-r5", "topiocqa-r20", "topiocqa-r100"] };
    }
    const def = renderTableDef(Object.keys(inputs));
    return [use(def, { name: "render-table2-bm25", params: { spec: { ...TABLE2_BM25_SPEC, columns: [...TABLE2_BM25_SPEC.columns], rows: [...TABLE2_BM25_SPEC.rows] }, paperTable: "final-table2", cells }, inputs: inputs as never })];
  },
};
