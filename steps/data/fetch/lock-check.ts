/**
 * `lock --check`: what in datasets.lock is not yet pinned or is ambiguous. Pure: no I/O.
 */
import type { LockFile } from "../../../pipeline/engine/datasets-lock.ts";

export type LockProblemKind = "unpinned-sha256" | "unknown-size" | "duplicate-file" | "no-https-url";

export interface LockProblem {
  readonly kind: LockProblemKind;
  /** Entry names involved, sorted. */
  readonly entries: readonly string[];
  readonly message: string;
  /** Whether this blocks a verified fetch (an unpinned digest does; an unknown size does not). */
  readonly severity: "error" | "warning";
}

export interface LockCheckReport {
  readonly entryCount: number;
  /** Sorted names with sha256 === null. */
  readonly unpinned: readonly string[];
  /** Sorted names with size === null. */
  readonly unknownSize: readonly string[];
  /** File names used by more than one entry (they would collide in --data-dir and in a fetch directory). */
  readonly duplicateFiles: readonly { readonly file: string; readonly entries: readonly string[] }[];
  readonly problems: readonly LockProblem[];
  /** True when every entry is pinned and nothing is ambiguous. */
  readonly ok: boolean;
}

export function checkLock(lock: LockFile): LockCheckReport {
  const names = Object.keys(lock.entries).sort();
  const unpinned: string[] = [];
  const unknownSize: string[] = [];
  const byFile = new Map<string, string[]>();
  const noHttps: string[] = [];
  for (const name of names) {
    const entry = lock.entries[name];
    if (!entry) continue;
    if (entry.sha256 === null) unpinned.push(name);
    if (entry.size === null) unknownSize.push(name);
    const list = byFile.get(entry.file) ?? [];
    list.push(name);
    byFile.set(entry.file, list);
    if (!entry.urls.some((u) => u.startsWith("https://"))) noHttps.push(name);
  }
  const duplicateFiles = [...byFile.entries()]
    .filter(([, list]) => list.length > 1)
    .map(([file, list]) => ({ file, entries: list }))
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));

  const problems: LockProblem[] = [];
  for (const name of unpinned) {
    const e = lock.entries[name]!;
    const message = `${name}: sha256 is null; get ${e.file} from ${e.urls.join(" or ")}, then 'lock --update ${name} --data-dir <dir>' (or 'lock --update ${name}' on a machine with internet)`;
    problems.push({ kind: "unpinned-sha256", entries: [name], severity: "error", message });
  }
  for (const name of unknownSize) {
    problems.push({ kind: "unknown-size", entries: [name], severity: "warning", message: `${name}: size is null (filled by 'lock --update ${name}')` });
  }
  for (const dup of duplicateFiles) {
    problems.push({ kind: "duplicate-file", entries: dup.entries, severity: "error", message: `file name '${dup.file}' is used by ${dup.entries.join(", ")}; give each entry its own 'file'` });
  }
  for (const name of noHttps) {
    problems.push({ kind: "no-https-url", entries: [name], severity: "warning", message: `${name}: no https URL (plain http can be tampered with; the sha256 still protects a pinned entry)` });
  }
  return {
    entryCount: names.length,
    unpinned,
    unknownSize,
    duplicateFiles,
    problems,
    ok: problems.every((p) => p.severity !== "error"),
  };
}

/** Plain-text rendering for the CLI (one line per problem, then a summary line). */
export function formatLockCheck(report: LockCheckReport): string {
  const lines = report.problems.map((p) => `${p.severity}: ${p.message}`);
  lines.push(`${report.entryCount} entries, ${report.entryCount - report.unpinned.length} pinned, ${report.unpinned.length} unpinned, ${report.duplicateFiles.length} duplicate file names: ${report.ok ? "ok" : "not ok"}`);
  return lines.join("\n") + "\n";
}
