/**
 * The paper's numbers that the per-dataset claims of the findings quote (findings.ts), read
 * from paper-numbers.json rather than typed by hand: for a dataset's claim metric (its
 * descriptor's `claimMetric`), the final table with a column of that metric on that dataset
 * beside the rows DPR (IBN) and DPR (IHN): Table 2 for QReCC and TopiOCQA, Table 3 for OR-QuAC.
 * BM25's row there is the one on the dataset's input form (`inputForm`: BM25(X_t, C) is
 * `bm25-history`, BM25(Q_t, C) `bm25-questions`). Pure over the parsed numbers.
 */
import type { DatasetDescriptor } from "../../steps/data/datasets/descriptor.ts";
import { QUERY_FORMS } from "../../steps/encoding/format/query-forms.ts";
import { formatPaperValue, loadPaperNumbers, type PaperColumn, type PaperNumbers, type PaperTable } from "../../steps/report/paper-numbers.ts";

/** What the texts read of a descriptor. */
export type ClaimDataset = Pick<DatasetDescriptor, "name" | "label" | "claimMetric" | "inputForm">;

const IBN_ROW = "dpr-ibn";
const IHN_ROW = "dpr-ihn";
/** A BM25 row of the retrieval tables by query form (history -> bm25-history, history_without_q -> bm25-history-without-q). */
const bm25Row = (form: string): string => `bm25-${form.replace(/_/g, "-")}`;

/**
 * The final table and column that hold a dataset's claim metric beside the DPR (IBN) and (IHN)
 * rows; undefined when the paper reports none (a dataset it does not cover). Two are an error:
 * the claims would not know which to quote.
 */
export function claimColumn(d: ClaimDataset, doc: PaperNumbers = loadPaperNumbers()): { readonly table: PaperTable; readonly column: PaperColumn } | undefined {
  const hasDpr = (t: PaperTable) => [IBN_ROW, IHN_ROW].every((id) => t.rows.some((r) => r.id === id));
  const found = doc.tables
    .filter((t) => t.source === "final" && hasDpr(t))
    .flatMap((table) => table.columns.filter((c) => c.dataset === d.name && c.metric === d.claimMetric).map((column) => ({ table, column })));
  if (found.length > 1) throw new Error(`paper-numbers.json: ${d.name} ${d.claimMetric} is in ${found.map((f) => `${f.table.id}.${f.column.id}`).join(" and ")}; the claims quote one`);
  return found[0];
}

/** A column's header without the dataset's label, which Table 2 prefixes to tell its two datasets apart ("QReCC R@10" -> "R@10"). */
function metricHeader(d: ClaimDataset, column: PaperColumn): string {
  return column.header.startsWith(`${d.label} `) ? column.header.slice(d.label.length + 1) : column.header;
}

/** The `paper` texts of a dataset's claims: hard negatives against in-batch negatives, and DPR (IHN) against BM25 on its input form. */
export interface ClaimPaperTexts {
  readonly hardNegatives: string;
  readonly denseVsBm25: string;
}

/** "QReCC R@10 59.7 -> 74.8 (+15.1)" and "QReCC R@10: DPR (IHN) 74.8 vs BM25(X_t) 65.1", as printed (the column's digits); "not in the paper" where a number is missing (the metric then by its name: "CoQA mrr: not in the paper"). */
export function claimPaperTexts(d: ClaimDataset, doc: PaperNumbers = loadPaperNumbers()): ClaimPaperTexts {
  const at = claimColumn(d, doc);
  const head = `${d.label} ${at === undefined ? d.claimMetric : metricHeader(d, at.column)}`;
  const value = (row: string): number | undefined => at?.table.rows.find((r) => r.id === row)?.values[at.column.id] ?? undefined;
  const print = (v: number): string => formatPaperValue(v, at!.column);
  const [ibn, ihn, bm25] = [value(IBN_ROW), value(IHN_ROW), value(bm25Row(d.inputForm))];
  const missing = `${head}: not in the paper`;
  return {
    hardNegatives: ibn === undefined || ihn === undefined ? missing : `${head} ${print(ibn)} -> ${print(ihn)} (${ihn >= ibn ? "+" : ""}${print(ihn - ibn)})`,
    denseVsBm25: ihn === undefined || bm25 === undefined ? missing : `${head}: DPR (IHN) ${print(ihn)} vs BM25(${QUERY_FORMS[d.inputForm].paper}) ${print(bm25)}`,
  };
}
