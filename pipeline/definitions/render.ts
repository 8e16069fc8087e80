/**
 * Typed wiring of the report's render steps: tables and figures from evaluations'
 * `json:metrics` outputs, without casts (a ref of another kind is a type error).
 *
 * Seeds: wherever one evaluation goes, a list of evaluations (one per training seed) may go
 * instead. A table cell fed by several is their mean ± sample sd with the number of seeds,
 * and links to a page listing each seed's evaluation; a figure point is the mean with an
 * error bar. For example, to show DPR (IBN) over three seeds in Table 2:
 *
 *   sources.push({ input: "qrecc_dpr_ibn", metrics: [seed1, seed2, seed3], map: { row: "dpr-ibn", columns: qcols } });
 *
 * and in a figure, `inputs: { ibn: [seed1, seed2, seed3] }` with points `{ input: "ibn", metric }`
 * (or name the expanded inputs yourself: `{ inputs: ["ibn_s1", "ibn_s2"], metric }`).
 * A list of one evaluation renders exactly like a single one.
 */
import { use, type OutputRef } from "../engine/step.ts";
import { renderFigureStep as figureDef, renderTableStep as tableDef, type CellMapping } from "../../steps/report/steps.ts";
import type { TableSpec } from "../../steps/report/table.ts";
import type { FigureSpec } from "../../steps/report/figure.ts";
import { QUERY_FORMS, type QueryFormName } from "../../steps/encoding/format/query-forms.ts";
import type { TurnRow } from "../../steps/encoding/format/rows.ts";

export type Metrics = OutputRef<"json:metrics">;

/** One evaluation, or one per training seed. */
export type MetricsOrSeeds = Metrics | readonly Metrics[];

export interface CellSource {
  /** Input name (an identifier; seeds become `<input>_s1`, `<input>_s2`, ...). */
  readonly input: string;
  readonly metrics: MetricsOrSeeds;
  /** The row (or rows, e.g. one per question type) and columns this evaluation fills. */
  readonly map: CellMapping | readonly CellMapping[];
}

/** Input names of a source: itself for one evaluation, `<name>_s<i>` for seeds. */
export function seedInputs(name: string, metrics: MetricsOrSeeds): [string, Metrics][] {
  if (!Array.isArray(metrics)) return [[name, metrics as Metrics]];
  const list = metrics as readonly Metrics[];
  if (list.length === 0) throw new Error(`input '${name}': an empty list of evaluations`);
  return list.map((m, i) => [`${name}_s${i + 1}`, m]);
}

/** A render-table step named `name`, its cells filled from `sources`; the paper table beside it when given. */
export function renderTableStep(name: string, spec: TableSpec, paperTable: string | null, sources: readonly CellSource[]): OutputRef<"table"> {
  const inputs: Record<string, Metrics> = {};
  const cells: Record<string, CellMapping | readonly CellMapping[]> = {};
  for (const s of sources) {
    for (const [input, m] of seedInputs(s.input, s.metrics)) {
      if (input in inputs) throw new Error(`table '${spec.id}': input '${input}' is wired twice`);
      inputs[input] = m;
      cells[input] = s.map;
    }
  }
  return use(tableDef, { name, params: { spec, paperTable, cells }, inputs: { metrics: inputs } }).out.table;
}

/**
 * A render-figure step named `name`. Points name inputs of `inputs`; an input given a list
 * of evaluations (seeds) is expanded, and points naming it (`{input}`) plot their mean ± sd.
 */
export function renderFigureStep(name: string, spec: FigureSpec, inputs: Readonly<Record<string, MetricsOrSeeds>>): OutputRef<"figure"> {
  const wired: Record<string, Metrics> = {};
  const expanded = new Map<string, string[]>();
  for (const [n, m] of Object.entries(inputs)) {
    const list = seedInputs(n, m);
    for (const [input, ref] of list) wired[input] = ref;
    if (Array.isArray(m)) expanded.set(n, list.map(([input]) => input));
  }
  const series = spec.series.map((s) => ({
    ...s,
    points: s.points.map((p) => {
      if (p === null || !("metric" in p) || p.input === undefined || !expanded.has(p.input)) return p;
      const { input, ...rest } = p;
      return { ...rest, inputs: expanded.get(input)! };
    }),
  }));
  return use(figureDef, { name, params: { spec: { ...spec, series } }, inputs: { metrics: wired } }).out.figure;
}

/** A first turn: no history yet. */
const FIRST_TURN: TurnRow = { qid: "c_1", conversation_id: "c", turn: 1, question: "q", rewrite: "q", answer: "a", history: [], gold_passage_ids: [] };

/** Whether a query form has no text at all on a first turn (X_t \ {q_t}, a_{t-1}, Q_{t-1}): its number there is undefined. */
export function emptyOnFirstTurn(form: QueryFormName): boolean {
  return QUERY_FORMS[form].segments(FIRST_TURN).every((s) => s.trim() === "");
}

/**
 * The `noInput` mapping entry for an evaluation of `form` (undefined when the form has text on
 * every turn): its cells in the "first" question-type group render "-" with the reason.
 */
export function noInputOnFirstTurns(form: QueryFormName): CellMapping["noInput"] {
  return emptyOnFirstTurn(form) ? { groups: ["first"], reason: `${QUERY_FORMS[form].paper} is empty on a first turn (no history yet), so there is no query` } : undefined;
}
