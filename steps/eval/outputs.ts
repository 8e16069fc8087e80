/**
 * What an evaluation writes, shared by the `evaluate-run` step and the `evaluate`
 * command: the breakdown group order (the paper's column order) and per-query metrics
 * as Parquet.
 */
import * as arrow from "apache-arrow";
import { writeParquetFile } from "../lib/parquet.ts";
import type { PerQueryRow } from "./evaluate.ts";

/** Question-type group order (QReCC, then TopiOCQA), and source-domain order. */
export const QUESTION_TYPE_ORDER: readonly string[] = ["first", "switch", "no-switch", "topic-continues", "topic-switch"];
export const DOMAIN_ORDER: readonly string[] = ["quac", "nq", "trec"];

/** One row per query: qid, n_gold, n_retrieved and one float column per metric (sorted by name). */
export async function writePerQuery(path: string, rows: readonly PerQueryRow[]): Promise<void> {
  const names = Object.keys(rows[0]?.metrics ?? {}).sort();
  const schema = new arrow.Schema([
    new arrow.Field("qid", new arrow.Utf8(), false),
    new arrow.Field("n_gold", new arrow.Int32(), false),
    new arrow.Field("n_retrieved", new arrow.Int32(), false),
    ...names.map((n) => new arrow.Field(n, new arrow.Float64(), false)),
  ]);
  await writeParquetFile(
    path,
    schema,
    rows.map((r) => ({ qid: r.qid, n_gold: r.nGold, n_retrieved: r.nRetrieved, ...r.metrics })),
  );
}
