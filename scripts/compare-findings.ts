/**
 * Two runs' findings side by side (findings.json, schema cspipe.findings/1): each claim's value
 * (mean ± sd over seeds) and verdict in run A and run B, and whether the verdict differs. Used
 * to check that the default run's verdicts survive a perturbation that should not matter
 * (README: "Verdicts under a perturbation").
 *
 *   npx tsx scripts/compare-findings.ts A/findings.json B/findings.json [--labels "pinned,Prescott"]
 *
 * Prints a Markdown table; exits 1 when a verdict differs, 2 on bad input.
 */
import { readFileSync } from "node:fs";
import { parseFindings, UNIT_FORMAT, type Claim } from "../steps/report/findings.ts";

/** A findings.json's claims by id, read through the one findings schema (errors name the file and field). */
export function readClaims(path: string): Map<string, Claim> {
  return new Map(parseFindings(readFileSync(path, "utf8"), path).claims.map((c) => [c.id, c]));
}

/** A claim's value with the findings' decimals per unit (UNIT_FORMAT); gains (points, fractions) signed; "-" when absent. */
export function valueText(c: Claim | undefined): string {
  if (c === undefined || c.value === null) return "-";
  const d = UNIT_FORMAT[c.unit].digits;
  const sign = (c.unit === "points" || c.unit === "fraction") && c.value > 0 ? "+" : "";
  return `${sign}${c.value.toFixed(d)}${c.sd === null ? "" : ` ± ${c.sd.toFixed(d)}`}`;
}

export function compareFindings(a: Map<string, Claim>, b: Map<string, Claim>, labels: readonly [string, string]): { markdown: string; flips: number } {
  const ids = [...new Set([...a.keys(), ...b.keys()])];
  const lines = [`| claim | ${labels[0]} | ${labels[1]} | verdict ${labels[0]} | verdict ${labels[1]} | same verdict |`, "|---|---:|---:|---|---|---|"];
  let flips = 0;
  for (const id of ids) {
    const x = a.get(id);
    const y = b.get(id);
    const same = x?.verdict === y?.verdict;
    if (!same) flips++;
    lines.push(`| ${(x ?? y)!.title} | ${valueText(x)} | ${valueText(y)} | ${x?.verdict ?? "-"} | ${y?.verdict ?? "-"} | ${same ? "yes" : "**no**"} |`);
  }
  lines.push("", `${ids.length} claims, ${flips} verdict${flips === 1 ? "" : "s"} differ${flips === 1 ? "s" : ""}.`);
  return { markdown: lines.join("\n"), flips };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const li = args.indexOf("--labels");
  const labels = (li >= 0 ? args[li + 1]!.split(",") : ["A", "B"]) as [string, string];
  const files = args.filter((x, i) => i !== li && i !== li + 1);
  try {
    if (files.length !== 2) throw new Error("usage: compare-findings.ts A/findings.json B/findings.json [--labels a,b]");
    const r = compareFindings(readClaims(files[0]!), readClaims(files[1]!), labels);
    process.stdout.write(r.markdown + "\n");
    process.exitCode = r.flips > 0 ? 1 : 0;
  } catch (e) {
    process.stderr.write(`compare-findings: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
