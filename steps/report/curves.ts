/**
 * Training curves of a model: train loss and dev Recall@k per epoch, from the trainer's
 * metrics.jsonl rows (epoch 0 = the initial model, evaluated before training, no loss), drawn
 * as two small line charts with the report's chart renderer, plus the per-epoch table. Pure.
 */
import { formatCount, formatNumber } from "./format.ts";
import { el, type Html } from "./html.ts";
import type { FigureJson, FigurePoint } from "./figure.ts";
import { renderFigureSvg } from "./svg.ts";

/** One line of metrics.jsonl. */
export interface EpochRow {
  readonly epoch: number;
  readonly train_loss?: number;
  readonly dev_queries?: number;
  readonly train_queries?: number;
  readonly selectable?: boolean;
  readonly [field: string]: unknown;
}

export interface Curves {
  /** Field holding dev recall (e.g. `dev_recall_at_5`), null when the rows have none. */
  readonly recallKey: string | null;
  readonly k: number | null;
  readonly svg: readonly string[];
  readonly table: Html;
}

function chart(id: string, title: string, yLabel: string, yUnit: string, rows: readonly EpochRow[], pick: (r: EpochRow) => number | undefined, percent: boolean, key: string): string | undefined {
  const pts = rows.map((r) => ({ r, v: pick(r) }));
  if (!pts.some((p) => p.v !== undefined)) return undefined;
  const points: FigurePoint[] = pts.map(({ r, v }) => ({
    category: String(r.epoch),
    ours: v === undefined ? null : { value: v, sd: null, seeds: 1, n: typeof r.dev_queries === "number" ? r.dev_queries : 0, stepKeys: [key], metric: id, group: null },
    paper: null,
    absent: null,
  }));
  const f: FigureJson = {
    schema: "cspipe.figure/2",
    id,
    chart: "line",
    title,
    caption: "",
    nNote: "",
    yLabel,
    yUnit,
    xLabel: "epoch",
    valueFormat: percent ? { kind: "percent", digits: 1 } : { kind: "fixed", digits: 3 },
    yMax: null,
    categories: points.map((p) => p.category),
    series: [{ name: title, points }],
  };
  return renderFigureSvg(f, { width: 340, plotHeight: 150, legend: false });
}

export function trainingCurves(rows: readonly EpochRow[], key: string): Curves {
  const sorted = [...rows].sort((a, b) => a.epoch - b.epoch);
  const recallKey = [...new Set(sorted.flatMap((r) => Object.keys(r)))].find((k) => /^dev_recall_at_\d+$/.test(k)) ?? null;
  const k = recallKey === null ? null : Number(recallKey.slice("dev_recall_at_".length));
  const svg = [
    chart("train-loss", "train loss", "mean NLL per batch", "", sorted, (r) => (typeof r.train_loss === "number" ? r.train_loss : undefined), false, key),
    recallKey === null ? undefined : chart("dev-recall", `dev R@${k}`, `dev R@${k}`, "%", sorted, (r) => (typeof r[recallKey] === "number" ? (r[recallKey] as number) : undefined), true, key),
  ].filter((s): s is string => s !== undefined);
  const table = el(
    "table",
    { class: "results epochs" },
    el("thead", {}, el("tr", {}, el("th", {}, "epoch"), el("th", {}, "train loss"), el("th", {}, recallKey === null ? "dev recall" : `dev R@${k} (%)`), el("th", {}, "dev queries"), el("th", {}, "steps"), el("th", {}, "selectable"))),
    el(
      "tbody",
      {},
      ...sorted.map((r) =>
        el(
          "tr",
          {},
          el("td", { class: "num" }, String(r.epoch)),
          el("td", { class: "num" }, typeof r.train_loss === "number" ? formatNumber(r.train_loss, { kind: "fixed", digits: 4 }) : "-"),
          el("td", { class: "num" }, recallKey !== null && typeof r[recallKey] === "number" ? formatNumber(r[recallKey] as number, { kind: "percent", digits: 1 }) : "-"),
          el("td", { class: "num" }, typeof r.dev_queries === "number" ? formatCount(r.dev_queries) : "-"),
          el("td", { class: "num" }, typeof r.steps === "number" ? formatCount(r.steps) : "-"),
          el("td", {}, r.selectable === false ? "no (before training)" : "yes"),
        ),
      ),
    ),
  );
  return { recallKey, k, svg, table };
}
