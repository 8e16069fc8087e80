/**
 * `check-findings`: the paper's claims (claims.ts) checked against evaluation results, as
 * findings.json (schema cspipe.findings/1, rendered at the top of the report) and findings.md.
 * Its `metrics` input is a record of the metrics files the claims read, by the names they use.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineStep, file, record, type InputKey, type StepContext } from "../../pipeline/engine/step.ts";
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

type Outputs = { findings: ReturnType<typeof file<"json:findings">>; markdown: ReturnType<typeof file<"text:findings-md">> };
type FindingsContext = Pick<StepContext<z.output<typeof params>, Record<string, never>, Outputs>, "params" | "outputs" | "log">;

const outputs: Outputs = { findings: file("json:findings", "findings.json"), markdown: file("text:findings-md", "findings.md") };
const DESCRIPTION = "The paper's claims checked against this run's evaluations: value, spread over seeds, verdict.";

/** The body of `check-findings` over the metrics files `paths` (by input name) and their producers' keys. */
async function checkFindings(ctx: FindingsContext, paths: Readonly<Record<string, string>>, keys: Readonly<Record<string, InputKey>>): Promise<void> {
  const files = new Map<string, MetricsFile>();
  for (const name of Object.keys(paths).sort()) files.set(name, JSON.parse(await readFile(paths[name]!, "utf8")) as MetricsFile);
  const look = lookupIn(files);
  const claims = ctx.params.claims.map((spec) => {
    const used = inputsOf(spec);
    for (const u of used) {
      if (!files.has(u)) throw new InputError(`claim '${spec.id}' reads input '${u}', which is not wired`, { field: `claims.${spec.id}`, fix: "wire every input a claim names" });
    }
    const evidence = used.map((u) => ({ label: ctx.params.labels[u] ?? u, stepKey: keys[u]!.key, stepId: keys[u]!.stepId }));
    return checkClaim(spec, look, evidence);
  });
  const out: FindingsFile = { schema: "cspipe.findings/1", data: ctx.params.data, claims };
  await writeFile(ctx.outputs.findings, `${JSON.stringify(out, null, 2)}\n`);
  await writeFile(ctx.outputs.markdown, findingsMarkdown(out));
  for (const c of claims) ctx.log(`${c.id}: ${c.verdict}${c.value === null ? "" : ` (${c.value.toFixed(3)}${c.sd === null ? "" : ` ± ${c.sd.toFixed(3)}`}, ${c.seeds} seed(s))`}`);
}

/** `check-findings` over the evaluations wired as `metrics`, by the names the claims use. */
export const checkFindingsStep = defineStep({
  id: "check-findings",
  version: 1,
  // Its outputs name the producers' keys (provenance links): they are in its key (step.ts provenanceKeys).
  provenanceKeys: true,
  source: import.meta.url,
  description: DESCRIPTION,
  params,
  inputs: { metrics: record("json:metrics") },
  outputs,
  runtime: { type: "in-process", run: (ctx) => checkFindings(ctx, ctx.inputs.metrics, ctx.inputKeys.metrics) },
});
