/**
 * Worker thread for searchBatchParallel: receives the index (SharedArrayBuffer-backed, so not
 * copied) once in workerData, then batches of queries; replies with run rows per batch.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Bm25Index } from "./index.ts";
import { Searcher } from "./search.ts";
import type { RunRow } from "./search.ts";
import type { BitsetPool } from "./term-bitsets.ts";

export interface WorkerInit {
  readonly index: Bm25Index;
  readonly k1: number;
  readonly b: number;
  /** Shared by all the workers of a search (SharedArrayBuffers). */
  readonly bitsets: BitsetPool;
}
export interface BatchRequest {
  readonly seq: number;
  readonly k: number;
  readonly queries: readonly { readonly qid: string; readonly text: string }[];
}
export type BatchReply = { readonly seq: number; readonly rows: RunRow[] } | { readonly seq: number; readonly error: string };

const init = workerData as WorkerInit;
const searcher = new Searcher(init.index, { k1: init.k1, b: init.b }, { bitsetPool: init.bitsets });
parentPort?.on("message", (req: BatchRequest) => {
  try {
    const rows: RunRow[] = [];
    for (const q of req.queries) {
      searcher.search(q.text, req.k).forEach((h, i) => rows.push({ qid: q.qid, pid: h.pid, rank: i + 1, score: h.score }));
    }
    parentPort?.postMessage({ seq: req.seq, rows } satisfies BatchReply);
  } catch (e) {
    parentPort?.postMessage({ seq: req.seq, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies BatchReply);
  }
});
