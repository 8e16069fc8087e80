/**
 * Lucene 8's BM25Similarity (8.7, as Pyserini/Anserini use it), reproduced in float32 arithmetic:
 *   idf    = (float) ln(1 + (docCount - df + 0.5) / (df + 0.5))          computed in double, then rounded
 *   weight = boost * idf                                                 float; boost = query-term count
 *   cache[norm] = 1f / (k1 * ((1 - b) + b * LENGTH_TABLE[norm] / avgdl))  float, 256 entries
 *   score  = weight - weight / (1 + freq * cache[norm])                  float
 * which equals weight * freq / (freq + k1 (1 - b + b dl/avgdl)), without the (k1 + 1) factor.
 * avgdl = (float) (sumTotalTermFreq / docCount), where docCount counts documents with at least
 * one indexed term (a document of stop words only counts neither in N nor in avgdl).
 * A query's score is the per-clause float scores summed in double, then rounded to float
 * (BooleanQuery's disjunction scorer).
 */
import { LENGTH_TABLE } from "./smallfloat.ts";

const f = Math.fround;

export interface Bm25Params {
  readonly k1: number;
  readonly b: number;
}

export function bm25Idf(docCount: number, df: number): number {
  return f(Math.log(1 + (docCount - df + 0.5) / (df + 0.5)));
}

export function averageLength(sumTotalTermFreq: number, docCount: number): number {
  return f(sumTotalTermFreq / docCount);
}

/** The 256-entry inverse-norm cache for one (k1, b, avgdl). */
export function normInverseCache(params: Bm25Params, avgdl: number): Float32Array {
  const k1 = f(params.k1);
  const b = f(params.b);
  const oneMinusB = f(1 - b);
  const cache = new Float32Array(256);
  for (let i = 0; i < 256; i++) {
    cache[i] = f(1 / f(k1 * f(oneMinusB + f(f(b * LENGTH_TABLE[i]!) / avgdl))));
  }
  return cache;
}

/** One term's contribution: weight = fround(boost * idf), normInverse = cache[normByte]. */
export function bm25TermScore(weight: number, freq: number, normInverse: number): number {
  return f(weight - f(weight / f(1 + f(freq * normInverse))));
}
