/**
 * The paper's dense tables and figures on top of the dense models (models.ts) and the
 * lexical baselines (lexical.ts): Tables 1, 2 (full), 3, 4, 6, Figures 2(b), 2(c), 3, 4,
 * and the gold-in-negatives ablation the authors' released code invites.
 */
import type { OutputRef } from "../../engine/step.ts";
import type { TargetContext } from "../../engine/targets.ts";
import type { TableColumnSpec, TableSpec } from "../../../steps/report/table.ts";
import type { FigureSpec } from "../../../steps/report/figure.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import type { QueryFormName } from "../../../steps/encoding/format/query-forms.ts";
import { bm25Metrics, DATA_LABEL, table1Bm25Spec, table2Bm25Spec, table3Bm25Spec } from "../lexical.ts";
import { noInputOnFirstTurns, renderFigureStep, renderTableStep, type CellSource, type Metrics, type MetricsOrSeeds } from "../render.ts";
import { evaluation, setupOf, type DenseContext } from "./models.ts";
import { denseContext, theta0VsBm25 } from "./base.ts";
import { asReleased, ihn, mined, shortcut, type DprVariant, type MinedSource } from "./variants.ts";
import { INPUT_FORM, type Profile } from "./setup.ts";
import { descriptorOf } from "../../../steps/data/datasets/registry.ts";

export interface DenseTargetContext extends TargetContext {
  readonly profile: Profile;
}

/**
 * The evaluations of one dataset's models as the tables show them: the models behind the
 * paper's claims over every seed of the setup (mean ± sd), the other variants (Tables 1 and
 * 6's negative sources, the released-code ablation) over the secondary seeds.
 */
interface DenseWorld {
  readonly dataset: DatasetName;
  readonly iterations: number;
  readonly inputForm: QueryFormName;
  shortcut(): MetricsOrSeeds;
  ihn(i: number): MetricsOrSeeds;
  ihnFinal(): MetricsOrSeeds;
  mined(source: MinedSource): MetricsOrSeeds;
  asReleased(): MetricsOrSeeds;
  /** θ0 without conversational training, on the dataset's input form (iteration 0). */
  theta0(): Metrics;
}

function world(dataset: DatasetName, tctx: DenseTargetContext): DenseWorld {
  const ctx: DenseContext = denseContext(tctx, tctx.profile);
  const setup = setupOf(ctx);
  const over = (seeds: readonly number[], make: (seed: number) => DprVariant): MetricsOrSeeds => seeds.map((s) => evaluation(ctx, dataset, make(s)));
  const iterations = setup.schedule[dataset].iterations;
  return {
    dataset, iterations, inputForm: INPUT_FORM[dataset],
    shortcut: () => over(setup.seeds, (s) => shortcut(dataset, s)),
    ihn: (i) => over(setup.seeds, (s) => ihn(dataset, i, s)),
    ihnFinal: () => over(setup.seeds, (s) => ihn(dataset, iterations, s)),
    mined: (source) => over(setup.secondarySeeds, (s) => mined(dataset, source, s)),
    asReleased: () => over(setup.secondarySeeds, (s) => asReleased(dataset, s)),
    theta0: () => evaluation(ctx, dataset, "theta0", INPUT_FORM[dataset]),
  };
}
const suffix = (ctx: DenseTargetContext): string => (ctx.profile === "paper" ? "" : `-${ctx.profile}`);
const titleTail = (ctx: DenseTargetContext): string => `${DATA_LABEL[ctx.data]}${ctx.profile === "paper" ? "" : `, ${ctx.profile} profile (1 epoch: wiring check, numbers meaningless)`}`;

/** A render step's input name for a row id (input names are identifiers: dashes become underscores). */
const inputName = (rowId: string): string => rowId.replace(/-/g, "_");

/**
 * A table of this file: `render-<id>` with the profile's suffix. Each source fills cells from one
 * evaluation, or from one per training seed (`metrics: [s1, s2, s3]`: mean ± sd, see ../render.ts).
 */
function render(ctx: DenseTargetContext, spec: TableSpec, paperTableId: string | null, sources: readonly CellSource[]): OutputRef<"table"> {
  return renderTableStep(`render-${spec.id}${suffix(ctx)}`, { ...spec, id: `${spec.id}${suffix(ctx)}` }, paperTableId, sources);
}

