/**
 * The `render-figure` step: a bar or line chart whose points come from evaluations'
 * metrics.json inputs (aggregate or one breakdown group; several inputs = seeds, plotted as
 * mean ± sd) and from the paper's printed numbers. Writes `<id>.json` (the numbers plotted,
 * with every producing step's cache key and N per point) and `<id>.svg` (its view, whose marks
 * link to `../provenance/...`, where the report puts the pages).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, record } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { pickMetric } from "./metric-value.ts";
import { figureData, figureSpecSchema, resolvePaperPoint, type FigurePoint, type FigureSpec } from "./figure.ts";
import { combineInputs, type CellInput } from "./table.ts";
import { renderFigureSvg } from "./svg.ts";
import { numberPage } from "./links.ts";

export type { FigureJson } from "./figure.ts";

const params = z.object({ spec: figureSpecSchema }).strict();

export type RenderFigureParams = z.input<typeof params>;


/** Resolve one point of a spec: our numbers (mean over its inputs), the paper's, or the stated absence. */
async function resolvePoint(
  p: NonNullable<FigureSpec["series"][number]["points"][number]>,
  category: string,
  load: (input: string) => Promise<{ m: MetricsFile; path: string; key: string }>,
  log: (line: string) => void,
  where: string,
): Promise<FigurePoint> {
  if ("noInput" in p) return { category, ours: null, paper: null, absent: `no input: ${p.noInput}` };
  const paper = p.paper === undefined ? null : (resolvePaperPoint(p.paper) ?? null);
  if (!("metric" in p)) return { category, ours: null, paper, absent: null };
  const names = p.inputs ?? [p.input!];
  const picked: CellInput[] = [];
  for (const name of names) {
    const { m, path, key } = await load(name);
    const v = pickMetric(m, p.metric, p.group, path);
    if (v === undefined) {
      log(`${where}: no turns of ${p.group!.by}=${p.group!.value}; point left out`);
      return { category, ours: null, paper, absent: `no turns of type '${p.group!.value}' in this split` };
    }
    picked.push({ value: v.value, n: v.n, stepKey: key });
  }
  const c = combineInputs(picked, where);
  return { category, ours: { value: c.value, sd: c.sd, seeds: picked.length, n: c.n, stepKeys: c.stepKeys, metric: p.metric, group: p.group ?? null }, paper, absent: null };
}

/** `render-figure`: a figure whose points read the evaluations wired as `metrics`, by name. */
export const renderFigureStep = defineStep({
  id: "render-figure",
  version: 2,
  // Its outputs name the producers' keys (provenance links): they are in its key (step.ts provenanceKeys).
  provenanceKeys: true,
  source: import.meta.url,
  description: "SVG chart plus the JSON of the numbers plotted (mean ± sd over seeds, N, provenance keys) and the paper's numbers.",
  params,
  inputs: { metrics: record("json:metrics") },
  outputs: { figure: dir("figure", "figure") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const { spec } = ctx.params;
      const loaded = new Map<string, MetricsFile>();
      const load = async (input: string) => {
        const path = ctx.inputs.metrics[input];
        const key = ctx.inputKeys.metrics[input];
        if (path === undefined || key === undefined) throw new InputError(`figure point input '${input}' is not wired`, { field: "spec.series", fix: `wire metrics named '${input}' or use one of: ${Object.keys(ctx.inputs.metrics).sort().join(", ")}` });
        let m = loaded.get(input);
        if (m === undefined) loaded.set(input, (m = JSON.parse(await readFile(path, "utf8")) as MetricsFile));
        return { m, path, key: key.key };
      };
      const points: FigurePoint[][] = [];
      for (const s of spec.series) {
        const row: FigurePoint[] = [];
        for (const [ci, p] of s.points.entries()) {
          const category = spec.categories[ci] ?? String(ci);
          row.push(p === null ? { category, ours: null, paper: null, absent: null } : await resolvePoint(p, category, load, ctx.log, `${s.name} / ${category}`));
        }
        points.push(row);
      }
      const data = figureData(spec, points);
      const svg = renderFigureSvg(data, { href: (p) => (p.ours === null ? undefined : `../${numberPage(p.ours.stepKeys)}`) });
      await writeFile(join(ctx.outputs.figure, `${spec.id}.svg`), svg);
      await writeFile(join(ctx.outputs.figure, `${spec.id}.json`), JSON.stringify(data, null, 2) + "\n");
    },
  },
});
