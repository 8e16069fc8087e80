/**
 * The findings: the paper's claims, each with what we computed, the rule for the verdict and
 * the verdict, as a step writes them (`findings.json`, kind `json:findings`, schema
 * `cspipe.findings/1`). Validated here (one schema in one place) and rendered at the top of
 * the report: value ± sd, the verdict coloured, and links to the provenance pages of the
 * evaluations behind it. Pure.
 */
import { z } from "zod";
import { InputError } from "../../pipeline/engine/errors.ts";
import { formatNumber } from "./format.ts";
import { el, raw, type Html } from "./html.ts";
import { labelHtml, labelMarkdown } from "./label.ts";
import { directionSchema, seedCount } from "../findings/claims.ts";

export const VERDICTS = ["holds", "does-not-hold", "inconclusive"] as const;

export const findingsSchema = z
  .object({
    schema: z.literal("cspipe.findings/1"),
    data: z.enum(["mini", "real"]),
    claims: z.array(
      z
        .object({
          id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lowercase letters, digits and dashes"),
          title: z.string().min(1),
          paper: z.string(),
          measure: z.string(),
          value: z.number().finite().nullable(),
          sd: z.number().finite().nonnegative().nullable(),
          seeds: z.number().int().nonnegative(),
          unit: z.enum(["ratio", "percent", "points", "fraction"]),
          threshold: z.string(),
          verdict: z.enum(VERDICTS),
          /** One value per seed (claims.ts Finding.perSeed); older files may lack it. */
          perSeed: z.array(z.number().finite()).optional(),
          /** A claim over units (θ0s with several fine-tunings each): each unit's seed and its replicates' values (claims.ts Finding.units). */
          units: z.array(z.object({ seed: z.number().int(), values: z.array(z.number().finite()) }).strict()).optional(),
          /** A rise's gain per step, one value per seed each (claims.ts Finding.steps); older files lack it. */
          steps: z.array(z.array(z.number().finite())).optional(),
          /** The rule in numbers (claims.ts Finding.decision); files written before it lack it. */
          decision: z.object({ rule: z.string().min(1), threshold: z.number().finite(), direction: directionSchema }).strict().optional(),
          /** A gain claim's ceiling check (steps/findings/claims.ts CeilingCheck): its text is shown under the rule. */
          ceiling: z.object({ text: z.string().min(1), measurable: z.boolean().nullable() }).loose().optional(),
          evidence: z.array(z.object({ label: z.string().min(1), stepKey: z.string().regex(/^[0-9a-f]{64}$/, "a 64-hex cache key"), stepId: z.string().min(1) }).strict()),
        })
        .loose(),
    ),
  })
  .loose();

export type Findings = z.infer<typeof findingsSchema>;
export type Claim = Findings["claims"][number];

/** Parse and validate findings.json text; errors name the file and the field. */
export function parseFindings(text: string, file: string): Findings {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new InputError(`not JSON: ${(e as Error).message}`, { file, fix: "rerun the step that writes the findings" });
  }
  const r = findingsSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new InputError(issue.message, { file, field: issue.path.join("."), fix: "write findings in the cspipe.findings/1 schema (steps/report/findings.ts)" });
  }
  const ids = new Set<string>();
  for (const c of r.data.claims) {
    if (ids.has(c.id)) throw new InputError(`claim id '${c.id}' appears twice`, { file, field: `claims.${c.id}`, fix: "give each claim a unique id" });
    ids.add(c.id);
  }
  return r.data;
}

/** How a claim's value prints per unit (claimValue; scripts/compare-findings.ts uses the digits). */
export const UNIT_FORMAT: Readonly<Record<Claim["unit"], { digits: number; suffix: string; scale: number }>> = {
  ratio: { digits: 2, suffix: "", scale: 1 },
  fraction: { digits: 3, suffix: "", scale: 1 },
  percent: { digits: 1, suffix: "%", scale: 1 },
  points: { digits: 1, suffix: " points", scale: 1 },
};

/** "0.69 ± 0.03 (3 seeds)", "0.55 ± 0.04 (10 θ0s × 3 fine-tunings, averaged per θ0)", "58.3%", or "no value". */
export function claimValue(c: Claim): string {
  if (c.value === null) return "no value";
  const u = UNIT_FORMAT[c.unit];
  const f = (v: number): string => formatNumber(v * u.scale, { kind: "fixed", digits: u.digits });
  const sd = c.sd === null ? "" : ` ± ${f(c.sd)}`;
  const seeds = c.seeds > 1 ? ` (${seedCount(c)})` : "";
  return `${f(c.value)}${sd}${u.suffix}${seeds}`;
}

const VERDICT_TEXT: Readonly<Record<Claim["verdict"], string>> = { holds: "holds", "does-not-hold": "does not hold", inconclusive: "inconclusive" };

export function findingsHtml(f: Findings, href: (key: string) => string | undefined): Html {
  return el(
    "section",
    { class: "findings", id: "findings" },
    el("h2", {}, "Findings"),
    el("p", { class: "caption" }, `The paper's claims, checked on the ${f.data} data. Each verdict follows the rule stated under it; the evidence links lead to the evaluations behind the value.`),
    ...f.claims.map((c) =>
      el(
        "div",
        { class: `claim ${c.verdict}`, id: `claim-${c.id}` },
        el("h3", {}, raw(labelHtml(c.title)), " ", el("span", { class: `verdict ${c.verdict}` }, VERDICT_TEXT[c.verdict])),
        el("p", {}, el("strong", {}, "Paper: "), raw(labelHtml(c.paper))),
        el("p", {}, el("strong", {}, "Ours: "), raw(labelHtml(c.measure)), " = ", el("strong", {}, claimValue(c))),
        el("p", { class: "caption" }, "Rule: ", raw(labelHtml(c.threshold))),
        c.ceiling === undefined ? raw("") : el("p", { class: "caption" }, "Ceiling: ", raw(labelHtml(c.ceiling.text))),
        c.evidence.length === 0
          ? raw("")
          : el("p", { class: "caption" }, "Evidence: ", ...c.evidence.flatMap((e, i) => {
              const h = href(e.stepKey);
              return [i > 0 ? raw(" · ") : raw(""), h === undefined ? raw(labelHtml(e.label)) : el("a", { href: h, title: `${e.stepId} ${e.stepKey}` }, raw(labelHtml(e.label)))];
            })),
      ),
    ),
  );
}

export function findingsMarkdown(f: Findings, href: (key: string) => string | undefined): string {
  const md = ["## Findings", "", `The paper's claims, checked on the ${f.data} data.`, ""];
  for (const c of f.claims) {
    md.push(`### ${labelMarkdown(c.title)}: **${VERDICT_TEXT[c.verdict]}**`, "");
    md.push(`- Paper: ${labelMarkdown(c.paper)}`, `- Ours: ${labelMarkdown(c.measure)} = **${claimValue(c)}**`, `- Rule: ${labelMarkdown(c.threshold)}`);
    if (c.ceiling !== undefined) md.push(`- Ceiling: ${labelMarkdown(c.ceiling.text)}`);
    if (c.evidence.length > 0) {
      md.push(`- Evidence: ${c.evidence.map((e) => {
        const h = href(e.stepKey);
        return h === undefined ? labelMarkdown(e.label) : `[${labelMarkdown(e.label)}](${h})`;
      }).join(" · ")}`);
    }
    md.push("");
  }
  return md.join("\n");
}
