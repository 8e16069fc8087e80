/**
 * Top-k BM25 search over a Bm25Index, scoring exactly like Lucene 8 + Anserini:
 * the query is analysed, each distinct term becomes one SHOULD clause boosted by its count
 * (Anserini's BagOfWordsQueryGenerator), clause scores are float32 (./similarity.ts) summed in
 * double and rounded to float, and hits are ordered by (-score, passage id) — Anserini sorts by
 * score then by the `id` field (BREAK_SCORE_TIES_BY_DOCID), not by Lucene's internal doc number.
 *
 * `Searcher.search` prunes with block-max MaxScore (./block-max.ts) and returns exactly what
 * `searchExhaustive` (every posting of every query term scored, term at a time) returns: the same
 * documents, the same float32 scores, the same order.
 */
import { analyze } from "./analyzer.ts";
import { docId, findTerm } from "./index.ts";
import type { Bm25Index } from "./index.ts";
import { averageLength, bm25Idf, normInverseCache } from "./similarity.ts";
import type { Bm25Params } from "./similarity.ts";
import { BlockMaxScorer } from "./block-max.ts";
import type { PruningStats } from "./block-max.ts";
import { normCacheIsMonotone } from "./blocks.ts";
import type { BitsetPool } from "./term-bitsets.ts";
import { TopK } from "./topk.ts";
import { BlockReader, MAX_BLOCK_SIZE, postingsView } from "./postings.ts";

export { TopK } from "./topk.ts";

export interface SearchOptions extends Bm25Params {
  /** Hits per query (Pyserini's default is 1000; mining uses 100). */
  readonly k: number;
}

export interface SearcherOptions {
  /**
   * Bytes of document bitsets of frequent terms (./term-bitsets.ts) this searcher may build: they
   * answer most lookups of the pruned search without the postings. 0 turns them off; the hits are
   * the same either way. Default: defaultBitsetBudget (a quarter of the postings, at least 64 MiB).
   */
  readonly bitsetBudgetBytes?: number;
  /** A pool of bitsets shared with other searchers of the same index (other threads); overrides bitsetBudgetBytes. */
  readonly bitsetPool?: BitsetPool;
}

export interface Hit {
  readonly pid: string;
  readonly score: number;
}

export interface RunRow {
  readonly qid: string;
  readonly pid: string;
  readonly rank: number;
  readonly score: number;
}

/** Reusable per-thread scratch space (exhaustive accumulators are allocated on first use). */
export class Searcher {
  private acc: Float64Array | undefined;
  private touched: Uint8Array | undefined;
  private touchedList = new Uint32Array(1024);
  private readonly normCache: Float32Array;
  private readonly pruner: BlockMaxScorer | undefined;
  private readonly reader = new BlockReader();
  private view: DataView | undefined;
  private readonly docs = new Int32Array(MAX_BLOCK_SIZE);
  private readonly tfs = new Int32Array(MAX_BLOCK_SIZE);

  constructor(
    readonly index: Bm25Index,
    readonly params: Bm25Params,
    options: SearcherOptions = {},
  ) {
    const avgdl = index.docCount > 0 ? averageLength(index.sumTotalTermFreq, index.docCount) : 1;
    this.normCache = normInverseCache(params, avgdl);
    // The block bounds assume scores fall with the norm byte (any k1 > 0, 0 <= b <= 1); else score everything.
    this.pruner = normCacheIsMonotone(this.normCache) ? new BlockMaxScorer(index, this.normCache, options.bitsetPool ?? options.bitsetBudgetBytes) : undefined;
  }

  /** Whether `search` prunes (false only for parameters where the block bounds do not hold). */
  get prunes(): boolean {
    return this.pruner !== undefined;
  }

  /** Pruning counters, cumulative over this searcher's queries (undefined when it does not prune). */
  get stats(): Readonly<PruningStats> | undefined {
    return this.pruner?.stats;
  }

  /** Analysed query -> (term index, boost) clauses, terms in sorted order. */
  clauses(queryText: string): { term: number; boost: number }[] {
    const counts = new Map<string, number>();
    for (const t of analyze(queryText)) counts.set(t, (counts.get(t) ?? 0) + 1);
    const out: { term: number; boost: number }[] = [];
    for (const [t, c] of counts) {
      const ti = findTerm(this.index, t);
      if (ti >= 0) out.push({ term: ti, boost: c });
    }
    return out.sort((a, b) => a.term - b.term);
  }

