/**
 * DCSR's passage ranking from retrieved sentences (pure): a softmax over the scores of the
 * query's top-M sentences gives each sentence a probability p_i of holding the answer, and a
 * passage P is ranked by HasAns(P) = 1 - prod_{i in P} (1 - p_i) over its retrieved
 * sentences (Wu et al. 2022, Eq. 2); sentences not retrieved count as p = 0.
 *
 * Numerics: everything is computed from log-sum-exps of the scores, so nothing underflows.
 * The value written as a passage's score is ln HasAns(P): the same order as HasAns, but
 * float32 (what trec_eval keeps) still separates passages whose HasAns is below 1e-38 or
 * above 1 - 1e-7, where HasAns itself would tie. Ties are broken by passage id ascending.
 */

export interface SentenceHit {
  readonly pid: string;
  /** The sentence's marker slot in its passage (its index in the sentences table). */
  readonly slot: number;
  readonly score: number;
}

export interface PassageScore {
  readonly pid: string;
  /** HasAns(P) in [0, 1]. */
  readonly hasAns: number;
  /** ln HasAns(P): the passage's score in runs. */
  readonly logHasAns: number;
  /** Retrieved sentences of the passage. */
  readonly sentences: number;
}

/** ln sum exp(x) (x non-empty). */
export function logSumExp(xs: readonly number[]): number {
  let m = -Infinity;
  for (const x of xs) if (x > m) m = x;
  if (m === -Infinity) return -Infinity;
  let s = 0;
  for (const x of xs) s += Math.exp(x - m);
  return m + Math.log(s);
}

/**
 * ln p_i and ln(1 - p_i) of the softmax over `scores`. The complement of the largest
 * probability is taken from the other scores' log-sum-exp (1 - p_max would cancel).
 */
export function softmaxLogs(scores: readonly number[]): { logP: number[]; logNotP: number[] } {
  const lse = logSumExp(scores);
  const logP = scores.map((s) => s - lse);
  let top = 0;
  scores.forEach((s, i) => {
    if (s > scores[top]!) top = i;
  });
  const logNotP = logP.map((lp, i) => {
    if (i !== top) return Math.log1p(-Math.exp(lp));
    const others = scores.filter((_, j) => j !== i);
    return others.length === 0 ? -Infinity : logSumExp(others) - lse;
  });
  return { logP, logNotP };
}

/** Passages ranked by HasAns over the hits (all M retrieved sentences of one query), best first, at most k. */
export function hasAnsRanking(hits: readonly SentenceHit[], k: number): PassageScore[] {
  if (hits.length === 0) return [];
  const { logP, logNotP } = softmaxLogs(hits.map((h) => h.score));
  const byPassage = new Map<string, number[]>();
  hits.forEach((h, i) => {
    let list = byPassage.get(h.pid);
    if (list === undefined) byPassage.set(h.pid, (list = []));
    list.push(i);
  });
  const out: PassageScore[] = [];
  for (const [pid, idx] of byPassage) {
    const logNot = idx.reduce((a, i) => a + logNotP[i]!, 0);
    const logSum = logSumExp(idx.map((i) => logP[i]!));
    // HasAns = 1 - exp(logNot); in logs: ln sum p_i + ln(HasAns / sum p_i), the ratio computed
    // where the p_i are representable (it is 1 to within 1e-300 where they are not).
    const hasAns = Math.max(0, -Math.expm1(logNot));
    const sum = Math.exp(logSum);
    const logHasAns = logNot === -Infinity ? 0 : sum > 0 && hasAns > 0 ? logSum + Math.log(hasAns / sum) : logSum;
    out.push({ pid, hasAns, logHasAns, sentences: idx.length });
  }
  out.sort((a, b) => b.logHasAns - a.logHasAns || (a.pid < b.pid ? -1 : a.pid > b.pid ? 1 : 0));
  return out.slice(0, k);
}
