/**
 * Question types, computed from the data (the authors released labels for QReCC test
 * only and no code that computes them).
 *
 * Gold-overlap rule (QReCC; OR-QuAC uses it without the domain filter):
 * - only turns whose `source_domain` is in `domains` get a type (the paper labels the NQ
 *   and TREC sub-domains only); `domains: null` means every turn;
 * - turn 1 -> "first";
 * - turn t > 1 whose previous turn t-1 (same conversation) exists and both have gold:
 *   "no-switch" when the two gold sets share a passage id or a document (the id's
 *   prefix before `_p<i>`, see `documentOf`), otherwise "switch";
 * - any other turn (previous turn missing or without gold, or this turn without gold) -> null.
 * The paper thresholds a BM25-vector dot product between p+_{t-1} and p+_t; set overlap
 * agrees with the released labels on ~95% (paper-notes). `compareWithLabels` measures it.
 *
 * Topic rule (TopiOCQA): turn 1 -> "first"; otherwise "topic-switch" when the gold
 * article (`topic`) differs from the previous turn's, else "topic-continues"; null when
 * the previous turn is missing or either topic is unknown.
 */
import type { QreccQuestionType, QuestionType, TopiocqaQuestionType, TurnRow } from "../schemas.ts";
import type { QuestionTypeLabels } from "../formats/qrecc.ts";

function previousTurns(rows: readonly TurnRow[]): (TurnRow | undefined)[] {
  const byKey = new Map<string, TurnRow>();
  for (const r of rows) byKey.set(`${r.split}\u0000${r.conversation_id}\u0000${r.turn}`, r);
  return rows.map((r) => byKey.get(`${r.split}\u0000${r.conversation_id}\u0000${r.turn - 1}`));
}

export interface GoldOverlapOptions {
  /** Domains that get types; null = all turns. */
  readonly domains: ReadonlySet<string> | null;
  /** Document of a passage id (identity = passage overlap only). */
  readonly documentOf: (passageId: string) => string;
}

export function goldOverlapTypes(rows: readonly TurnRow[], options: GoldOverlapOptions): (QreccQuestionType | null)[] {
  const prev = previousTurns(rows);
  return rows.map((row, i) => {
    if (options.domains !== null && (row.source_domain === null || !options.domains.has(row.source_domain))) return null;
    if (row.turn === 1) return "first";
    const p = prev[i];
    if (p === undefined || p.gold_passage_ids.length === 0 || row.gold_passage_ids.length === 0) return null;
    const prevIds = new Set(p.gold_passage_ids);
    const prevDocs = new Set(p.gold_passage_ids.map(options.documentOf));
    const shared = row.gold_passage_ids.some((id) => prevIds.has(id) || prevDocs.has(options.documentOf(id)));
    return shared ? "no-switch" : "switch";
  });
}

export function topicTypes(rows: readonly TurnRow[]): (TopiocqaQuestionType | null)[] {
  const prev = previousTurns(rows);
  return rows.map((row, i) => {
    if (row.turn === 1) return "first";
    const p = prev[i];
    if (p === undefined || p.topic === null || row.topic === null) return null;
    return p.topic === row.topic ? "topic-continues" : "topic-switch";
  });
}

export const NONE = "none";

export interface LabelAgreement {
  /** confusion[label][computed] = count; "none" where a side has no type. */
  readonly confusion: Record<string, Record<string, number>>;
  /** Turns with a type on at least one side. */
  readonly total: number;
  readonly agree: number;
  /** agree / total (0 when total is 0). */
  readonly agreement: number;
}

/**
 * Confusion counts between a labels file and computed types, over the given rows that
 * have a type on either side (rows not in the labels count as "none").
 */
export function compareWithLabels(rows: readonly TurnRow[], computed: readonly (QuestionType | null)[], labels: QuestionTypeLabels): LabelAgreement {
  const confusion: Record<string, Record<string, number>> = {};
  let total = 0;
  let agree = 0;
  rows.forEach((row, i) => {
    const expected = labels.type.get(row.qid) ?? NONE;
    const got = computed[i] ?? NONE;
    if (expected === NONE && got === NONE) return;
    total++;
    if (expected === got) agree++;
    const line = (confusion[expected] ??= {});
    line[got] = (line[got] ?? 0) + 1;
  });
  return { confusion, total, agree, agreement: total === 0 ? 0 : agree / total };
}

/**
 * Applies a labels file: "override" replaces the types with the labels (turns not listed
 * get null); either mode fills a missing `source_domain` from the labels. Returns how many
 * rows had a domain that disagrees with the labels file.
 */
export function applyLabels(rows: TurnRow[], labels: QuestionTypeLabels, mode: "override" | "compare"): { domainConflicts: number } {
  let domainConflicts = 0;
  for (const row of rows) {
    const d = labels.domain.get(row.qid);
    if (d !== undefined) {
      if (row.source_domain === null) row.source_domain = d;
      else if (row.source_domain !== d) domainConflicts++;
    }
    if (mode === "override") row.question_type = labels.type.get(row.qid) ?? null;
  }
  return { domainConflicts };
}
