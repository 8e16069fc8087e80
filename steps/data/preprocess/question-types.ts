/**
 * Question types, computed from the data, and their agreement with a released labels file.
 *
 * Where a dataset ships labels (the authors' QReCC `test_question_types.json`; the mini
 * benchmark's generator writes the same file), the labels are the breakdown and the
 * computed types are only reported beside them (preprocess param `labelsMode`, default
 * "override"; `agreement` below). Elsewhere the computed types are the breakdown.
 *
 * Gold-overlap rule (QReCC, and OR-QuAC without the domain filter). The paper (Appendix A)
 * thresholds a dot product between BM25 vectors of p+_{t-1} and p+_t and released no code;
 * what its labels file shows, and what this rule reproduces from ids alone:
 * - only turns whose `source_domain` is in `domains` get a type (the paper types the NQ and
 *   TREC sub-domains only); `domains: null` means every turn;
 * - turn 1 -> "first", with or without gold (the labels list every first turn);
 * - turn t > 1 whose previous turn t-1 (same split and conversation) exists and both have
 *   gold: compared by `rule`; "shared-passage" (the default): "no-switch" when the two gold
 *   sets share a passage id, otherwise "switch"; "shared-page": also "no-switch" when they
 *   share a page (QReCC id prefix before `_p<i>`), the rule cspipe used before;
 * - any other turn (previous turn missing or without gold, or this turn without gold) -> null,
 *   which is also where the labels file lists no type.
 * Why passage ids, measured on the released QReCC test files (naver-ai/cs-shortcut
 * `qrels.txt` + `test_question_types.json`, 2026-11-23): shared-passage agrees with the
 * labels on 959/959 first, 550/573 switch (96.0%) and 263/279 no-switch (94.3%) turns;
 * shared-page labels 172 of the 573 switch turns no-switch (70.0% switch agreement): pages
 * of the same site or article often hold passages the authors' threshold calls a switch.
 * The remaining disagreements need the passages' text (different pages on one topic that the
 * threshold calls no-switch; 4 turns whose single gold passage equals the previous one are
 * labelled switch), which ids cannot reproduce. `compareWithLabels` measures the agreement
 * on every run that has labels, and the preprocess step writes it to question-types.json.
 *
 * Topic rule (TopiOCQA): turn 1 -> "first"; otherwise "topic-switch" when the gold
 * article (`topic`) differs from the previous turn's, else "topic-continues"; null when
 * the previous turn is missing or either topic is unknown.
 */
import type { QreccQuestionType, QuestionType, TopiocqaQuestionType, TurnRow } from "../schemas.ts";
import type { QuestionTypeLabels } from "../formats/qrecc.ts";
import { qreccDocumentOf } from "../formats/qrecc.ts";

function previousTurns(rows: readonly TurnRow[]): (TurnRow | undefined)[] {
  const byKey = new Map<string, TurnRow>();
  for (const r of rows) byKey.set(`${r.split}\u0000${r.conversation_id}\u0000${r.turn}`, r);
  return rows.map((r) => byKey.get(`${r.split}\u0000${r.conversation_id}\u0000${r.turn - 1}`));
}

/** Whether two gold sets are on one topic ("no-switch"), by rule name. */
export const TYPE_RULES = {
  "shared-passage": (prev: readonly string[], cur: readonly string[]): boolean => {
    const ids = new Set(prev);
    return cur.some((id) => ids.has(id));
  },
  "shared-page": (prev: readonly string[], cur: readonly string[]): boolean => {
    const docs = new Set(prev.map(qreccDocumentOf));
    return cur.some((id) => docs.has(qreccDocumentOf(id)));
  },
} as const satisfies Record<string, (prev: readonly string[], cur: readonly string[]) => boolean>;

export type TypeRule = keyof typeof TYPE_RULES;
export const TYPE_RULE_NAMES = Object.keys(TYPE_RULES) as TypeRule[];

export interface GoldOverlapOptions {
  /** Domains that get types; null = all turns. */
  readonly domains: ReadonlySet<string> | null;
  /** How two turns' gold sets are compared (default "shared-passage"). */
  readonly rule?: TypeRule;
}

