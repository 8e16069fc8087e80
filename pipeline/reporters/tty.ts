/**
 * TTY reporter: finished steps scroll as plain lines; below them, redrawn in place, a bar
 * per running step (counts, ETA from its rate so far, and for a training step its latest
 * epoch's train loss and dev recall) and one line of overall progress: steps done of total,
 * cached vs run, elapsed, and the expected time left (`overall` events, overall.ts).
 */
import type { EngineEvent } from "../engine/events.ts";
import { plainReporter } from "./plain.ts";
import { formatDuration, metricsLine, overallLine } from "./overall.ts";

interface Bar {
  started: number;
  done: number;
  total?: number;
  label?: string;
  /** The latest metrics of the step ("epoch 2: train loss 0.4120, dev R@5 45.1%"). */
  metrics?: string;
  /** Where its batch job is ("pending: Resources", "running on n2"). */
  queue?: string;
}

export const formatEta = formatDuration;

export function renderBar(name: string, bar: Bar, width: number, now: number): string {
  const elapsed = (now - bar.started) / 1000;
  const tail = `${bar.queue ? ` · ${bar.queue}` : ""}${bar.metrics ? ` · ${bar.metrics}` : ""}`;
  if (bar.total === undefined || bar.total <= 0) return `  ${name} ${bar.done}${bar.label ? ` ${bar.label}` : ""} (${formatEta(elapsed)} elapsed)${tail}`;
  const frac = Math.min(1, bar.done / bar.total);
  const cells = Math.max(10, Math.min(30, width - name.length - 40));
  const filled = Math.round(frac * cells);
  const eta = bar.done > 0 ? (elapsed / bar.done) * (bar.total - bar.done) : NaN;
  return `  ${name} [${"#".repeat(filled)}${"-".repeat(cells - filled)}] ${bar.done}/${bar.total}${bar.label ? ` ${bar.label}` : ""} ${(frac * 100).toFixed(0)}% eta ${formatEta(eta)}${tail}`;
}

type Overall = Extract<EngineEvent, { type: "overall" }>;

/** The overall line: a bar of steps done, the counts, and the ETA counted down since the event. */
export function renderOverall(o: Overall, receivedAt: number, width: number, now: number): string {
  const cells = Math.max(10, Math.min(30, width - 100));
  const frac = o.total > 0 ? Math.min(1, o.done / o.total) : 0;
  const filled = Math.round(frac * cells);
  const since = (now - receivedAt) / 1000;
  const eta = o.etaSeconds === null ? null : Math.max(0, o.etaSeconds - since);
  return `[${"=".repeat(filled)}${" ".repeat(cells - filled)}] ${overallLine({ ...o, elapsedSeconds: o.elapsedSeconds + since }, eta)}`;
}

/** Cut a line to the terminal width so a redraw never wraps (wrapped lines would not be cleared). */
const fit = (line: string, width: number): string => (line.length < width ? line : `${line.slice(0, Math.max(0, width - 2))}…`);

export function ttyReporter(stream: NodeJS.WriteStream, options: { now?: () => number; error?: (line: string) => void } = {}): (e: EngineEvent) => void {
  const now = options.now ?? (() => Date.now());
  const bars = new Map<string, Bar>();
  let overall: { event: Overall; at: number } | undefined;
  let drawn = 0;
  let lastDraw = 0;
  const width = () => (stream.columns !== undefined && stream.columns > 20 ? stream.columns : 100);
  const clear = () => {
    for (let i = 0; i < drawn; i++) stream.write("\x1b[1A\x1b[2K");
    drawn = 0;
  };
  const draw = () => {
    const t = now();
    const lines = [...bars.entries()].map(([n, b]) => renderBar(n, b, width(), t));
    if (overall) lines.push(renderOverall(overall.event, overall.at, width(), t));
    for (const l of lines) stream.write(`${fit(l, width())}\n`);
    drawn = lines.length;
    lastDraw = t;
  };
  const plain = plainReporter(
    (line) => {
      clear();
      stream.write(`${line}\n`);
      draw();
    },
    options.error !== undefined ? { error: options.error } : {},
  );
  return (e) => {
    if (e.type === "started") bars.set(e.step, { started: now(), done: 0 });
    if (e.type === "queue") {
      const b = bars.get(e.step);
      if (b) b.queue = `${e.state}: ${e.detail}`;
      clear();
      draw();
      return;
    }
    if (e.type === "progress" || e.type === "metrics") {
      const b = bars.get(e.step);
      if (b && e.type === "progress") {
        b.done = e.done;
        if (e.total !== undefined) b.total = e.total;
        if (e.label !== undefined) b.label = e.label;
      }
      if (b && e.type === "metrics") b.metrics = metricsLine(e);
      if (e.type === "metrics") plain(e);
      else if (now() - lastDraw > 100) {
        clear();
        draw();
      }
      return;
    }
    if (e.type === "overall") {
      overall = { event: e, at: now() };
      if (e.trigger === "finished") {
        clear();
        overall = undefined;
        return;
      }
      if (now() - lastDraw > 100 || e.trigger !== "cache-hit") {
        clear();
        draw();
      }
      return;
    }
    if (e.type === "succeeded" || e.type === "failed") bars.delete(e.type === "failed" ? e.failure.step : e.step);
    plain(e);
  };
}
