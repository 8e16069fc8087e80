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

/** The lines redrawn in place below the scrolling ones: a bar per running step, then the overall line. */
class LiveArea {
  readonly bars = new Map<string, Bar>();
  overall: { event: Overall; at: number } | undefined;
  private drawn = 0;
  private lastDraw = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly now: () => number,
  ) {}

  private width(): number {
    return this.stream.columns !== undefined && this.stream.columns > 20 ? this.stream.columns : 100;
  }

  clear(): void {
    for (let i = 0; i < this.drawn; i++) this.stream.write("\x1b[1A\x1b[2K");
    this.drawn = 0;
  }

  private draw(): void {
    const t = this.now();
    const lines = [...this.bars.entries()].map(([n, b]) => renderBar(n, b, this.width(), t));
    if (this.overall) lines.push(renderOverall(this.overall.event, this.overall.at, this.width(), t));
    for (const l of lines) this.stream.write(`${fit(l, this.width())}\n`);
    this.drawn = lines.length;
    this.lastDraw = t;
  }

  redraw(): void {
    this.clear();
    this.draw();
  }

  /** Redraw unless the last draw was within 100 ms (or `force`). */
  redrawThrottled(force = false): void {
    if (this.now() - this.lastDraw > 100 || force) this.redraw();
  }

  /** A finished line scrolls above the area. */
  scroll(line: string): void {
    this.clear();
    this.stream.write(`${line}\n`);
    this.draw();
  }
}

type Event<T extends EngineEvent["type"]> = Extract<EngineEvent, { type: T }>;

function onProgress(area: LiveArea, e: Event<"progress">): void {
  const b = area.bars.get(e.step);
  if (b) {
    b.done = e.done;
    if (e.total !== undefined) b.total = e.total;
    if (e.label !== undefined) b.label = e.label;
  }
  area.redrawThrottled();
}

/** Overall progress: drawn at once unless it comes from a cache hit (throttled then); gone when the run finishes. */
function onOverall(area: LiveArea, e: Overall, at: number): void {
  area.overall = { event: e, at };
  if (e.trigger === "finished") {
    area.clear();
    area.overall = undefined;
    return;
  }
  area.redrawThrottled(e.trigger !== "cache-hit");
}

export function ttyReporter(stream: NodeJS.WriteStream, options: { now?: () => number; error?: (line: string) => void } = {}): (e: EngineEvent) => void {
  const now = options.now ?? (() => Date.now());
  const area = new LiveArea(stream, now);
  const plain = plainReporter((line) => area.scroll(line), options.error !== undefined ? { error: options.error } : {});
  return (e) => {
    if (e.type === "started") area.bars.set(e.step, { started: now(), done: 0 });
    if (e.type === "queue") {
      const b = area.bars.get(e.step);
      if (b) b.queue = `${e.state}: ${e.detail}`;
      return area.redraw();
    }
    if (e.type === "progress") return onProgress(area, e);
    if (e.type === "metrics") {
      const b = area.bars.get(e.step);
      if (b) b.metrics = metricsLine(e);
      return plain(e);
    }
    if (e.type === "overall") return onOverall(area, e, now());
    if (e.type === "succeeded" || e.type === "failed") area.bars.delete(e.type === "failed" ? e.failure.step : e.step);
    plain(e);
  };
}
