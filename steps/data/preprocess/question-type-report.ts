/**
 * The question-type artifact every conversational preprocessing step writes
 * (`question-types.json` and `question-types.md`): which types the turns table carries
 * (the released labels where a dataset ships them, else the computed rule), their counts
 * per split with and without gold, and the computed types beside the labels with their
 * agreement per class. Pure: rows in, a record and its Markdown out.
 */
import type { TurnRow } from "../schemas.ts";
import type { LabelAgreement } from "./question-types.ts";

export type TypeCounts = Record<string, Record<string, { turns: number; withGold: number }>>;

export interface QuestionTypeReport {
  readonly dataset: string;
  /** What turns.parquet's question_type holds: the labels file's types, or the computed ones. */
  readonly breakdown: "labels" | "computed";
  /** The computed rule (see question-types.ts). */
  readonly rule: string;
  /** The labels file's name and the split it describes; null without labels. */
  readonly labels: { readonly file: string; readonly split: string } | null;
  /** split -> type -> turns (and turns with a gold passage), of the breakdown and of the computed types. */
  readonly counts: { readonly breakdown: TypeCounts; readonly computed: TypeCounts };
  /** Computed vs labels on the labels' split; null without labels. */
  readonly agreement: LabelAgreement | null;
}

function countTypes(rows: readonly TurnRow[], typeOf: (r: TurnRow, i: number) => string | null): TypeCounts {
  const out: TypeCounts = {};
  rows.forEach((r, i) => {
    const t = typeOf(r, i);
    if (t === null) return;
    const c = ((out[r.split] ??= {})[t] ??= { turns: 0, withGold: 0 });
    c.turns++;
    if (r.gold_passage_ids.length > 0) c.withGold++;
  });
  return out;
}

export function questionTypeReport(x: {
  dataset: string;
  breakdown: "labels" | "computed";
  rule: string;
  labels: { file: string; split: string } | null;
  /** Final rows (question_type = the breakdown). */
  rows: readonly TurnRow[];
  /** Computed type of each row, aligned with `rows`. */
  computed: readonly (string | null)[];
  agreement: LabelAgreement | null;
}): QuestionTypeReport {
  return {
    dataset: x.dataset,
    breakdown: x.breakdown,
    rule: x.rule,
    labels: x.labels,
    counts: { breakdown: countTypes(x.rows, (r) => r.question_type), computed: countTypes(x.rows, (_, i) => x.computed[i] ?? null) },
    agreement: x.agreement,
  };
}

const pct = (v: number | null): string => (v === null ? "–" : `${(100 * v).toFixed(1)}%`);

/** The report as Markdown (the tables' question-type note links to it). */
export function renderQuestionTypeReport(r: QuestionTypeReport): string {
  const lines = [`# Question types: ${r.dataset}`, ""];
  if (r.labels !== null) {
    lines.push(`Breakdown: the released labels (\`${r.labels.file}\`, split ${r.labels.split}${r.breakdown === "labels" ? "" : "; NOT applied: labelsMode compare"}). Computed rule \`${r.rule}\` beside it.`, "");
    const split = r.labels.split;
    const labelled = r.counts.breakdown[split] ?? {};
    const computed = r.counts.computed[split] ?? {};
    const a = r.agreement;
    lines.push("| type | labels | labels with gold | computed | computed with gold | both | agreement (both / labels) | precision (both / computed) |", "|---|---:|---:|---:|---:|---:|---:|---:|");
    const classes = [...new Set([...Object.keys(labelled), ...Object.keys(computed), ...Object.keys(a?.perClass ?? {})])].sort();
    for (const c of classes) {
      const pc = a?.perClass[c];
      lines.push(`| ${c} | ${labelled[c]?.turns ?? 0} | ${labelled[c]?.withGold ?? 0} | ${computed[c]?.turns ?? 0} | ${computed[c]?.withGold ?? 0} | ${pc?.both ?? 0} | ${pct(pc?.agreement ?? null)} | ${pct(pc?.precision ?? null)} |`);
    }
    if (a !== null) lines.push("", `Overall: ${a.agree} of ${a.total} turns typed on either side agree (${pct(a.total === 0 ? null : a.agreement)}); ${a.disagreements.length} disagreements are listed in question-types.json.`);
  } else {
    lines.push(`Breakdown: computed by rule \`${r.rule}\` (the dataset ships no labels).`, "", "| split | type | turns | with gold |", "|---|---|---:|---:|");
    for (const split of Object.keys(r.counts.breakdown).sort()) {
      const byType = r.counts.breakdown[split]!;
      for (const t of Object.keys(byType).sort()) lines.push(`| ${split} | ${t} | ${byType[t]!.turns} | ${byType[t]!.withGold} |`);
    }
  }
  return lines.join("\n") + "\n";
}