export function goldOverlapTypes(rows: readonly TurnRow[], options: GoldOverlapOptions): (QreccQuestionType | null)[] {
  const prev = previousTurns(rows);
  const sameTopic = TYPE_RULES[options.rule ?? "shared-passage"];
  return rows.map((row, i) => {
    if (options.domains !== null && (row.source_domain === null || !options.domains.has(row.source_domain))) return null;
    if (row.turn === 1) return "first";
    const p = prev[i];
    if (p === undefined || p.gold_passage_ids.length === 0 || row.gold_passage_ids.length === 0) return null;
    return sameTopic(p.gold_passage_ids, row.gold_passage_ids) ? "no-switch" : "switch";
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

/** Agreement of the computed types with the labels on one class. */
export interface ClassAgreement {
  /** Turns the labels put in the class. */
  readonly labelled: number;
  /** Turns the rule puts in the class. */
  readonly computed: number;
  /** Turns both put in the class. */
  readonly both: number;
  /** both / labelled: the share of the labelled class the rule reproduces (the per-class agreement); null when labelled is 0. */
  readonly agreement: number | null;
  /** both / computed; null when computed is 0. */
  readonly precision: number | null;
}

export interface LabelAgreement {
  /** confusion[label][computed] = count; "none" where a side has no type. */
  readonly confusion: Record<string, Record<string, number>>;
  /** Turns with a type on at least one side. */
  readonly total: number;
  readonly agree: number;
  /** agree / total (0 when total is 0). */
  readonly agreement: number;
  /** Per class of either side (sorted), "none" excluded. */
  readonly perClass: Record<string, ClassAgreement>;
  /** Every turn where the two differ, by qid in (conversation, turn) order of the rows. */
  readonly disagreements: { qid: string; label: string; computed: string }[];
}

/**
 * Confusion counts between a labels file and computed types, over the given rows that
 * have a type on either side (rows not in the labels count as "none").
 */
export function compareWithLabels(rows: readonly TurnRow[], computed: readonly (QuestionType | null)[], labels: QuestionTypeLabels): LabelAgreement {
  const confusion: Record<string, Record<string, number>> = {};
  const disagreements: { qid: string; label: string; computed: string }[] = [];
  let total = 0;
  let agree = 0;
  rows.forEach((row, i) => {
    const expected = labels.type.get(row.qid) ?? NONE;
    const got = computed[i] ?? NONE;
    if (expected === NONE && got === NONE) return;
    total++;
    if (expected === got) agree++;
    else disagreements.push({ qid: row.qid, label: expected, computed: got });
    const line = (confusion[expected] ??= {});
    line[got] = (line[got] ?? 0) + 1;
  });
  const classes = new Set<string>();
  for (const [l, line] of Object.entries(confusion)) {
    classes.add(l);
    for (const c of Object.keys(line)) classes.add(c);
  }
  classes.delete(NONE);
  const perClass: Record<string, ClassAgreement> = {};
  for (const c of [...classes].sort()) {
    const labelled = Object.values(confusion[c] ?? {}).reduce((a, b) => a + b, 0);
    const computedN = Object.values(confusion).reduce((a, line) => a + (line[c] ?? 0), 0);
    const both = confusion[c]?.[c] ?? 0;
    perClass[c] = { labelled, computed: computedN, both, agreement: labelled === 0 ? null : both / labelled, precision: computedN === 0 ? null : both / computedN };
  }
  return { confusion, total, agree, agreement: total === 0 ? 0 : agree / total, perClass, disagreements };
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

/**
 * Turn rows rebuilt from a QReCC qrels file and a labels file alone (qids are
 * `<conversation>_<turn>`; domains from the labels), enough to run `goldOverlapTypes` and
 * `compareWithLabels` without the turn files: what `scripts/question-type-agreement.ts` and
 * the agreement tests measure on. Qids that do not look like `<conv>_<turn>` are skipped.
 */
export function turnsFromQrels(gold: ReadonlyMap<string, readonly string[]>, labels: QuestionTypeLabels, split = "test"): TurnRow[] {
  const rows: TurnRow[] = [];
  for (const [qid, ids] of gold) {
    const m = /^(.+)_(\d+)$/.exec(qid);
    if (m === null) continue;
    rows.push({
      dataset: "qrecc", split, conversation_id: m[1]!, turn: Number(m[2]), qid, question: "", rewrite: null, answer: null, history: [],
      gold_passage_ids: [...ids], source_domain: labels.domain.get(qid) ?? null, question_type: null, topic: null, topic_section: null,
    });
  }
  return rows.sort((a, b) => (a.conversation_id === b.conversation_id ? a.turn - b.turn : a.conversation_id < b.conversation_id ? -1 : 1));
}
