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

/**
 * The workers of one search and what is in flight: batches are numbered as sent, each goes to the
 * least busy worker (at most 2 in flight each), and replies are handed out in batch order. The
 * first failure (a worker's error, an abort) is kept and thrown to whoever waits next.
 */
class SearchPool {
  private readonly workers: Worker[];
  private readonly inFlight: number[];
  private readonly results = new Map<number, RunRow[]>();
  private readonly batchSizes = new Map<number, number>();
  private readonly waiting: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private failure: Error | undefined;
  private queriesDone = 0;
  sent = 0;
  emitted = 0;

  constructor(
    init: WorkerInit,
    private readonly opts: ParallelOptions,
  ) {
    const threads = Math.max(1, opts.threads ?? availableParallelism());
    this.workers = Array.from({ length: threads }, () => startWorker(init));
    this.inFlight = new Array<number>(threads).fill(0);
    this.workers.forEach((w, i) => {
      w.on("message", (m: BatchReply) => {
        this.inFlight[i]!--;
        if ("error" in m) this.failure ??= new Error(`BM25 search worker failed: ${m.error}`);
        else this.results.set(m.seq, m.rows);
        this.wake();
      });
      w.on("error", (e) => {
        this.failure ??= e;
        this.wake();
      });
    });
    if (opts.signal?.aborted) this.onAbort();
    else opts.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  private readonly onAbort = (): void => {
    const reason: unknown = this.opts.signal!.reason;
    this.failure ??= reason instanceof Error ? reason : new Error(`stopped (${String(reason)})`);
    this.wake();
  };

  private wake(): void {
    for (const w of this.waiting.splice(0)) {
      if (this.failure) w.reject(this.failure);
      else w.resolve();
    }
  }

  /** Throws the first failure, if any. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  /** Resolves at the next reply, error or abort (rejects once something failed). */
  next(): Promise<void> {
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Posts the batch to the least busy worker, waiting while every worker has 2 in flight. */
  async send(batch: QueryInput[]): Promise<void> {
    for (;;) {
      this.check();
      let best = 0;
      for (let i = 1; i < this.workers.length; i++) if (this.inFlight[i]! < this.inFlight[best]!) best = i;
      if (this.inFlight[best]! < 2) {
        this.inFlight[best]!++;
        this.batchSizes.set(this.sent, batch.length);
        this.workers[best]!.postMessage({ seq: this.sent++, k: this.opts.k, queries: batch } satisfies BatchRequest);
        return;
      }
      await this.next();
    }
  }

  /** The replies that are next in batch order, each counted in the progress. */
  *drain(): Generator<RunRow[]> {
    while (this.results.has(this.emitted)) {
      const rows = this.results.get(this.emitted)!;
      this.results.delete(this.emitted);
      this.queriesDone += this.batchSizes.get(this.emitted) ?? 0;
      this.batchSizes.delete(this.emitted);
      this.emitted++;
      this.opts.onProgress?.(this.queriesDone, this.opts.total);
      yield rows;
    }
  }

  async close(): Promise<void> {
    this.opts.signal?.removeEventListener("abort", this.onAbort);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}

/** Searches with an index file (path) or an already loaded index (SharedArrayBuffer-backed to avoid copies). */
export async function* searchBatchParallel(
  index: string | Bm25Index,
  queries: Iterable<QueryInput> | AsyncIterable<QueryInput>,
  opts: ParallelOptions,
): AsyncGenerator<RunRow[]> {
  const idx = typeof index === "string" ? readIndex(index, { shared: true }) : index;
  const batchSize = Math.max(1, opts.batchSize ?? 64);
  const pool = new SearchPool({ index: idx, k1: opts.k1, b: opts.b, bitsets: bitsetPool(idx, opts.bitsetBudgetBytes, true) }, opts);
  try {
    let batch: QueryInput[] = [];
    for await (const q of queries) {
      pool.check();
      batch.push({ qid: q.qid, text: q.text });
      if (batch.length >= batchSize) {
        await pool.send(batch);
        batch = [];
        yield* pool.drain();
      }
    }
    if (batch.length > 0) await pool.send(batch);
    while (pool.emitted < pool.sent) {
      yield* pool.drain();
      if (pool.emitted < pool.sent) {
        pool.check();
        await pool.next();
      }
    }
  } finally {
    await pool.close();
  }
}
