/**
 * The `render-figure` step: a bar or line chart whose points come from evaluations'
 * metrics.json inputs (aggregate or one breakdown group) or from the paper's printed
 * numbers. Writes `<id>.svg` and `<id>.json` (the numbers plotted, with the producing
 * step's cache key per point).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { defineStep, dir, type InputKinds } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { pickMetric } from "./metric-value.ts";
import { figureSpecSchema, renderFigure, resolvePaperPoint, type ResolvedPoint } from "./figure.ts";

export type { FigureJson } from "./figure.ts";

const params = z.object({ spec: figureSpecSchema }).strict();

const figureDefs = new Map<string, ReturnType<typeof makeRenderFigureDef>>();

/**
 * A render step for a figure whose points read the named inputs (all `json:metrics`).
 * One def object per input-name set, so a figure built by two targets in one run merges.
 */
export function renderFigureDef(inputNames: readonly string[]) {
  const memoKey = JSON.stringify([...inputNames].sort());
  let def = figureDefs.get(memoKey);
  if (def === undefined) figureDefs.set(memoKey, (def = makeRenderFigureDef(inputNames)));
  return def;
}

function makeRenderFigureDef(inputNames: readonly string[]) {
  const inputs: Record<string, "json:metrics"> = {};
  for (const n of inputNames) inputs[n] = "json:metrics";
  return defineStep({
    id: "render-figure",
    version: 1,
    source: import.meta.url,
    description: "SVG chart plus the JSON of the numbers plotted, with provenance keys and the paper's numbers.",
    params,
    inputs: inputs as InputKinds,
    outputs: { figure: dir("figure", "figure") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const { spec } = ctx.params;
        const paths = ctx.inputs as Record<string, string>;
        const keys = ctx.inputKeys as Record<string, { key: string }>;
        const loaded = new Map<string, MetricsFile>();
        const load = async (input: string): Promise<MetricsFile> => {
          const path = paths[input];
          if (path === undefined) throw new InputError(`figure point input '${input}' is not wired`, { field: "spec.series", fix: `wire an input named '${input}' or use one of: ${Object.keys(paths).sort().join(", ")}` });
          let m = loaded.get(input);
          if (m === undefined) loaded.set(input, (m = JSON.parse(await readFile(path, "utf8")) as MetricsFile));
          return m;
        };
        const points: (ResolvedPoint | undefined)[][] = [];
        for (const s of spec.series) {
          const row: (ResolvedPoint | undefined)[] = [];
          for (const [ci, p] of s.points.entries()) {
            if (p === null) row.push(undefined);
            else if ("paper" in p) row.push(resolvePaperPoint(p.paper));
            else {
              const picked = pickMetric(await load(p.input), p.metric, p.group, paths[p.input]);
              if (picked === undefined) ctx.log(`${s.name} / ${spec.categories[ci]}: no turns of ${p.group!.by}=${p.group!.value}; point left out`);
              row.push(picked === undefined ? undefined : { source: "ours", value: picked.value, n: picked.n, stepKey: keys[p.input]!.key, input: p.input, metric: p.metric, group: p.group ?? null });
            }
          }
          points.push(row);
        }
        const rendered = renderFigure(spec, points);
        await writeFile(join(ctx.outputs.figure, `${spec.id}.svg`), rendered.svg);
        await writeFile(join(ctx.outputs.figure, `${spec.id}.json`), rendered.json);
      },
    },
  });
}
