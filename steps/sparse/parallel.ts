/**
 * searchBatchParallel: BM25 top-k for a stream of queries on `threads` worker threads.
 * The index is read once into SharedArrayBuffers and shared by all workers (no copies), and so is
 * the pool of frequent terms' document bitsets (./term-bitsets.ts: each built once, by whichever
 * worker needs it first, within one budget for all threads); queries
 * are sent in batches, at most 2 batches in flight per worker, and results come back as one array
 * of run rows per batch, in input order, so output is deterministic whatever the thread count.
 */
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Bm25Index } from "./index.ts";
import { readIndex } from "./index-file.ts";
import type { RunRow, SearchOptions } from "./search.ts";
import type { BatchReply, BatchRequest, WorkerInit } from "./search-worker.ts";
import { bitsetPool } from "./term-bitsets.ts";

export interface ParallelOptions extends SearchOptions {
  /** Worker threads (default: available parallelism). */
  readonly threads?: number;
  /** Queries per message (default 64). */
  readonly batchSize?: number;
  readonly onProgress?: (done: number, total?: number) => void;
  readonly total?: number;
  /** Bytes of term bitsets for all threads together (default: defaultBitsetBudget; 0: none). */
  readonly bitsetBudgetBytes?: number;
  /** Aborting it stops the search at once (the workers are terminated; the generator throws its reason). */
  readonly signal?: AbortSignal;
}

export type QueryInput = { readonly qid: string; readonly text: string };

const WORKER_URL = new URL("./search-worker.ts", import.meta.url);

/**
 * Node 20 workers do not inherit tsx's module hooks, so a TypeScript worker is started through a
 * tiny bootstrap that registers tsx first (tsx is how this project runs; compiled .js runs directly).
 */
function startWorker(workerData: WorkerInit): Worker {
  if (!WORKER_URL.pathname.endsWith(".ts")) return new Worker(WORKER_URL, { workerData });
  const tsxApi = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/** Searches with an index file (path) or an already loaded index (SharedArrayBuffer-backed to avoid copies). */
export async function* searchBatchParallel(
  index: string | Bm25Index,
  queries: Iterable<QueryInput> | AsyncIterable<QueryInput>,
  opts: ParallelOptions,
): AsyncGenerator<RunRow[]> {
  const idx = typeof index === "string" ? readIndex(index, { shared: true }) : index;
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const init: WorkerInit = { index: idx, k1: opts.k1, b: opts.b, bitsets: bitsetPool(idx, opts.bitsetBudgetBytes, true) };
  const workers = Array.from({ length: threads }, () => startWorker(init));
  const results = new Map<number, RunRow[]>();
  const waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let failure: Error | undefined;
  const wake = (): void => {
    for (const w of waiting.splice(0)) {
      if (failure) w.reject(failure);
      else w.resolve();
    }
  };
  const inFlight = new Array<number>(threads).fill(0);
  workers.forEach((w, i) => {
    w.on("message", (m: BatchReply) => {
      inFlight[i]!--;
      if ("error" in m) failure ??= new Error(`BM25 search worker failed: ${m.error}`);
      else results.set(m.seq, m.rows);
      wake();
    });
    w.on("error", (e) => {
      failure ??= e;
      wake();
    });
  });
  const next = (): Promise<void> => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const onAbort = (): void => {
    failure ??= opts.signal!.reason instanceof Error ? opts.signal!.reason : new Error(`stopped (${String(opts.signal!.reason)})`);
    wake();
  };
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });

  let sent = 0;
  let emitted = 0;
  let queriesDone = 0;
  const batchSizes = new Map<number, number>();
  try {
    let batch: QueryInput[] = [];
    const send = async (): Promise<void> => {
      for (;;) {
        if (failure) throw failure;
        let best = 0;
        for (let i = 1; i < threads; i++) if (inFlight[i]! < inFlight[best]!) best = i;
        if (inFlight[best]! < 2) {
          inFlight[best]!++;
          batchSizes.set(sent, batch.length);
          workers[best]!.postMessage({ seq: sent++, k: opts.k, queries: batch } satisfies BatchRequest);
          batch = [];
          return;
        }
        await next();
      }
    };
    const drain = function* (): Generator<RunRow[]> {
      while (results.has(emitted)) {
        const rows = results.get(emitted)!;
        results.delete(emitted);
        queriesDone += batchSizes.get(emitted) ?? 0;
        batchSizes.delete(emitted);
        emitted++;
        opts.onProgress?.(queriesDone, opts.total);
        yield rows;
      }
    };
    for await (const q of queries) {
      if (failure) throw failure;
      batch.push({ qid: q.qid, text: q.text });
      if (batch.length >= batchSize) {
        await send();
        yield* drain();
      }
    }
    if (batch.length > 0) await send();
    while (emitted < sent) {
      yield* drain();
      if (emitted < sent) {
        if (failure) throw failure;
        await next();
      }
    }
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
