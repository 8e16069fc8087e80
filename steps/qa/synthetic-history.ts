/**
 * A synthetic conversational history for standalone questions (pure core; the step is in
 * history-step.ts). The mini readers pre-train on mini-nq's standalone questions but answer
 * conversational ones, whose input is X_t = q_1 [SEP] a_1 [SEP] ... [SEP] q_t with q_1 pinned
 * first: a reader that only ever saw `[CLS] q [SEP]` learns that the question is what comes
 * first, and on X_t it answers q_1. Giving each pre-training question a history of other
 * questions about the same entity, with their answers, puts the question to answer last, as in
 * the conversational datasets, with earlier answers of the same entity in the same passages as
 * distractors.
 *
 * Per turn: its entity is the title of its first gold passage; the history length is drawn
 * uniformly from 0..maxTurns, and that many other turns of the same split and entity (fewer
 * when the entity has fewer) in a random order become its history. Every draw comes from a
 * stream of (seed, qid) alone, so a turn's history does not depend on the other turns' draws
 * or on the table's order. Turns without a gold passage or entity keep an empty history.
 */
import type { HistoryItem, TurnRow } from "../data/schemas.ts";
import { rngFor } from "../data/mini/rng.ts";

export interface SyntheticHistoryOptions {
  /** The longest history; lengths are uniform over 0..maxTurns. */
  readonly maxTurns: number;
  readonly seed: number;
}

export interface SyntheticHistoryCounts {
  turns: number;
  /** Turns given a non-empty history. */
  withHistory: number;
  /** History items over all turns. */
  items: number;
  /** Turns without a gold passage title to group by. */
  noEntity: number;
}

/** `turns` with their history replaced by a synthetic one (order kept; other fields unchanged). */
export function withSyntheticHistory(turns: readonly TurnRow[], titleOf: (pid: string) => string | null, o: SyntheticHistoryOptions, counts: SyntheticHistoryCounts): TurnRow[] {
  const entityOf = (t: TurnRow): string | null => (t.gold_passage_ids.length === 0 ? null : titleOf(t.gold_passage_ids[0]!));
  const groups = new Map<string, TurnRow[]>();
  for (const t of turns) {
    const e = entityOf(t);
    if (e === null) continue;
    const key = `${t.split}\u0000${e}`;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, [t]);
    else g.push(t);
  }
  // Members in qid order, so a draw names the same turns whatever the table's order.
  for (const g of groups.values()) g.sort((a, b) => (a.qid < b.qid ? -1 : a.qid > b.qid ? 1 : 0));
  return turns.map((t) => {
    counts.turns++;
    const e = entityOf(t);
    if (e === null) {
      counts.noEntity++;
      return { ...t, history: [] };
    }
    const others = groups.get(`${t.split}\u0000${e}`)!.filter((u) => u.qid !== t.qid);
    const history = drawHistory(t.qid, others, o);
    if (history.length > 0) counts.withHistory++;
    counts.items += history.length;
    return { ...t, history };
  });
}

/** Up to a uniform 0..maxTurns of `others` in a random order (a partial Fisher-Yates shuffle). */
function drawHistory(qid: string, others: readonly TurnRow[], o: SyntheticHistoryOptions): HistoryItem[] {
  const rng = rngFor(o.seed, "synthetic-history", qid);
  const n = Math.min(rng.int(o.maxTurns + 1), others.length);
  const pool = [...others];
  const out: HistoryItem[] = [];
  for (let i = 0; i < n; i++) {
    const j = i + rng.int(pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    out.push({ question: pool[i]!.question, answer: pool[i]!.answer ?? "" });
  }
  return out;
}
