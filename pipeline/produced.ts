/**
 * The end of a run names what it produced: each target's exported folder (`results/<target>/`,
 * `report/`) with what it holds, and, for targets that export nothing (e.g. `data`), where their
 * outputs are in the store. `--json` prints one `exported` object per export and one `produced`
 * object per such store entry.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { Entry, Store } from "./engine/store.ts";

/** An export copied out after a run (session.ts ExportedOutput). */
interface Exported {
  readonly target: string;
  readonly name: string;
  readonly path: string;
  readonly step: string;
  readonly key: string;
}

/** What a target that exports nothing produced: its sink steps' entries in the store. */
export interface ProducedEntry {
  readonly target: string;
  readonly step: string;
  readonly key: string;
  /** Output name -> its path in the store. */
  readonly outputs: Readonly<Record<string, string>>;
}

/** The sink entries of the targets that export nothing (e.g. `data`), so a run can name what they produced. */
export function producedEntries(store: Store, sinksOf: ReadonlyMap<string, readonly string[]>, exports: readonly { readonly target: string }[], results: ReadonlyMap<string, { readonly entry?: Entry }>): ProducedEntry[] {
  const out: ProducedEntry[] = [];
  for (const [target, steps] of sinksOf) {
    if (exports.some((e) => e.target === target)) continue;
    for (const step of steps) {
      const entry = results.get(step)?.entry;
      if (entry !== undefined) out.push({ target, step, key: entry.key, outputs: Object.fromEntries(Object.keys(entry.manifest.outputs).sort().map((o) => [o, store.outputPath(entry, o)])) });
    }
  }
  return out;
}

/** A folder's entries as a short list ("a.csv, b.md, figures/"), or the file's own name. */
function contents(path: string): string {
  try {
    if (!statSync(path).isDirectory()) return basename(path);
    const names = readdirSync(path, { withFileTypes: true }).map((d) => (d.isDirectory() ? `${d.name}/` : d.name)).sort();
    return names.length > 8 ? `${names.slice(0, 8).join(", ")}, ... (${names.length} in all)` : names.join(", ");
  } catch {
    return "?";
  }
}

/** One line per target: where its exports are and what they hold. */
export function exportedLines(exported: readonly Exported[]): string[] {
  const byTarget = new Map<string, Exported[]>();
  for (const e of exported) byTarget.set(e.target, [...(byTarget.get(e.target) ?? []), e]);
  return [...byTarget].map(([target, es]) => {
    if (es.length === 1) return `${target}: ${es[0]!.path}${statSync(es[0]!.path).isDirectory() ? "/" : ""} (${contents(es[0]!.path)})`;
    const folder = dirname(es[0]!.path);
    return `${target}: ${folder}/ (${es.map((e) => basename(e.path) + (statSync(e.path).isDirectory() ? "/" : "")).join(", ")})`;
  });
}

/** Targets that export nothing: their sink steps' outputs in the store. */
export function producedLines(produced: readonly ProducedEntry[]): string[] {
  const lines: string[] = [];
  for (const target of [...new Set(produced.map((p) => p.target))]) {
    lines.push(`${target}: exports no files; its results are in the store ('show ${target}' tells more):`);
    for (const p of produced.filter((x) => x.target === target)) {
      const dirs = [...new Set(Object.values(p.outputs).map((o) => dirname(o)))];
      lines.push(`  ${p.step}  ${dirs.length === 1 ? `${dirs[0]}/ (${Object.values(p.outputs).map((o) => basename(o)).join(", ")})` : Object.values(p.outputs).join(", ")}`);
    }
  }
  return lines;
}

/** The lines `run` prints after a successful run. */
export function producedReport(exported: readonly Exported[], produced: readonly ProducedEntry[], json: boolean): string[] {
  if (json) {
    return [
      ...exported.map((e) => JSON.stringify({ type: "exported", target: e.target, name: e.name, path: e.path, step: e.step, key: e.key })),
      ...produced.map((p) => JSON.stringify({ type: "produced", ...p })),
    ];
  }
  return [...exportedLines(exported), ...producedLines(produced)];
}
