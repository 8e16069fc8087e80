/**
 * Shared data types of the evaluation core. No I/O, no dataset knowledge.
 *
 * A run maps a query id to its retrieved hits; qrels map a query id to its judged
 * passages. A query present in the qrels with no judgement above 0 is a turn
 * *without gold* (QReCC writes it as `{"": 1}`; the readers turn that into an empty
 * judgement map so the qid is still known to exist).
 */

export interface Hit {
  readonly docid: string;
  readonly score: number;
  /** Rank as written in the source file (1-based). Informational only: evaluation re-ranks. */
  readonly rank?: number;
}

/** qid -> hits. Order of hits is the order they were read/produced. */
export type Run = Map<string, Hit[]>;

/** qid -> (docid -> relevance). Relevance > 0 (trec_eval's default rel_level 1) counts as relevant. */
export type Qrels = Map<string, Map<string, number>>;

/** Number of relevant (rel > 0) passages of one judgement map. */
export function countRelevant(judgements: ReadonlyMap<string, number> | undefined): number {
  if (judgements === undefined) return 0;
  let n = 0;
  for (const rel of judgements.values()) if (rel > 0) n++;
  return n;
}
