/**
 * `check-findings`: the paper's claims (claims.ts) checked against evaluation results, as
 * findings.json (schema cspipe.findings/1, rendered at the top of the report) and findings.md.
 * Its inputs are the metrics files the claims read, by name; one def per input list.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { file, type StepDef } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import type { MetricsFile } from "../eval/steps.ts";
import { checkClaim, claimSpecSchema, findingsMarkdown, inputsOf, lookupIn, type FindingsFile } from "./claims.ts";

const params = z
  .object({
    data: z.string().min(1),
    claims: z.array(claimSpecSchema).min(1),
    /** A readable label per input ("DPR (IBN), QReCC, seed 1"). */
    labels: z.record(z.string(), z.string()),
  })
  .strict();

type Inputs = { readonly [name: string]: "json:metrics" };
type Outputs = { findings: ReturnType<typeof file<"json:findings">>; markdown: ReturnType<typeof file<"text:findings-md">> };
export type CheckFindingsDef = StepDef<typeof params, Inputs, Outputs>;

/** The findings step over the named metrics inputs (the name set is its identity). */
export function checkFindingsDef(inputNames: readonly string[]): CheckFindingsDef {
  const names = [...new Set(inputNames)].sort();
  return defineStepWith({ inputNames: names }, {
    id: "check-findings",
    version: 1,
    source: import.meta.url,
    description: "The paper's claims checked against this run's evaluations: value, spread over seeds, verdict.",
    params,
    inputs: Object.fromEntries(names.map((n) => [n, "json:metrics"])) as Inputs,
    outputs: { findings: file("json:findings", "findings.json"), markdown: file("text:findings-md", "findings.md") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const files = new Map<string, MetricsFile>();
        for (const name of names) files.set(name, JSON.parse(await readFile(ctx.inputs[name]!, "utf8")) as MetricsFile);
        const look = lookupIn(files);
        const claims = ctx.params.claims.map((spec) => {
          const used = inputsOf(spec.rule);
          for (const u of used) {
            if (!files.has(u)) throw new InputError(`claim '${spec.id}' reads input '${u}', which is not wired`, { field: `claims.${spec.id}`, fix: "wire every input a claim names" });
          }
          const evidence = used.map((u) => ({ label: ctx.params.labels[u] ?? u, stepKey: ctx.inputKeys[u]!.key, stepId: ctx.inputKeys[u]!.stepId }));
          return checkClaim(spec, look, evidence);
        });
        const out: FindingsFile = { schema: "cspipe.findings/1", data: ctx.params.data, claims };
        await writeFile(ctx.outputs.findings, `${JSON.stringify(out, null, 2)}\n`);
        await writeFile(ctx.outputs.markdown, findingsMarkdown(out));
        for (const c of claims) ctx.log(`${c.id}: ${c.verdict}${c.value === null ? "" : ` (${c.value.toFixed(3)}${c.sd === null ? "" : ` ± ${c.sd.toFixed(3)}`}, ${c.seeds} seed(s))`}`);
      },
    },
  });
}
