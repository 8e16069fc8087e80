/**
 * The one-page diagnosis report: the same content as Markdown and as HTML, rendered from the
 * diagnosis JSON (pure). Numbers are percentages with one decimal; intervals in brackets.
 */
import { escapeMarkdownCell, escapeXml } from "../report/format.ts";
import { table } from "../eval/report-text.ts";
import { DIAGNOSIS_FORMS, FORM_LABELS, type GroupDiagnosis, type Interval } from "./core.ts";

export interface DiagnosisReport {
  readonly title: string;
  /** What was diagnosed: the files (name and sha256) or the dataset and split. */
  readonly source: readonly string[];
  readonly bm25: { readonly k1: number; readonly b: number };
  readonly cutoffs: readonly number[];
  readonly bootstrap: { readonly samples: number; readonly seed: number; readonly level: number };
  readonly counts: {
    readonly conversations: number;
    readonly turns: number;
    readonly withGold: number;
    readonly passages: number;
    /** Question types given in the file, computed from gold, or none, over the turns with gold. */
    readonly types: { readonly given: number; readonly computed: number; readonly none: number };
  };
  /** Gold passage ids absent from the collection (their turns can never be solved). */
  readonly missingGold: { readonly count: number; readonly examples: readonly string[] };
  readonly groups: readonly GroupDiagnosis[];
  /** The dense model that was diagnosed beside BM25 (its files' names and digests), if any. */
  readonly dense?: { readonly model: string };
}

const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : "n/a");
const ci = (i: Interval): string => `${pct(i.value)} [${pct(i.low)}, ${pct(i.high)}]`;

/** The cutoff the sentences speak of: the first k >= 10 (the paper's R@10), else the largest. */
export function headlineCutoff(cutoffs: readonly number[]): number {
  return cutoffs.find((k) => k >= 10) ?? Math.max(...cutoffs);
}

/** The report's sentences, shared by both renderings. */
export function headline(r: DiagnosisReport): string[] {
  const all = r.groups.find((g) => g.group === "all")!;
  const k = String(headlineCutoff(r.cutoffs));
  const lines = [
    `Without reading the current question, BM25 over the conversation history (X_t \\ q_t) keeps ${ci(all.keptShare[k]!)} of the recall@${k} that BM25 reaches with the whole input X_t, ` +
      `and ranks a gold passage in the top ${k} for ${ci(all.solvedWithoutQ[k]!)} of the ${all.n} turns with gold: that part of the dataset can be solved without the current question.`,
  ];
  if (all.dense !== undefined) {
    lines.push(
      `The dense model keeps ${ci(all.dense.keptShare[k]!)} of its own recall@${k} without the current question and solves ${ci(all.dense.solvedWithoutQ[k]!)} of the turns from the history alone.`,
    );
  }
  const first = r.groups.find((g) => g.group === "first");
  const sw = r.groups.find((g) => g.group === "switch");
  const ns = r.groups.find((g) => g.group === "no-switch");
  if (ns !== undefined && sw !== undefined) {
    const nsShare = ns.keptShare[k]!;
    const swShare = sw.keptShare[k]!;
    const others = `switch turns ${pct(swShare.value)} (N=${sw.n})${first !== undefined ? `, first turns ${pct(first.keptShare[k]!.value)} (N=${first.n})` : ""}`;
    // A conclusion only where the intervals say so: on a few turns they overlap and nothing is shown.
    lines.push(
      nsShare.low > swShare.high
        ? `The exposure sits in the no-switch turns (kept share ${pct(nsShare.value)}, N=${ns.n}; ${others}): a retriever that learns the shortcut fails where the topic changes.`
        : nsShare.high < swShare.low
          ? `No-switch turns (kept share ${pct(nsShare.value)}, N=${ns.n}) are less exposed than switch turns (${others}).`
          : `No-switch turns (kept share ${pct(nsShare.value)}, N=${ns.n}) and switch turns (${pct(swShare.value)}, N=${sw.n}) do not differ clearly at this size: their intervals overlap.`,
    );
  }
  return lines;
}

/** Below this many scored turns the intervals are too wide for the shares to be more than indications. */
export const FEW_TURNS = 100;

/** What the reader must know before the numbers: gold passages no form can find, and too few turns. */
export function cautions(r: DiagnosisReport): string[] {
  const out: string[] = [];
  if (r.missingGold.count > 0) out.push(`Warning: ${r.missingGold.count} gold passage id${r.missingGold.count === 1 ? " is" : "s are"} not in the collection (e.g. ${r.missingGold.examples.join(", ")}); their turns cannot be solved by any form.`);
  if (r.counts.withGold < FEW_TURNS) out.push(`Caution: only ${r.counts.withGold} scored turn${r.counts.withGold === 1 ? "" : "s"} (turns with gold): the intervals are wide, so read the shares below as indications, not findings.`);
  return out;
}

