/** Summary statistics, the results table and the CLI output parsing of the engine benchmark. Pure: no I/O. */

export interface Series {
  readonly label: string;
  /** Seconds, one per repeat (empty when the measurement failed or was skipped). */
  readonly seconds: readonly number[];
  /** Why there are no samples. */
  readonly note?: string;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function minimum(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : Math.min(...xs);
}

function fmt(x: number): string {
  return Number.isNaN(x) ? "-" : x.toFixed(3);
}

/** A fixed-width text table: measurement, median, min, max, n. */
export function renderTable(series: readonly Series[]): string {
  const header = ["measurement", "median s", "min s", "max s", "n"];
  const rows = series.map((s) => [s.label, fmt(median(s.seconds)), fmt(minimum(s.seconds)), fmt(s.seconds.length ? Math.max(...s.seconds) : Number.NaN), s.note ?? String(s.seconds.length)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

/** peer / ours on medians; NaN when either side has no samples. */
export function ratio(peer: Series, ours: Series): number {
  return median(peer.seconds) / median(ours.seconds);
}

export interface Finished {
  readonly executed: number;
  readonly cached: number;
  readonly seconds: number;
}

/** The `finished` event among the CLI's JSON lines. */
export function finishedEvent(stdout: string): Finished {
  for (const line of stdout.split("\n").reverse()) {
    if (!line.startsWith("{")) continue;
    const e = JSON.parse(line) as { type?: string } & Partial<Finished>;
    if (e.type === "finished" && typeof e.seconds === "number") return { executed: e.executed ?? -1, cached: e.cached ?? -1, seconds: e.seconds };
  }
  throw new Error(`no 'finished' event in the CLI output:\n${stdout.slice(-2000)}`);
}
