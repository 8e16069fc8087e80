/**
 * Several stages' findings as one (`merge-findings`): a report that shows the dense claims,
 * Table 5's and table-dcsr's renders one findings section. Pure core (`mergeFindings`) and a
 * step whose `findings` input is a list; claims keep its order.
 * Rules: every input's `data` must be the same source; a claim id may appear once in all of
 * them (an error names both files); each input is validated as findings.json is everywhere.
 */
import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { defineStep, file, list } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { parseFindings, type Findings } from "./findings.ts";

export function mergeFindings(parts: readonly { readonly findings: Findings; readonly file: string }[]): Findings {
  const first = parts[0];
  if (first === undefined) throw new InputError("no findings to merge", { fix: "wire at least one findings input" });
  const seen = new Map<string, string>();
  const claims: Findings["claims"] = [];
  for (const p of parts) {
    if (p.findings.data !== first.findings.data) {
      throw new InputError(`findings on '${p.findings.data}' data beside findings on '${first.findings.data}' data (${first.file})`, { file: p.file, field: "data", fix: "merge the findings of one data source" });
    }
    for (const c of p.findings.claims) {
      const other = seen.get(c.id);
      if (other !== undefined) throw new InputError(`claim id '${c.id}' is also in ${other}`, { file: p.file, field: `claims.${c.id}`, fix: "give each stage's claims their own ids" });
      seen.set(c.id, p.file);
      claims.push(c);
    }
  }
  return { schema: "cspipe.findings/1", data: first.findings.data, claims };
}

/** `merge-findings`: the findings wired as `findings`, merged in that order. */
export const mergeFindingsStep = defineStep({
  id: "merge-findings",
  version: 1,
  source: import.meta.url,
  description: "Several stages' findings.json as one, claims in input order.",
  params: z.object({}).strict(),
  inputs: { findings: list("json:findings") },
  outputs: { findings: file("json:findings", "findings.json") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const parts = [];
      for (const path of ctx.inputs.findings) parts.push({ findings: parseFindings(await readFile(path, "utf8"), path), file: path });
      const merged = mergeFindings(parts);
      await writeFile(ctx.outputs.findings, JSON.stringify(merged, null, 2) + "\n");
      ctx.log(`${merged.claims.length} claims from ${parts.length} findings`);
    },
  },
});
