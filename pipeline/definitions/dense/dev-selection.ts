/**
 * `dev-selection`: what the dense setup's knobs are chosen on. θ0 (mini) and DPR (IBN) on each
 * conversational dataset, over the setup's seeds, each scored by its own training's model
 * selection on its dev collection (read-dev-score), with the epochs and training seconds it
 * cost; no test split is read and no claim is checked. Run it under `--set` overrides to compare
 * a candidate setup with the code's (issue 29: capacity and schedule chosen on dev data within a
 * time budget); the models are the tables' own (same records, same steps, same keys).
 */
import { use, type OutputRef } from "../../engine/step.ts";
import type { TableSpec } from "../../../steps/report/table.ts";
import { DEV_SCORE_METRICS, devRecallMetric, readDevScoreStep } from "../../../steps/training/dev-score.ts";
import { TRAINER_FIELDS } from "../../../steps/training/config-schema.ts";
import { DATASETS, descriptorOf } from "../../../steps/data/datasets/registry.ts";
import { renderTableStep, type CellSource, type Metrics } from "../render.ts";
import { DATA_LABEL } from "../lexical.ts";
import { modelOf, setupOf, theta0Id, type DenseContext } from "./models.ts";
import { denseContext } from "./base.ts";
import { ibn } from "./variants.ts";
import type { DenseSetup } from "./setup.ts";
import type { DenseTargetContext } from "./tables.ts";

/** The k of the trainings' dev Recall@k (no definition sets recall_k: the trainer's default). */
const SELECTION_K = TRAINER_FIELDS.recall_k.default;

const BAND = "own dev";

/** A model's dev score: a read-dev-score step named after the training step. */
function devScore(model: OutputRef<"dpr:model">): Metrics {
  return use(readDevScoreStep, { name: `read-dev-score.${model.step.name}`, params: {}, inputs: { model } }).out.metrics;
}

/** The setup in one line, for the table's title: what a `--set` changed shows there. */
export function setupLine(s: DenseSetup): string {
  const m = s.model;
  const arch = m === null ? "BERT-base (DPR-NQ)" : `θ0 ${m.num_hidden_layers} x ${m.hidden_size}, FF ${m.intermediate_size}, ${s.theta0.epochs} epochs at lr ${s.theta0.lr}`;
  const sched = DATASETS.map((d) => `${descriptorOf(d).label} ${s.schedule[d].epochs} epochs at lr ${s.schedule[d].lr}, batch ${s.schedule[d].batch}`).join("; ");
  return `${arch}; IBN: ${sched}; query / passage tokens ${s.maxQueryLength} / ${s.maxPassageLength}; seeds ${s.seeds.join(", ")}`;
}

export function devSelectionTable(tctx: DenseTargetContext): OutputRef<"table"> {
  const ctx: DenseContext = denseContext(tctx, tctx.profile);
  const s = setupOf(ctx);
  const scores = (model: (seed: number) => OutputRef<"dpr:model">): Metrics[] => s.seeds.map((seed) => devScore(model(seed)));
  const columns = ["dev", "epochs"];
  const rows = [
    ...(s.model === null ? [] : [{ id: "theta0", label: "θ0 (mini-nq dev)", metrics: scores((seed) => modelOf(ctx, theta0Id(ctx, seed))) }]),
    ...DATASETS.map((d) => ({ id: `ibn-${d}`, label: `DPR (IBN) on ${descriptorOf(d).label} dev`, metrics: scores((seed) => modelOf(ctx, ibn(d, seed))) })),
  ];
  const suffix = tctx.profile === "paper" ? "" : `-${tctx.profile}`;
  const spec: TableSpec = {
    id: `dev-selection${suffix}`,
    title: `Dev selection, ${DATA_LABEL[tctx.data]}: ${setupLine(s)}`,
    caption:
      "Each model's own dev Recall@k at the epoch its training kept (θ0 on mini-nq's dev collection, DPR (IBN) on each dataset's), and the epochs it trained, mean ± sd over the seeds. These are the numbers the dense setup is chosen on (--set a candidate and compare); no test split is read. What each training cost is not here (a step's outputs hold what it computed, not how long that took): the run prints it, and the store keeps it in each entry's manifest.json.",
    counted: "dev questions scored",
    columns: [
      { id: "dev", band: BAND, header: `dev R@${SELECTION_K}`, metric: devRecallMetric(SELECTION_K), format: { kind: "percent", digits: 1 } },
      { id: "epochs", band: BAND, header: "epochs", metric: DEV_SCORE_METRICS.epochs, format: { kind: "integer" }, unit: "count" },
    ],
    rows: rows.map(({ id, label }) => ({ id, label })),
  };
  const sources: CellSource[] = rows.map((r) => ({ input: r.id.replace(/-/g, "_"), metrics: r.metrics, map: { row: r.id, columns } }));
  return renderTableStep(`render-dev-selection${suffix}`, spec, null, sources);
}
