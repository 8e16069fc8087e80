/**
 * A tiny demonstration pipeline (generate -> summarise -> report) that exercises the
 * engine end to end without any dataset. Kept as the `demo` target.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineStep, file } from "../../pipeline/engine/step.ts";
import { mulberry32 } from "../lib/prng.ts";


export const generateNumbers = defineStep({
  id: "generate-numbers",
  version: 1,
  source: import.meta.url,
  description: "Write `count` seeded uniform numbers, one per line.",
  params: z.object({ count: z.number().int().positive().default(1000), seed: z.number().int().default(42) }).strict(),
  inputs: {},
  outputs: { numbers: file("text:numbers", "numbers.txt") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const rng = mulberry32(ctx.params.seed);
      const lines: string[] = [];
      for (let i = 0; i < ctx.params.count; i++) {
        lines.push(rng().toFixed(6));
        if (i % 100 === 0) ctx.progress(i, ctx.params.count, "numbers");
      }
      await writeFile(ctx.outputs.numbers, lines.join("\n") + "\n");
    },
  },
});

export const summariseNumbers = defineStep({
  id: "summarise-numbers",
  version: 1,
  source: import.meta.url,
  description: "Mean, min and max of a numbers file.",
  params: z.object({}).strict(),
  inputs: { numbers: "text:numbers" },
  outputs: { summary: file("json:summary", "summary.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const values = (await readFile(ctx.inputs.numbers, "utf8")).trim().split("\n").map(Number);
      const sum = values.reduce((a, b) => a + b, 0);
      const summary = { n: values.length, mean: sum / values.length, min: Math.min(...values), max: Math.max(...values) };
      await writeFile(ctx.outputs.summary, JSON.stringify(summary, null, 2) + "\n");
    },
  },
});

export const renderDemoReport = defineStep({
  id: "render-demo-report",
  version: 1,
  source: import.meta.url,
  description: "A Markdown table of several summaries.",
  params: z.object({ title: z.string().default("Demo") }).strict(),
  inputs: { a: "json:summary", b: "json:summary" },
  outputs: { report: file("markdown:report", "report.md") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const rows: string[] = [`# ${ctx.params.title}`, "", "| sample | n | mean | min | max |", "|---|---|---|---|---|"];
      for (const name of ["a", "b"] as const) {
        const s = JSON.parse(await readFile(ctx.inputs[name], "utf8")) as { n: number; mean: number; min: number; max: number };
        rows.push(`| ${name} | ${s.n} | ${s.mean.toFixed(4)} | ${s.min.toFixed(4)} | ${s.max.toFixed(4)} |`);
      }
      await writeFile(ctx.outputs.report, rows.join("\n") + "\n");
    },
  },
});