/** A figure of this file; an input given a list of evaluations (seeds) plots their mean ± sd. */
function figure(ctx: DenseTargetContext, spec: FigureSpec, inputs: Readonly<Record<string, MetricsOrSeeds>>): OutputRef<"figure"> {
  return renderFigureStep(`render-${spec.id}${suffix(ctx)}`, { ...spec, id: `${spec.id}${suffix(ctx)}` }, inputs);
}

/** The three DPR variants of final Table 2 / Table 4, evaluated on their own input forms. */
function table2Models(w: DenseWorld): { row: string; label: string; metrics: MetricsOrSeeds; form: QueryFormName }[] {
  return [
    { row: "dpr-shortcut-ibn", label: "DPR^shortcut (X_t \\ {q_t}, IBN)", metrics: w.shortcut(), form: "history_without_q" },
    { row: "dpr-ibn", label: "DPR (IBN)", metrics: w.ihn(1), form: w.inputForm },
    // The final iteration: I = 2 on QReCC and OR-QuAC, 3 on TopiOCQA (one row spans both datasets in Table 2).
    { row: "dpr-ihn", label: "DPR (IHN, last iteration)", metrics: w.ihnFinal(), form: w.inputForm },
  ];
}

// ---- Table 2 (final): BM25 block + DPR rows on QReCC test and TopiOCQA dev ------------------

export function table2(ctx: DenseTargetContext): OutputRef<"table"> {
  const base = table2Bm25Spec(ctx.data);
  const bm25Rows = base.rows;
  const forms = ["q_t", "a_prev", "history_without_q", "history"] as const;
  const q = world("qrecc", ctx);
  const t = world("topiocqa", ctx);
  const dense = { qrecc: table2Models(q), topiocqa: table2Models(t) };
  const spec: TableSpec = {
    ...base,
    id: "table2",
    title: `Table 2: QReCC test and TopiOCQA dev, ${titleTail(ctx)}`,
    caption: "BM25 over four query forms, and DPR trained without q_t (shortcut), with in-batch negatives (IBN) and with iterative model-based hard negatives (IHN), all from θ0.",
    rows: [...bm25Rows, ...dense.qrecc.map((r) => ({ id: r.row, label: r.label, paperRow: r.row }))],
  };
  const qcols = ["qrecc-mrr", "qrecc-r10", "qrecc-r100"];
  const tcols = ["topiocqa-r5", "topiocqa-r20", "topiocqa-r100"];
  const sources: CellSource[] = [];
  forms.forEach((form, i) => {
    sources.push({ input: `bm25_qrecc_${form}`, metrics: bm25Metrics("qrecc", form, ctx), map: { row: bm25Rows[i]!.id, columns: qcols } });
    sources.push({ input: `bm25_topiocqa_${form}`, metrics: bm25Metrics("topiocqa", form, ctx), map: { row: bm25Rows[i]!.id, columns: tcols } });
  });
  for (const r of dense.qrecc) sources.push({ input: `qrecc_${r.row}`, metrics: r.metrics, map: { row: r.row, columns: qcols } });
  for (const r of dense.topiocqa) sources.push({ input: `topiocqa_${r.row}`, metrics: r.metrics, map: { row: r.row, columns: tcols } });
  return render(ctx, spec, "final-table2", sources);
}

// ---- Table 1 (early): QReCC by question type, BM25 and DPR with each negative source -------

export function table1(ctx: DenseTargetContext): OutputRef<"table"> {
  const base = table1Bm25Spec(ctx.data);
  const w = world("qrecc", ctx);
  const rows: { row: string; label: string; metrics: MetricsOrSeeds; form?: QueryFormName }[] = [
    { row: "bm25", label: "BM25(X_t, C)", metrics: bm25Metrics("qrecc", "history", ctx) },
    { row: "bm25-without-q", label: "BM25(X_t \\ {q_t}, C)", metrics: bm25Metrics("qrecc", "history_without_q", ctx), form: "history_without_q" },
    { row: "dpr-without-q", label: "DPR(X_t \\ {q_t}) (IBN)", metrics: w.shortcut(), form: "history_without_q" },
    { row: "dpr", label: "DPR(X_t) (IBN)", metrics: w.ihn(1) },
    { row: "dpr-cqr-negs", label: "DPR + CQR negatives (θ0 on q*_t)", metrics: w.mined("cqr") },
    { row: "dpr-bm25-negs", label: "DPR + BM25(X_t) negatives", metrics: w.mined("bm25") },
    { row: "dpr-model-negs", label: "DPR + model negatives (IHN iteration 2)", metrics: w.ihn(2) },
  ];
  const spec: TableSpec = { ...base, id: "table1", title: `Table 1: QReCC test by question type, ${titleTail(ctx)}`, rows: rows.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })) };
  const columns = base.columns.map((c) => c.id);
  return render(ctx, spec, "early-table1", rows.map((r) => ({ input: inputName(r.row), metrics: r.metrics, map: { row: r.row, columns, noInput: r.form === undefined ? undefined : noInputOnFirstTurns(r.form) } })));
}