function tableRows(r: DiagnosisReport): { header: string[]; rows: string[][] } {
  const header = ["question type", "N"];
  const dense = r.dense !== undefined;
  for (const k of r.cutoffs) {
    header.push(...DIAGNOSIS_FORMS.map((f) => `R@${k} ${FORM_LABELS[f]}`), `kept share @${k} [CI]`, `solved without q_t @${k} [CI]`);
    if (dense) header.push(`dense R@${k} X_t \\ q_t`, `dense R@${k} X_t`, `dense kept share @${k} [CI]`);
  }
  const rows = r.groups.map((g) => {
    const row = [g.group, String(g.n)];
    for (const k of r.cutoffs) {
      row.push(...DIAGNOSIS_FORMS.map((f) => pct(g.means[f][`recall@${k}`]!)), ci(g.keptShare[String(k)]!), ci(g.solvedWithoutQ[String(k)]!));
      if (dense) row.push(pct(g.dense?.means.history_without_q[`recall@${k}`] ?? Number.NaN), pct(g.dense?.means.history[`recall@${k}`] ?? Number.NaN), g.dense === undefined ? "n/a" : ci(g.dense.keptShare[String(k)]!));
    }
    return row;
  });
  return { header, rows };
}

function facts(r: DiagnosisReport): string[] {
  const c = r.counts;
  const out = [
    `${c.conversations} conversations, ${c.turns} turns, ${c.withGold} with gold (scored); collection of ${c.passages} passages.`,
    `Question types of the scored turns: ${c.types.given} given, ${c.types.computed} computed from gold (turn 1 first; no-switch when the previous turn's gold shares a passage, else switch), ${c.types.none} without a type.`,
    `BM25: Lucene 8 exact, Anserini's English analyzer, k1=${r.bm25.k1}, b=${r.bm25.b}.`,
    ...(r.dense !== undefined ? [`Dense: ${r.dense.model}; exact inner-product search over the collection, the pipeline's query and passage tokenization.`] : []),
    `Intervals: ${Math.round(r.bootstrap.level * 100)}% percentile bootstrap over turns, ${r.bootstrap.samples} resamples, seed ${r.bootstrap.seed}.`,
  ];
  return out;
}

/** The report as plain text for a terminal: the cautions first, the table aligned (no Markdown escapes). */
export function renderText(r: DiagnosisReport): string {
  const { header, rows } = tableRows(r);
  return [
    r.title,
    "",
    ...cautions(r).flatMap((c) => [c, ""]),
    ...headline(r).flatMap((l) => [l, ""]),
    ...table([header, ...rows]),
    "",
    "Kept share = recall@k(X_t \\ q_t) / recall@k(X_t); solved without q_t = share of turns whose gold BM25(X_t \\ q_t) ranks in the top k.",
    ...facts(r),
    ...r.source.map((s) => `Source: ${s}`),
  ].join("\n") + "\n";
}

export function renderMarkdown(r: DiagnosisReport): string {
  const { header, rows } = tableRows(r);
  const md = [
    `# ${r.title}`,
    "",
    ...cautions(r).flatMap((c) => [`**${c}**`, ""]),
    ...headline(r).flatMap((l) => [l, ""]),
    `| ${header.map(escapeMarkdownCell).join(" | ")} |`,
    `|${header.map((_, i) => (i < 1 ? " --- " : " ---: ")).join("|")}|`,
    ...rows.map((row) => `| ${row.map(escapeMarkdownCell).join(" | ")} |`),
    "",
    "Kept share = recall@k(X_t \\ q_t) / recall@k(X_t) (above 100% when the history alone retrieves better than the whole input); solved without q_t = share of turns whose gold BM25(X_t \\ q_t) ranks in the top k.",
    "",
    ...facts(r).map((f) => `- ${f}`),
    "",
    "Source:",
    ...r.source.map((s) => `- ${s}`),
  ];
  return md.join("\n") + "\n";
}

export function renderHtml(r: DiagnosisReport): string {
  const { header, rows } = tableRows(r);
  const esc = escapeXml;
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${esc(r.title)}</title>`,
    "<style>body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;line-height:1.45}table{border-collapse:collapse;font-size:.9rem}th,td{border:1px solid #ccc;padding:.25rem .5rem}td{text-align:right}td:first-child,th:first-child{text-align:left}th{background:#f3f3f3}.lead{font-size:1.1rem}.warn{color:#a40000}</style>",
    "</head><body>",
    `<h1>${esc(r.title)}</h1>`,
    ...cautions(r).map((c) => `<p class="warn">${esc(c)}</p>`),
    ...headline(r).map((l, i) => `<p${i === 0 ? ' class="lead"' : ""}>${esc(l)}</p>`),
    "<table>",
    `<tr>${header.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>`,
    ...rows.map((row) => `<tr>${row.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`),
    "</table>",
    "<p>Kept share = recall@k(X<sub>t</sub> \\ q<sub>t</sub>) / recall@k(X<sub>t</sub>); solved without q<sub>t</sub> = share of turns whose gold BM25(X<sub>t</sub> \\ q<sub>t</sub>) ranks in the top k.</p>",
    `<ul>${facts(r).map((f) => `<li>${esc(f)}</li>`).join("")}</ul>`,
    `<p>Source:</p><ul>${r.source.map((s) => `<li>${esc(s)}</li>`).join("")}</ul>`,
    "</body></html>",
  ].join("\n") + "\n";
}
