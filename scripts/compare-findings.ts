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

interface Claim {
  readonly id: string;
  readonly title: string;
  readonly value: number | null;
  readonly sd: number | null;
  readonly seeds: number;
  readonly unit: "ratio" | "points" | "fraction";
  readonly verdict: string;
}

function read(path: string): Map<string, Claim> {
  let parsed: { schema?: string; claims?: Claim[] };
  try {
    parsed = JSON.parse(readFileSync(path, "utf8")) as typeof parsed;
  } catch (e) {
    throw new Error(`${path}: ${(e as Error).message}. Fix: pass a findings.json written by a check-findings step`);
  }
  if (parsed.schema !== "cspipe.findings/1" || !Array.isArray(parsed.claims)) throw new Error(`${path}: not a cspipe.findings/1 file. Fix: pass a findings.json written by a check-findings step`);
  return new Map(parsed.claims.map((c) => [c.id, c]));
}

/** A claim's value as the findings print it: points to one decimal, ratios to two, fractions to three. */
export function valueText(c: Claim | undefined): string {
  if (c === undefined || c.value === null) return "-";
  const d = c.unit === "points" ? 1 : c.unit === "ratio" ? 2 : 3;
  const sign = c.unit === "ratio" ? "" : c.value > 0 ? "+" : "";
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
    const r = compareFindings(read(files[0]!), read(files[1]!), labels);
    process.stdout.write(r.markdown + "\n");
    process.exitCode = r.flips > 0 ? 1 : 0;
  } catch (e) {
    process.stderr.write(`compare-findings: ${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
