/**
 * Hard negatives from a run (pure): for each query, the top-k retrieved passages in rank
 * order, optionally without the query's gold passages. The authors' released code keeps
 * the gold passage in the list; cspipe excludes it by default (`excludeGold`).
 */
import type { RunRow } from "../eval/run-table.ts";

export interface NegativeList {
  readonly qid: string;
  readonly pids: string[];
  readonly scores: number[];
}

export interface MineOptions {
  readonly k: number;
  readonly excludeGold: boolean;
}

/** Rows of one run grouped by qid (ranked by rank, then pid), cut to k after the gold filter. */
export function mineNegatives(run: Iterable<RunRow>, goldOf: ReadonlyMap<string, readonly string[]>, options: MineOptions): { lists: NegativeList[]; goldDropped: number } {
  const byQuery = new Map<string, RunRow[]>();
  for (const r of run) {
    let rows = byQuery.get(r.qid);
    if (rows === undefined) byQuery.set(r.qid, (rows = []));
    rows.push(r);
  }
  let goldDropped = 0;
  const lists: NegativeList[] = [];
  for (const qid of [...byQuery.keys()].sort()) {
    const gold = new Set(goldOf.get(qid) ?? []);
    const rows = byQuery.get(qid)!.sort((a, b) => a.rank - b.rank || (a.pid < b.pid ? -1 : a.pid > b.pid ? 1 : 0));
    const pids: string[] = [];
    const scores: number[] = [];
    for (const r of rows) {
      if (pids.length >= options.k) break;
      if (options.excludeGold && gold.has(r.pid)) {
        goldDropped++;
        continue;
      }
      pids.push(r.pid);
      scores.push(r.score);
    }
    lists.push({ qid, pids, scores });
  }
  return { lists, goldDropped };
}