// ---- Table 3: OR-QuAC with question-only inputs -------------------------------------------

export function table3(ctx: DenseTargetContext): OutputRef<"table"> {
  const base = table3Bm25Spec(ctx.data);
  const w = world("orquac", ctx);
  const iters = w.iterations;
  const bm25 = [
    { row: "bm25-q", label: "BM25(q_t, C)", form: "q_t" as const },
    { row: "bm25-prev-questions", label: "BM25(Q_{t-1}, C)", form: "questions_prev" as const },
    { row: "bm25-questions", label: "BM25(Q_t, C)", form: "questions" as const },
  ];
  const dense = [
    { row: "dpr-ibn", label: "DPR(Q_t) (IBN)", metrics: w.ihn(1) },
    { row: "dpr-ihn", label: `DPR(Q_t) (IHN, I=${iters})`, metrics: w.ihnFinal() },
  ];
  const spec: TableSpec = {
    ...base,
    id: "table3",
    title: `Table 3: OR-QuAC test, ${titleTail(ctx)}`,
    caption: "OR-QuAC feeds only the questions Q_t = {q_1..q_t}. Paper: final Table 3.",
    rows: [...bm25.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })), ...dense.map((r) => ({ id: r.row, label: r.label, paperRow: r.row }))],
  };
  const cols = ["orquac-mrr", "orquac-r5"];
  return render(ctx, spec, "final-table3", [
    ...bm25.map((r) => ({ input: `bm25_${r.form}`, metrics: bm25Metrics("orquac", r.form, ctx), map: { row: r.row, columns: cols } })),
    ...dense.map((r) => ({ input: inputName(r.row), metrics: r.metrics, map: { row: r.row, columns: cols } })),
  ]);
}

// ---- Table 4: breakdown by question type on QReCC -----------------------------------------

/** QReCC's question types in its labels' order (first, switch, no-switch: the dataset descriptor's). */
const QRECC_GROUPS = descriptorOf("qrecc").questionTypeOrder;

export function table4(ctx: DenseTargetContext): OutputRef<"table"> {
  const models = table2Models(world("qrecc", ctx));
  const groups = [...QRECC_GROUPS, "all"];
  const pct = { kind: "percent", digits: 1 } as const;
  const spec: TableSpec = {
    id: "table4",
    title: `Table 4: QReCC test by question type, ${titleTail(ctx)}`,
    caption: "Recall of the DPR variants on first, switch and no-switch turns (labelled NQ and TREC turns) and on all turns with gold.",
    columns: [
      { id: "r10", band: "QReCC test", header: "R@10", metric: "recall@10", format: pct, paperColumn: "r10" },
      { id: "r100", band: "QReCC test", header: "R@100", metric: "recall@100", format: pct, paperColumn: "r100" },
    ],
    rows: groups.flatMap((g) => models.map((m) => ({ id: `${g}/${m.row}`, label: `${g}: ${m.label}`, paperRow: `${g}/${m.row}` }))),
  };
  return render(
    ctx,
    spec,
    "final-table4",
    models.map((m) => ({
      input: inputName(m.row),
      metrics: m.metrics,
      map: groups.map((g) => ({ row: `${g}/${m.row}`, columns: ["r10", "r100"], noInput: noInputOnFirstTurns(m.form), ...(g === "all" ? {} : { group: { by: "questionType" as const, value: g } }) })),
    })),
  );
}

// ---- Table 6: sources of hard negatives on QReCC -------------------------------------------

