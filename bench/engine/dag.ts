/**
 * Definitions module for the engine benchmark: a synthetic layered DAG of cheap steps
 * (default 20 layers x 10 = 200 steps, each reading two steps of the previous layer).
 *
 *   CSPIPE_DEFINITIONS=bench/engine/dag.ts npx tsx pipeline/main.ts run --store /tmp/s dag
 *
 * Shape from CSPIPE_BENCH_LAYERS / CSPIPE_BENCH_WIDTH (see shape.ts). Each step writes a
 * line derived from its inputs (shape.ts `stepText`), the same bytes the Snakemake
 * workflow in snakemake/Snakefile writes.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineStep, file, use, type AnyStep, type OutputRef } from "../../pipeline/engine/step.ts";
import { TargetRegistry } from "../../pipeline/engine/targets.ts";
import { checkShape, producersOf, shapeFromEnv, stepName, stepText, type DagShape } from "./shape.ts";

const params = z.object({ name: z.string().min(1) }).strict();

const seedStep = defineStep({
  id: "bench-seed",
  version: 1,
  source: import.meta.url,
  description: "benchmark source step: writes its own name",
  params,
  inputs: {},
  outputs: { out: file("text:bench", "out.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      await writeFile(ctx.outputs.out, stepText(ctx.params.name, []), "utf8");
    },
  },
});

const mixStep = defineStep({
  id: "bench-mix",
  version: 1,
  source: import.meta.url,
  description: "benchmark step: writes its name and the sha256 of its two inputs",
  params,
  inputs: { a: "text:bench", b: "text:bench" },
  outputs: { out: file("text:bench", "out.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const texts = [await readFile(ctx.inputs.a, "utf8"), await readFile(ctx.inputs.b, "utf8")];
      await writeFile(ctx.outputs.out, stepText(ctx.params.name, texts), "utf8");
    },
  },
});

/** The sink steps (last layer) of the benchmark DAG; the whole DAG is upstream of them. */
export function benchSinks(shape: DagShape): AnyStep[] {
  checkShape(shape);
  let previous: OutputRef<"text:bench">[] = [];
  let sinks: AnyStep[] = [];
  for (let l = 0; l < shape.layers; l++) {
    const outs: OutputRef<"text:bench">[] = [];
    const steps: AnyStep[] = [];
    for (let j = 0; j < shape.width; j++) {
      const name = stepName(l, j);
      const producers = producersOf(shape, l, j);
      if (producers.length === 0) {
        const s = use(seedStep, { name, params: { name }, inputs: {} });
        outs.push(s.out.out);
        steps.push(s);
      } else {
        const [a, b] = producers.map(([, pj]) => previous[pj]!);
        const s = use(mixStep, { name, params: { name }, inputs: { a: a!, b: b! } });
        outs.push(s.out.out);
        steps.push(s);
      }
    }
    previous = outs;
    sinks = steps;
  }
  return sinks;
}

/** A registry with one default target, `dag`, of the given shape. */
export function buildBenchTargets(shape: DagShape): TargetRegistry {
  const t = new TargetRegistry();
  t.register(
    {
      name: "dag",
      description: `synthetic benchmark DAG: ${shape.layers} layers x ${shape.width} steps, fan-in 2`,
      steps: () => benchSinks(shape),
    },
    { default: true },
  );
  return t;
}

/** Entry point for CSPIPE_DEFINITIONS. */
export function buildTargets(): TargetRegistry {
  return buildBenchTargets(shapeFromEnv(process.env));
}
