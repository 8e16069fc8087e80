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

/** ln sum exp(x) over xs, skipping index `skip` (-1: none); -Infinity when nothing is left. Sums in index order. */
function logSumExpSkip(xs: ArrayLike<number>, skip: number): number {
  let m = -Infinity;
  for (let i = 0; i < xs.length; i++) if (i !== skip && xs[i]! > m) m = xs[i]!;
  if (m === -Infinity) return -Infinity;
  let s = 0;
  for (let i = 0; i < xs.length; i++) if (i !== skip) s += Math.exp(xs[i]! - m);
  return m + Math.log(s);
}

/** ln sum exp(x) (x non-empty). */
export function logSumExp(xs: ArrayLike<number>): number {
  return logSumExpSkip(xs, -1);
}

/**
 * ln p_i and ln(1 - p_i) of the softmax over `scores`. The complement of the largest
 * probability is taken from the other scores' log-sum-exp (1 - p_max would cancel).
 */
export function softmaxLogs(scores: ArrayLike<number>): { logP: Float64Array; logNotP: Float64Array } {
  const n = scores.length;
  const lse = logSumExp(scores);
  const logP = new Float64Array(n);
  let top = 0;
  for (let i = 0; i < n; i++) {
    logP[i] = scores[i]! - lse;
    if (scores[i]! > scores[top]!) top = i;
  }
  const logNotP = new Float64Array(n);
  for (let i = 0; i < n; i++) logNotP[i] = i !== top ? Math.log1p(-Math.exp(logP[i]!)) : n === 1 ? -Infinity : logSumExpSkip(scores, i) - lse;
  return { logP, logNotP };
}

/** HasAns of every passage of one query, the typed core (search-dcsr calls it per query). */
export interface GroupScores {
  /** ln p_i of each hit (the softmax over all hits). */
  readonly logP: Float64Array;
  readonly hasAns: Float64Array;
  readonly logHasAns: Float64Array;
  /** Retrieved sentences per passage. */
  readonly count: Int32Array;
}

/**
 * HasAns per passage: hit i (score `scores[i]`) belongs to passage `group[i]` in [0, groups).
 * Each passage's sums run over its hits in hit order.
 */
export function hasAnsByGroup(scores: ArrayLike<number>, group: Int32Array, groups: number): GroupScores {
  const n = scores.length;
  const { logP, logNotP } = softmaxLogs(scores);
  const logNot = new Float64Array(groups);
  const max = new Float64Array(groups).fill(-Infinity);
  const count = new Int32Array(groups);
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    logNot[g]! += logNotP[i]!;
    if (logP[i]! > max[g]!) max[g] = logP[i]!;
    count[g]!++;
  }
  const sumExp = new Float64Array(groups);
  for (let i = 0; i < n; i++) {
    const g = group[i]!;
    if (max[g] !== -Infinity) sumExp[g]! += Math.exp(logP[i]! - max[g]!);
  }
  const hasAns = new Float64Array(groups);
  const logHasAns = new Float64Array(groups);
  for (let g = 0; g < groups; g++) {
    const logSum = max[g] === -Infinity ? -Infinity : max[g]! + Math.log(sumExp[g]!);
    // HasAns = 1 - exp(logNot); in logs: ln sum p_i + ln(HasAns / sum p_i), the ratio computed
    // where the p_i are representable (it is 1 to within 1e-300 where they are not).
    const h = Math.max(0, -Math.expm1(logNot[g]!));
    const sum = Math.exp(logSum);
    hasAns[g] = h;
    logHasAns[g] = logNot[g] === -Infinity ? 0 : sum > 0 && h > 0 ? logSum + Math.log(h / sum) : logSum;
  }
  return { logP, hasAns, logHasAns, count };
}

/** Passage groups best first by (-ln HasAns, passage id), at most k. */
export function topGroups(logHasAns: Float64Array, pidOf: (g: number) => string, k: number): Int32Array {
  const order = Int32Array.from({ length: logHasAns.length }, (_, g) => g);
  order.sort((a, b) => {
    const d = logHasAns[b]! - logHasAns[a]!;
    if (d !== 0) return d;
    const pa = pidOf(a);
    const pb = pidOf(b);
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  });
  return order.subarray(0, Math.min(k, order.length));
}

/** Passages ranked by HasAns over the hits (all M retrieved sentences of one query), best first, at most k. */
export function hasAnsRanking(hits: readonly SentenceHit[], k: number): PassageScore[] {
  if (hits.length === 0) return [];
  const groupOf = new Map<string, number>();
  const pids: string[] = [];
  const group = new Int32Array(hits.length);
  hits.forEach((h, i) => {
    let g = groupOf.get(h.pid);
    if (g === undefined) {
      groupOf.set(h.pid, (g = pids.length));
      pids.push(h.pid);
    }
    group[i] = g;
  });
  const s = hasAnsByGroup(hits.map((h) => h.score), group, pids.length);
  return Array.from(topGroups(s.logHasAns, (g) => pids[g]!, k), (g) => ({ pid: pids[g]!, hasAns: s.hasAns[g]!, logHasAns: s.logHasAns[g]!, sentences: s.count[g]! }));
}