export function table6(ctx: DenseTargetContext): OutputRef<"table"> {
  const w = world("qrecc", ctx);
  const pct = { kind: "percent", digits: 1 } as const;
  const rows = [
    { row: "model-prev-iteration", label: "DPR_{i-1}(X_t) (model, IHN iteration 2)", metrics: w.ihn(2) },
    { row: "bm25-rewrite", label: "BM25(q*_t)", metrics: w.mined("bm25-rewrite") },
    { row: "dpr-nq-rewrite", label: "θ0(q*_t) (CQR)", metrics: w.mined("cqr") },
  ];
  const spec: TableSpec = {
    id: "table6",
    title: `Table 6: hard-negative sources, QReCC test, ${titleTail(ctx)}`,
    caption: "DPR(X_t) trained once from θ0 with negatives mined by each source (top 100, gold excluded, 1 sampled per example per step).",
    columns: [
      { id: "mrr", band: "QReCC test", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 }, paperColumn: "mrr" },
      { id: "r10", band: "QReCC test", header: "R@10", metric: "recall@10", format: pct, paperColumn: "r10" },
      { id: "r100", band: "QReCC test", header: "R@100", metric: "recall@100", format: pct, paperColumn: "r100" },
    ],
    rows: rows.map((r) => ({ id: r.row, label: r.label, paperRow: r.row })),
  };
  return render(ctx, spec, "final-table6", rows.map((r) => ({ input: inputName(r.row), metrics: r.metrics, map: { row: r.row, columns: ["mrr", "r10", "r100"] } })));
}

// ---- Ablation: gold passages among the mined negatives (the released code's behaviour) -----

export function goldNegativesAblation(ctx: DenseTargetContext): OutputRef<"table"> {
  const w = world("qrecc", ctx);
  const pct = { kind: "percent", digits: 1 } as const;
  const rows = [
    { row: "filtered", label: "IHN iteration 2, gold excluded from negatives (cspipe default)", metrics: w.ihn(2) },
    { row: "as-released", label: "IHN iteration 2, gold kept and unmasked (authors' released code)", metrics: w.asReleased() },
  ];
  const spec: TableSpec = {
    id: "ablation-gold-negatives",
    title: `Ablation: gold passages among mined negatives, QReCC test, ${titleTail(ctx)}`,
    caption: "The released code neither filters the gold passage out of the mined list nor masks it; cspipe does both by default. Not in the paper.",
    columns: [
      { id: "mrr", band: "QReCC test", header: "MRR", metric: "mrr", format: { kind: "fixed", digits: 3 } },
      { id: "r10", band: "QReCC test", header: "R@10", metric: "recall@10", format: pct },
      { id: "r100", band: "QReCC test", header: "R@100", metric: "recall@100", format: pct },
    ],
    rows: rows.map((r) => ({ id: r.row, label: r.label })),
  };
  return render(ctx, spec, null, rows.map((r) => ({ input: inputName(r.row), metrics: r.metrics, map: { row: r.row, columns: ["mrr", "r10", "r100"] } })));
}

// ---- Figures ----------------------------------------------------------------------------
// Our numbers are bars / points (mean ± sd where a model has several seeds); the paper's printed
// numbers, where a table of the paper gives the plotted quantity, are markers beside them.

const pctFormat = { kind: "percent", digits: 1 } as const;

/** Figure 2(b): DPR vs DPR^shortcut on QReCC (R@10, R@100), the paper's Table 2 numbers as markers. */
export function figure2b(ctx: DenseTargetContext): OutputRef<"figure"> {
  const models = table2Models(world("qrecc", ctx));
  const inputs: Record<string, MetricsOrSeeds> = {};
  for (const m of models) inputs[inputName(m.row)] = m.metrics;
  const point = (m: (typeof models)[number], metric: string, column: string) => ({ input: inputName(m.row), metric, paper: { table: "final-table2", row: m.row, column } });
  const spec: FigureSpec = {
    id: "figure2b",
    chart: "bar",
    title: `Figure 2(b): DPR vs DPR^shortcut, QReCC test, ${titleTail(ctx)}`,
    caption: "Recall of DPR trained and tested without q_t (shortcut) against DPR on the whole input (IBN, IHN). Markers: the paper's Table 2.",
    yLabel: "Recall",
    categories: models.map((m) => m.label),
    series: [
      { name: "R@10", points: models.map((m) => point(m, "recall@10", "qrecc-r10")) },
      { name: "R@100", points: models.map((m) => point(m, "recall@100", "qrecc-r100")) },
    ],
    valueFormat: pctFormat,
  };
  return figure(ctx, spec, inputs);
}

