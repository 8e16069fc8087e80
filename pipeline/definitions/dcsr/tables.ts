/**
 * DCSR's tables:
 * - table-dcsr: DPR (IBN), DPR (IHN), DCSR and DCSR x IHN on each conversational dataset, with
 *   the first / switch / no-switch breakdown (TopiOCQA: topic-switch / topic-continues) in
 *   early Table 1's layout; the early version's DPR numbers on QReCC beside ours;
 * - ablation-dcsr: the DCSR paper's negative-sampling ablations (§4.5) on every conversational
 *   dataset and on mini-nq (its own setting), with θ0 (DPR trained on mini-nq) and BM25 there.
 * The DCSR paper's text prints no number these rows could sit beside (its tables hold the
 * absolute ones, on OpenQA), so only the conversational paper's appear.
 */
import type { OutputRef } from "../../engine/step.ts";
import type { DataSource, TargetContext } from "../../engine/targets.ts";
import type { TableColumnSpec, TableSpec } from "../../../steps/report/table.ts";
import type { DatasetName } from "../../../steps/data/schemas.ts";
import { DATA_LABEL, table1Bm25Spec } from "../lexical.ts";
import { renderTableStep, type CellSource, type MetricsOrSeeds } from "../render.ts";
import { evaluation, setupOf } from "../dense/models.ts";
import { theta0VsBm25 } from "../dense/base.ts";
import { ihn } from "../dense/variants.ts";
import type { Profile } from "../dense/setup.ts";
import { dcsrEvaluation } from "./graph.ts";
import { dcsrContext, dcsrSetupOf, denseOf, type DcsrContext } from "./parameters.ts";
import { ablation, ABLATIONS, dcsr, dcsrIhn, type Ablation, type DcsrDataset, type DcsrVariant } from "./variants.ts";
import { perDataset } from "../../../steps/data/datasets/registry.ts";

type Group = "first" | "switch" | "no-switch";

export interface DcsrTargetContext extends TargetContext {
  readonly profile: Profile;
}

const GROUPS: readonly Group[] = ["first", "switch", "no-switch"];
/** Each dataset's question-type labels for the table's three groups (the evaluation's breakdown values). */
const GROUP_LABELS: Readonly<Record<DcsrDataset, Readonly<Record<Group, string>>>> = {
  ...perDataset(({ questionTypes: t }) => ({ first: t.first, switch: t.switch, "no-switch": t.noSwitch })),
  nq: { first: "first", switch: "switch", "no-switch": "no-switch" },
};
/** How the tables and findings name each dataset. */
export const NAMES: Readonly<Record<DcsrDataset, string>> = { ...perDataset((d) => d.label), nq: "mini-nq" };

/** The evaluations filling one row (one per seed: mean ± sd): the aggregate into `all-*` columns, each question-type group into its columns. */
interface RowSource {
  readonly row: string;
  readonly label: string;
  readonly paperRow?: string;
  readonly dataset: DcsrDataset;
  readonly metrics: MetricsOrSeeds;
}

const suffix = (ctx: DcsrTargetContext): string => (ctx.profile === "paper" ? "" : `-${ctx.profile}`);

/**
 * The render step of a table whose rows each come from one model (over seeds), cells by
 * column-id prefix: `all-` = aggregate, `<group>-` = that question-type group of the row's
 * dataset (a mapping's group overrides the column's, so TopiOCQA's topic-switch fills the
 * switch columns).
 */
function renderRows(ctx: DcsrTargetContext, spec: TableSpec, paperTable: string | null, rows: readonly RowSource[]): OutputRef<"table"> {
  const columnsOf = (prefix: string) => spec.columns.filter((c) => c.id.startsWith(`${prefix}-`)).map((c) => c.id);
  const sources: CellSource[] = rows.map((r) => ({
    input: r.row.replace(/[^A-Za-z0-9]/g, "_"),
    metrics: r.metrics,
    map: [
      { row: r.row, columns: columnsOf("all") },
      ...GROUPS.map((g) => ({ row: r.row, columns: columnsOf(g), group: { by: "questionType" as const, value: GROUP_LABELS[r.dataset][g] } })).filter((m) => m.columns.length > 0),
    ],
  }));
  return renderTableStep(`render-${spec.id}${suffix(ctx)}`, { ...spec, id: `${spec.id}${suffix(ctx)}` }, paperTable, sources);
}

const titleTail = (ctx: DcsrTargetContext): string => `${DATA_LABEL[ctx.data]}${ctx.profile === "paper" ? "" : `, ${ctx.profile} profile (1 epoch: wiring check, numbers meaningless)`}`;
const contextOf = (ctx: DcsrTargetContext): DcsrContext => dcsrContext(ctx, ctx.profile);
const seedNote = (seeds: readonly number[]): string => (seeds.length === 1 ? `one seed (${seeds[0]})` : `seeds ${seeds.join(", ")} (mean ± sd)`);

/** early Table 1's columns (all / first / switch / no-switch x MRR, R@10, R@100), its paper ids kept. */
function breakdownColumns(data: DataSource): TableColumnSpec[] {
  return table1Bm25Spec(data).columns.map((c) => ({ ...c }));
}

// ---- table-dcsr ----------------------------------------------------------------------------

/** The four models of one dataset's block in table-dcsr, each over the DCSR setup's seeds. */
export function tableDcsrModels(ctx: DcsrContext, d: DatasetName) {
  const seeds = dcsrSetupOf(ctx).seeds;
  const I = setupOf(ctx).schedule[d].iterations;
  const dpr = (i: number) => seeds.map((s) => evaluation(denseOf(ctx), d, ihn(d, i, s)));
  const dcsrOver = (make: (s: number) => DcsrVariant) => seeds.map((s) => dcsrEvaluation(ctx, make(s)));
  return { iterations: I, dprIbn: dpr(1), dprIhn: dpr(I), dcsr: dcsrOver((s) => dcsr(d, s)), dcsrIhn: dcsrOver((s) => dcsrIhn(d, I, s)) };
}

