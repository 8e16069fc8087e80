/** Runs as Parquet (`qid, pid, rank, score`, sorted by qid then rank) and back into the evaluation core's `Run`. */
import * as arrow from "apache-arrow";
import { readParquetRows, writeParquetFile } from "../lib/parquet.ts";
import { once } from "../lib/once.ts";
import type { Run } from "./types.ts";

export const runSchema = once(() => new arrow.Schema([
  new arrow.Field("qid", new arrow.Utf8(), false),
  new arrow.Field("pid", new arrow.Utf8(), false),
  new arrow.Field("rank", new arrow.Int32(), false),
  new arrow.Field("score", new arrow.Float64(), false),
]));

export interface RunRow {
  readonly qid: string;
  readonly pid: string;
  readonly rank: number;
  readonly score: number;
}

export async function writeRunParquet(path: string, rows: Iterable<RunRow> | AsyncIterable<RunRow>): Promise<void> {
  await writeParquetFile(path, runSchema(), rows);
}

export async function readRunParquet(path: string): Promise<Run> {
  const run: Run = new Map();
  for await (const r of readParquetRows<RunRow>(path)) {
    let hits = run.get(r.qid);
    if (!hits) run.set(r.qid, (hits = []));
    hits.push({ docid: r.pid, score: r.score, rank: r.rank });
  }
  return run;
}
