/**
 * Where a number's provenance page lives inside the report directory: one page per cache
 * key (`provenance/<key>.html`, the evaluation that produced it), and for a number averaged
 * over seeds one page listing each seed's evaluation (`provenance/seeds-<digest>.html`, named
 * by the sorted keys). Tables, figures and the findings all link through here. Pure.
 */
import { createHash } from "node:crypto";

export const PROVENANCE_DIR = "provenance";

/** The page of one entry, relative to the report root. */
export function keyPage(key: string): string {
  if (!/^[0-9a-f]{64}$/.test(key)) throw new Error(`not a cache key: '${key}'`);
  return `${PROVENANCE_DIR}/${key}.html`;
}

/** The page of a set of seeds' evaluations, relative to the report root. */
export function seedsPage(keys: readonly string[]): string {
  const sorted = [...new Set(keys)].sort();
  return `${PROVENANCE_DIR}/seeds-${createHash("sha256").update(sorted.join("\n")).digest("hex").slice(0, 16)}.html`;
}

/** The page a number links to: its entry's, or its seeds' when it averages several. */
export function numberPage(keys: readonly string[]): string {
  const unique = [...new Set(keys)];
  if (unique.length === 0) throw new Error("a number without provenance keys has no page");
  return unique.length === 1 ? keyPage(unique[0]!) : seedsPage(unique);
}