/** Figure 2(c): R@10 by question type for each model on QReCC; markers: early Table 1 (BM25) and Table 4 (DPR). */
export function figure2c(ctx: DenseTargetContext): OutputRef<"figure"> {
  const models = table2Models(world("qrecc", ctx));
  const inputs: Record<string, MetricsOrSeeds> = { bm25_history: bm25Metrics("qrecc", "history", ctx), bm25_history_without_q: bm25Metrics("qrecc", "history_without_q", ctx) };
  for (const m of models) inputs[inputName(m.row)] = m.metrics;
  const series: { name: string; input: string; form: QueryFormName; paper: (g: string) => { table: string; row: string; column: string } }[] = [
    { name: "BM25(X_t, C)", input: "bm25_history", form: "history", paper: (g) => ({ table: "early-table1", row: "bm25", column: `${g}-r10` }) },
    { name: "BM25(X_t \\ {q_t}, C)", input: "bm25_history_without_q", form: "history_without_q", paper: (g) => ({ table: "early-table1", row: "bm25-without-q", column: `${g}-r10` }) },
    ...models.map((m) => ({ name: m.label, input: inputName(m.row), form: m.form, paper: (g: string) => ({ table: "final-table4", row: `${g}/${m.row}`, column: "r10" }) })),
  ];
  const spec: FigureSpec = {
    id: "figure2c",
    chart: "bar",
    title: `Figure 2(c): R@10 by question type, QReCC test, ${titleTail(ctx)}`,
    caption: "Recall@10 on first, switch and no-switch turns (labelled NQ and TREC turns). Without q_t a first turn has no query (n/a). Markers: the paper's early Table 1 (BM25) and Table 4 (DPR).",
    yLabel: "Recall@10",
    categories: [...QRECC_GROUPS],
    series: series.map((s) => ({
      name: s.name,
      points: QRECC_GROUPS.map((g) => {
        const na = noInputOnFirstTurns(s.form);
        return na !== undefined && na.groups.includes(g) ? { noInput: na.reason } : { input: s.input, metric: "recall@10", group: { by: "questionType" as const, value: g }, paper: s.paper(g) };
      }),
    })),
    valueFormat: pctFormat,
  };
  return figure(ctx, spec, inputs);
}

/** Per-iteration evaluations (0 = θ0 zero-shot on the input form, then IHN iterations 1..I). */
function iterationMetrics(w: DenseWorld): MetricsOrSeeds[] {
  return [w.theta0(), ...Array.from({ length: w.iterations }, (_, i) => w.ihn(i + 1))];
}

/**
 * The paper prints R@5 per iteration only for TopiOCQA's IBN (iteration 1) and final IHN
 * (iteration I) models, in Table 2; Figures 3 and 4 themselves carry no printed numbers.
 */
function topiocqaPaperR5(i: number, I: number): { table: string; row: string; column: string } | undefined {
  if (i === 1) return { table: "final-table2", row: "dpr-ibn", column: "topiocqa-r5" };
  if (i === I && I > 1) return { table: "final-table2", row: "dpr-ihn", column: "topiocqa-r5" };
  return undefined;
}

/** TopiOCQA's question types in its type files' order (first, topic-continues, topic-switch: the dataset descriptor's). */
const TOPIOCQA_GROUPS = descriptorOf("topiocqa").questionTypeOrder;

/** Figure 3: TopiOCQA dev R@5 per iteration by question type. */
export function figure3(ctx: DenseTargetContext): OutputRef<"figure"> {
  const w = world("topiocqa", ctx);
  const its = iterationMetrics(w);
  const I = its.length - 1;
  const inputs: Record<string, MetricsOrSeeds> = {};
  its.forEach((m, i) => (inputs[`iteration_${i}`] = m));
  const spec: FigureSpec = {
    id: "figure3",
    chart: "line",
    title: `Figure 3: TopiOCQA dev R@5 per IHN iteration by question type, ${titleTail(ctx)}`,
    caption:
      "Iteration 0 is θ_0 without conversational training; iteration 1 trains with in-batch negatives; each later one retrains from θ_0 with negatives mined by the previous iteration. The paper draws this figure without printing its numbers; markers on 'all' are its Table 2 (IBN = iteration 1, IHN = iteration I).",
    yLabel: "Recall@5",
    xLabel: "IHN iteration",
    categories: its.map((_, i) => String(i)),
    series: [
      ...TOPIOCQA_GROUPS.map((g) => ({ name: g, points: its.map((_, i) => ({ input: `iteration_${i}`, metric: "recall@5", group: { by: "questionType" as const, value: g } })) })),
      { name: "all", points: its.map((_, i) => ({ input: `iteration_${i}`, metric: "recall@5", ...withPaper(topiocqaPaperR5(i, I)) })) },
    ],
    valueFormat: pctFormat,
  };
  return figure(ctx, spec, inputs);
}

