/**
 * TTY reporter: finished steps scroll as plain lines; running steps are redrawn below
 * them as progress bars with counts and an ETA (from the rate since the step started).
 */
import type { EngineEvent } from "../engine/events.ts";
import { plainReporter } from "./plain.ts";

interface Bar {
  started: number;
  done: number;
  total?: number;
  label?: string;
}

export function formatEta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "--:--";
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export function renderBar(name: string, bar: Bar, width: number, now: number): string {
  const elapsed = (now - bar.started) / 1000;
  if (bar.total === undefined || bar.total <= 0) return `  ${name} ${bar.done}${bar.label ? ` ${bar.label}` : ""} (${formatEta(elapsed)} elapsed)`;
  const frac = Math.min(1, bar.done / bar.total);
  const cells = Math.max(10, Math.min(30, width - name.length - 40));
  const filled = Math.round(frac * cells);
  const eta = bar.done > 0 ? (elapsed / bar.done) * (bar.total - bar.done) : NaN;
  return `  ${name} [${"#".repeat(filled)}${"-".repeat(cells - filled)}] ${bar.done}/${bar.total} ${(frac * 100).toFixed(0)}% eta ${formatEta(eta)}`;
}

export function ttyReporter(stream: NodeJS.WriteStream): (e: EngineEvent) => void {
  const bars = new Map<string, Bar>();
  let drawn = 0;
  let lastDraw = 0;
  const clear = () => {
    for (let i = 0; i < drawn; i++) stream.write("\x1b[1A\x1b[2K");
    drawn = 0;
  };
  const draw = () => {
    const now = Date.now();
    const lines = [...bars.entries()].map(([n, b]) => renderBar(n, b, stream.columns ?? 100, now));
    for (const l of lines) stream.write(`${l}\n`);
    drawn = lines.length;
    lastDraw = now;
  };
  const plain = plainReporter((line) => {
    clear();
    stream.write(`${line}\n`);
    draw();
  });
  return (e) => {
    if (e.type === "started") bars.set(e.step, { started: Date.now(), done: 0 });
    if (e.type === "progress") {
      const b = bars.get(e.step);
      if (b) {
        b.done = e.done;
        if (e.total !== undefined) b.total = e.total;
        if (e.label !== undefined) b.label = e.label;
        if (Date.now() - lastDraw > 100) {
          clear();
          draw();
        }
      }
      return;
    }
    if (e.type === "succeeded" || e.type === "failed") bars.delete(e.type === "failed" ? e.failure.step : e.step);
    plain(e);
  };
}
