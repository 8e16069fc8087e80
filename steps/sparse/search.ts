/**
 * Top-k BM25 search over a Bm25Index, scoring exactly like Lucene 8 + Anserini:
 * the query is analysed, each distinct term becomes one SHOULD clause boosted by its count
 * (Anserini's BagOfWordsQueryGenerator), clause scores are float32 (./similarity.ts) summed in
 * double and rounded to float, and hits are ordered by (-score, passage id) — Anserini sorts by
 * score then by the `id` field (BREAK_SCORE_TIES_BY_DOCID), not by Lucene's internal doc number.
 */
import { analyze } from "./analyzer.ts";
import { docId, findTerm } from "./index.ts";
import type { Bm25Index } from "./index.ts";
import { averageLength, bm25Idf, normInverseCache } from "./similarity.ts";
import type { Bm25Params } from "./similarity.ts";

export interface SearchOptions extends Bm25Params {
  /** Hits per query (Pyserini's default is 1000; mining uses 100). */
  readonly k: number;
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

/** Reusable per-thread scratch space (accumulators sized to the index). */
export class Searcher {
  private readonly acc: Float64Array;
  private readonly touched: Uint8Array;
  private touchedList: Uint32Array;
  private readonly normCache: Float32Array;

  constructor(
    readonly index: Bm25Index,
    readonly params: Bm25Params,
  ) {
    this.acc = new Float64Array(index.numDocs);
    this.touched = new Uint8Array(index.numDocs);
    this.touchedList = new Uint32Array(1024);
    const avgdl = index.docCount > 0 ? averageLength(index.sumTotalTermFreq, index.docCount) : 1;
    this.normCache = normInverseCache(params, avgdl);
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

  search(queryText: string, k: number): Hit[] {
    const index = this.index;
    const acc = this.acc;
    const touched = this.touched;
    let nTouched = 0;
    const norms = index.norms;
    const cache = this.normCache;
    const postings = index.postings;
    for (const { term, boost } of this.clauses(queryText)) {
      const weight = Math.fround(boost * bm25Idf(index.docCount, index.df[term]!));
      // Postings decoded inline (hot loop): varint (docDelta << 1 | tf==1), then tf if not 1.
      let pos = index.postingOffsets[term]!;
      const end = index.postingOffsets[term + 1]!;
      let d = -1;
      let list = this.touchedList;
      while (pos < end) {
        let byte = postings[pos++]!;
        let v = byte & 127;
        for (let mul = 128; byte >= 128; mul *= 128) {
          byte = postings[pos++]!;
          v += (byte & 127) * mul;
        }
        let tf = 1;
        if ((v & 1) === 0) {
          byte = postings[pos++]!;
          tf = byte & 127;
          for (let mul = 128; byte >= 128; mul *= 128) {
            byte = postings[pos++]!;
            tf += (byte & 127) * mul;
          }
        }
        d += Math.floor(v / 2) + 1;
        const normInverse = cache[norms[d]!]!; // bm25TermScore (similarity.ts), inlined
        acc[d]! += Math.fround(weight - Math.fround(weight / Math.fround(1 + Math.fround(tf * normInverse))));
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

/** Bounded min-heap keeping the best k by (score desc, id rank asc). */
export class TopK {
  private readonly docs: Uint32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly idRank: Uint32Array,
  ) {
    this.docs = new Uint32Array(Math.max(0, k));
    this.scores = new Float64Array(Math.max(0, k));
  }

  /** true if (s1, d1) ranks below (s2, d2). */
  private worse(s1: number, d1: number, s2: number, d2: number): boolean {
    return s1 < s2 || (s1 === s2 && this.idRank[d1]! > this.idRank[d2]!);
  }

  offer(doc: number, score: number): void {
    if (this.k <= 0) return;
    const docs = this.docs;
    const scores = this.scores;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, doc, scores[p]!, docs[p]!)) break;
        docs[i] = docs[p]!;
        scores[i] = scores[p]!;
        i = p;
      }
      docs[i] = doc;
      scores[i] = score;
      return;
    }
    if (!this.worse(scores[0]!, docs[0]!, score, doc)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.worse(scores[r]!, docs[r]!, scores[l]!, docs[l]!) ? r : l;
      if (!this.worse(scores[c]!, docs[c]!, score, doc)) break;
      docs[i] = docs[c]!;
      scores[i] = scores[c]!;
      i = c;
    }
    docs[i] = doc;
    scores[i] = score;
  }

  sorted(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || this.idRank[a.doc]! - this.idRank[b.doc]!);
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