  /** Top k by block-max MaxScore: exactly `searchExhaustive`'s hits. */
  search(queryText: string, k: number): Hit[] {
    if (this.pruner === undefined) return this.searchExhaustive(queryText, k);
    const index = this.index;
    const heap = new TopK(k, index.idRank);
    if (k > 0) {
      const clauses = this.clauses(queryText).map(({ term, boost }) => ({ term, weight: this.weight(term, boost) }));
      if (!this.pruner.run(clauses, heap)) return this.exhaustive(clauses, k);
    }
    return heap.sorted().map(({ doc, score }) => ({ pid: docId(index, doc), score }));
  }

  private weight(term: number, boost: number): number {
    return Math.fround(boost * bm25Idf(this.index.docCount, this.index.df[term]!));
  }

  /** Top k with every posting of every query term scored (term at a time): the reference for `search`. */
  searchExhaustive(queryText: string, k: number): Hit[] {
    return this.exhaustive(
      this.clauses(queryText).map(({ term, boost }) => ({ term, weight: this.weight(term, boost) })),
      k,
    );
  }

  /** Exhaustive scoring of clauses in term order, clause scores summed in that order. */
  private exhaustive(clauses: readonly { term: number; weight: number }[], k: number): Hit[] {
    const index = this.index;
    const acc = (this.acc ??= new Float64Array(index.numDocs));
    const touched = (this.touched ??= new Uint8Array(index.numDocs));
    let nTouched = 0;
    const norms = index.norms;
    const cache = this.normCache;
    const postings = index.postings;
    const view = (this.view ??= postingsView(postings));
    for (const { term, weight } of clauses) {
      const r = this.reader;
      const docs = this.docs;
      const tfs = this.tfs;
      let list = this.touchedList;
      const first = index.termBlockOffsets[term]!;
      const last = index.termBlockOffsets[term + 1]!;
      for (let b = first; b < last; b++) {
        const n = r.open(postings, index.blockStart[b]!, b === first ? -1 : index.blockLastDoc[b - 1]!).decode(view, docs, tfs);
        for (let j = 0; j < n; j++) {
          const d = docs[j]!;
          const normInverse = cache[norms[d]!]!; // bm25TermScore (similarity.ts), inlined
          acc[d]! += Math.fround(weight - Math.fround(weight / Math.fround(1 + Math.fround(tfs[j]! * normInverse))));
          if (touched[d] === 0) {
            touched[d] = 1;
            if (nTouched === list.length) {
              const bigger = new Uint32Array(list.length * 2);
              bigger.set(list);
              list = this.touchedList = bigger;
            }
            list[nTouched++] = d;
          }
        }
      }
    }
    const heap = new TopK(k, index.idRank);
    const list = this.touchedList;
    for (let i = 0; i < nTouched; i++) {
      const d = list[i]!;
      heap.offer(d, Math.fround(acc[d]!));
      acc[d] = 0;
      touched[d] = 0;
    }
    return heap.sorted().map(({ doc, score }) => ({ pid: docId(index, doc), score }));
  }
}

/** One query, top k. Allocates a Searcher; use `Searcher` directly for many queries. */
export function search(index: Bm25Index, queryText: string, opts: SearchOptions): Hit[] {
  return new Searcher(index, opts).search(queryText, opts.k);
}

/** Many queries in one thread, as run rows (rank 1-based). */
export function searchBatch(
  index: Bm25Index,
  queries: Iterable<{ readonly qid: string; readonly text: string }>,
  opts: SearchOptions & { readonly onProgress?: (done: number, total?: number) => void },
): RunRow[] {
  const s = new Searcher(index, opts);
  const rows: RunRow[] = [];
  let done = 0;
  for (const q of queries) {
    s.search(q.text, opts.k).forEach((h, i) => rows.push({ qid: q.qid, pid: h.pid, rank: i + 1, score: h.score }));
    opts.onProgress?.(++done);
  }
  return rows;
}