export function tableDcsr(ctx: DcsrTargetContext): OutputRef<"table"> {
  const dctx = contextOf(ctx);
  const rows: RowSource[] = dcsrSetupOf(dctx).datasets.flatMap((d: DatasetName) => {
    const m = tableDcsrModels(dctx, d);
    const I = m.iterations;
    const name = NAMES[d];
    return [
      { row: `${d}/dpr-ibn`, label: `${name}: DPR (IBN)`, dataset: d, metrics: m.dprIbn, ...(d === "qrecc" ? { paperRow: "dpr" } : {}) },
      { row: `${d}/dpr-ihn`, label: `${name}: DPR (IHN, I=${I})`, dataset: d, metrics: m.dprIhn, ...(d === "qrecc" && I === 2 ? { paperRow: "dpr-model-negs" } : {}) },
      { row: `${d}/dcsr`, label: `${name}: DCSR`, dataset: d, metrics: m.dcsr },
      { row: `${d}/dcsr-ihn`, label: `${name}: DCSR x IHN (I=${I})`, dataset: d, metrics: m.dcsrIhn },
    ];
  });
  const spec: TableSpec = {
    id: "table-dcsr",
    title: `DCSR beside DPR by question type, ${titleTail(ctx)}`,
    caption:
      `DPR with in-batch negatives (IBN) and with iterative model-based hard negatives (IHN), DCSR (one vector per sentence at its marker token; a positive sentence, an in-passage negative and a random sentence of a BM25 negative passage; passages ranked by HasAns over the top ${dcsrSetupOf(dctx).topM} sentences) and DCSR x IHN (iteration i > 1 retrained from θ0 with negative sentences mined by DCSR iteration i-1), all from θ0, ${seedNote(dcsrSetupOf(dctx).seeds)}. Groups: first / switch / no-switch turns (TopiOCQA: topic-switch / topic-continues; OR-QuAC: by whether consecutive turns share a gold passage). Paper: the early version's Table 1 for QReCC's DPR rows (IHN = its model negatives); the DCSR paper reports OpenQA only.`,
    columns: breakdownColumns(ctx.data),
    rows: rows.map((r) => ({ id: r.row, label: r.label, ...(r.paperRow ? { paperRow: r.paperRow } : {}) })),
  };
  return renderRows(ctx, spec, "early-table1", rows);
}

// ---- ablation-dcsr ---------------------------------------------------------------------------

const ABLATION_LABELS: Readonly<Record<Ablation, string>> = { "bm25-1": "+1 BM25 random", "bm25-2": "+2 BM25 random", "in-passage-bm25-1": "+1 in-passage & +1 BM25 random (DCSR)" };
const pct = { kind: "percent", digits: 1 } as const;

/** θ0 is pre-trained with the trainer's default seed (42): DCSR on mini-nq starts from the same random BERT. */
export const NQ_SEED = 42;

export function ablationDcsr(ctx: DcsrTargetContext): OutputRef<"table"> {
  const dctx = contextOf(ctx);
  const seeds = dcsrSetupOf(dctx).seeds;
  const rows: RowSource[] = [];
  if (ctx.data === "mini") {
    const nq = theta0VsBm25(denseOf(dctx));
    rows.push({ row: "nq/bm25", label: "mini-nq: BM25(q)", dataset: "nq", metrics: nq.bm25 });
    rows.push({ row: "nq/dpr", label: "mini-nq: DPR (θ0: IBN, from a random BERT)", dataset: "nq", metrics: nq.theta0 });
    for (const a of ABLATIONS) rows.push({ row: `nq/${a}`, label: `mini-nq: DCSR ${ABLATION_LABELS[a]}`, dataset: "nq", metrics: dcsrEvaluation(dctx, ablation("nq", a, NQ_SEED)) });
  }
  for (const d of dcsrSetupOf(dctx).datasets) {
    for (const a of ABLATIONS) rows.push({ row: `${d}/${a}`, label: `${NAMES[d]}: DCSR ${ABLATION_LABELS[a]}`, dataset: d, metrics: seeds.map((s) => dcsrEvaluation(dctx, ablation(d, a, s))) });
  }
  const column = (group: Group | "all", metric: string, header: string): TableColumnSpec => ({ id: `${group}-${metric.replace("recall@", "r")}`, header: `${group} ${header}`, metric, format: metric === "mrr" ? { kind: "fixed", digits: 3 } : pct });
  const spec: TableSpec = {
    id: "ablation-dcsr",
    title: `DCSR negative-sampling ablations (Wu et al. 2022, §4.5), ${titleTail(ctx)}`,
    caption:
      "Per training question: a positive sentence plus (a) one random sentence of a BM25 negative passage, (b) random sentences of two different BM25 negatives, (c) one in-passage negative (a sentence of the positive passage that neither contains the answer nor neighbours one that does) and one BM25 random sentence, which is DCSR. From θ0 on the conversational datasets; on mini-nq from a random BERT, as θ0 (DPR with in-batch negatives) was trained. Evaluation split: QReCC and OR-QuAC test, TopiOCQA and mini-nq dev. The in-passage effect is (c) against (a).",
    columns: [column("all", "mrr", "MRR"), column("all", "recall@5", "R@5"), column("all", "recall@20", "R@20"), column("all", "recall@100", "R@100"), ...GROUPS.map((g) => column(g, "recall@10", "R@10"))],
    rows: rows.map((r) => ({ id: r.row, label: r.label })),
  };
  return renderRows(ctx, spec, null, rows);
}
