/**
 * Compares top-k hit lists of two BM25 systems (pure). A list is [qid, [id, score], ...]. Hits
 * scoring strictly above the k-th score must be the same set with the same float32 scores; at the
 * k-th score systems may break ties differently (Lucene by internal doc number, cspipe by id).
 */
export type HitList = [string, ...[string, number][]];

export interface Comparison {
  /** Queries whose lists are equal (ids and float32 scores, in order). */
  readonly identical: number;
  /** Queries whose hits above the k-th score agree. */
  readonly agreeAboveKth: number;
  readonly maxDiff: number;
  /** One line per disagreeing query. */
  readonly problems: string[];
}

export function compareHitLists(ours: readonly HitList[], theirs: readonly HitList[]): Comparison {
  let identical = 0;
  let agreeAboveKth = 0;
  let maxDiff = 0;
  const problems: string[] = [];
  const byQid = new Map(theirs.map((l) => [l[0], l.slice(1) as [string, number][]]));
  for (const list of ours) {
    const qid = list[0];
    const a = list.slice(1) as [string, number][];
    const b = byQid.get(qid);
    if (b === undefined) {
      problems.push(`${qid}: missing on the other side`);
      continue;
    }
    if (a.length !== b.length) {
      problems.push(`${qid}: ${a.length} vs ${b.length} hits`);
      continue;
    }
    if (a.every(([id, s], i) => id === b[i]![0] && Math.fround(s) === Math.fround(b[i]![1]))) identical++;
    const kth = a.length > 0 ? Math.fround(a[a.length - 1]![1]) : -Infinity;
    const above = (l: [string, number][]) => new Map(l.filter(([, s]) => Math.fround(s) > kth).map(([id, s]) => [id, Math.fround(s)]));
    const x = above(a);
    const y = above(b);
    let ok = x.size === y.size;
    for (const [id, s] of x) {
      const t = y.get(id);
      if (t === undefined) ok = false;
      else maxDiff = Math.max(maxDiff, Math.abs(s - t));
    }
    if (ok) agreeAboveKth++;
    else problems.push(`${qid}: hits above the k-th score differ`);
  }
  return { identical, agreeAboveKth, maxDiff, problems };
}