const withPaper = (paper: { table: string; row: string; column: string } | undefined) => (paper === undefined ? {} : { paper });

/** Figure 4: R@5 per iteration on TopiOCQA and QReCC. */
export function figure4(ctx: DenseTargetContext): OutputRef<"figure"> {
  const q = iterationMetrics(world("qrecc", ctx));
  const t = iterationMetrics(world("topiocqa", ctx));
  const inputs: Record<string, MetricsOrSeeds> = {};
  q.forEach((m, i) => (inputs[`qrecc_${i}`] = m));
  t.forEach((m, i) => (inputs[`topiocqa_${i}`] = m));
  const n = Math.max(q.length, t.length);
  const spec: FigureSpec = {
    id: "figure4",
    chart: "line",
    title: `Figure 4: R@5 per IHN iteration, QReCC test and TopiOCQA dev, ${titleTail(ctx)}`,
    caption: "Iteration 0 is θ_0; QReCC runs I=2 iterations and TopiOCQA I=3, as in the paper. The paper prints no numbers for this figure; TopiOCQA markers are its Table 2 (IBN = iteration 1, IHN = iteration I); QReCC R@5 is printed nowhere.",
    yLabel: "Recall@5",
    xLabel: "IHN iteration",
    categories: Array.from({ length: n }, (_, i) => String(i)),
    series: [
      { name: "QReCC", points: Array.from({ length: n }, (_, i) => (i < q.length ? { input: `qrecc_${i}`, metric: "recall@5" } : null)) },
      { name: "TopiOCQA", points: Array.from({ length: n }, (_, i) => (i < t.length ? { input: `topiocqa_${i}`, metric: "recall@5", ...withPaper(topiocqaPaperR5(i, t.length - 1)) } : null)) },
    ],
    valueFormat: pctFormat,
  };
  return figure(ctx, spec, inputs);
}

// ---- θ0 against BM25 on mini-nq (the counterpart of DPR-NQ against BM25 on NQ) ------------------

export function theta0Table(ctx: DenseTargetContext): OutputRef<"table"> {
  const nq = theta0VsBm25(denseContext(ctx, ctx.profile));
  const pct = { kind: "percent", digits: 1 } as const;
  const spec: TableSpec = {
    id: "theta0-nq",
    title: `θ0 against BM25 on mini-nq, ${titleTail(ctx)}`,
    caption: "Before any conversational training, θ0 (the tiny bi-encoder pre-trained on mini-nq's standalone questions, standing in for DPR-NQ) against BM25 on mini-nq's dev questions over its whole collection. Paper: DPR's Table 2 on Natural Questions, where DPR-NQ is θ0 of the shortcut paper (DPR counts a passage containing the answer, mini-nq the gold passage).",
    columns: [
      { id: "top5", band: "mini-nq dev", header: "R@5", metric: "recall@5", format: pct, paperColumn: "top5" },
      { id: "top20", band: "mini-nq dev", header: "R@20", metric: "recall@20", format: pct, paperColumn: "top20" },
      { id: "top100", band: "mini-nq dev", header: "R@100", metric: "recall@100", format: pct, paperColumn: "top100" },
    ],
    rows: [
      { id: "bm25", label: "BM25(q, C)", paperRow: "bm25" },
      { id: "theta0", label: "θ0 (DPR-NQ on real data)", paperRow: "dpr" },
    ],
  };
  const columns = ["top5", "top20", "top100"];
  return render(ctx, spec, "dpr-nq", [
    { input: "bm25", metrics: nq.bm25, map: { row: "bm25", columns } },
    { input: "theta0", metrics: nq.theta0, map: { row: "theta0", columns } },
  ]);
}

export type { TableColumnSpec };
