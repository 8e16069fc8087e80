/**
 * A small, dependency-free SVG renderer for the paper's figures: grouped bar charts
 * (Figure 2: recall per query form / model, per dataset or question type) and line
 * charts (Figures 3 and 4: metric per training iteration, one line per question type).
 *
 * Output is deterministic (fixed palette, coordinates rounded to 2 decimals, no ids
 * derived from time or randomness), self-contained, and every mark carries data-*
 * attributes plus a <title> tooltip so tests and readers can find the numbers.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { escapeXml, formatNumber } from "./format.ts";
import type { NumberFormat } from "./format.ts";

export interface Series {
  readonly name: string;
  /** One value per category / x position; null = no data (no bar, a gap in the line). */
  readonly values: readonly (number | null)[];
}

interface ChartBase {
  readonly title: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  /** Upper end of the y axis; default: a round number above the largest value. */
  readonly yMax?: number;
  /** How values are printed in labels and tooltips; default 3 decimals. */
  readonly valueFormat?: NumberFormat;
  readonly width?: number;
  readonly height?: number;
}

export interface BarChartSpec extends ChartBase {
  /** Groups along the x axis (e.g. query forms); each group has one bar per series. */
  readonly categories: readonly string[];
}

export interface LineChartSpec extends ChartBase {
  readonly xLabel: string;
  /** Labels of the x positions (e.g. iterations "0".."3"), evenly spaced. */
  readonly x: readonly string[];
}

/** Colour-blind-safe palette (Okabe-Ito), used in series order. */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"] as const;

const MARGIN = { top: 40, right: 150, bottom: 60, left: 60 };

const n2 = (x: number): string => {
  const s = (Math.round(x * 100) / 100).toFixed(2).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
};

/** A "nice" axis maximum (1, 2, 2.5 or 5 times a power of ten) at or above `max`. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= max - 1e-12) return m * p;
  return 10 * p;
}

function validate(kind: string, labels: readonly string[], base: ChartBase): void {
  if (labels.length === 0) throw new InputError(`${kind} '${base.title}' has no x positions`, { field: "categories", fix: "give at least one category / x label" });
  if (base.series.length === 0) throw new InputError(`${kind} '${base.title}' has no series`, { field: "series", fix: "give at least one series" });
  for (const s of base.series) {
    if (s.values.length !== labels.length) {
      throw new InputError(`series '${s.name}' has ${s.values.length} values for ${labels.length} x positions`, { field: `series.${s.name}`, fix: "give one value (or null) per category" });
    }
    for (const v of s.values) {
      if (v !== null && !Number.isFinite(v)) throw new InputError(`series '${s.name}' holds ${v}`, { field: `series.${s.name}`, fix: "use finite numbers or null" });
    }
  }
}

interface Frame {
  readonly width: number;
  readonly height: number;
  readonly plotW: number;
  readonly plotH: number;
  readonly yMax: number;
  readonly fmt: NumberFormat;
  readonly y: (v: number) => number;
}

function frame(base: ChartBase): Frame {
  const width = base.width ?? 640;
  const height = base.height ?? 360;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  let dataMax = 0;
  for (const s of base.series) for (const v of s.values) if (v !== null && v > dataMax) dataMax = v;
  const yMax = base.yMax ?? niceMax(dataMax);
  const fmt = base.valueFormat ?? { kind: "fixed", digits: 3 };
  return { width, height, plotW, plotH, yMax, fmt, y: (v) => MARGIN.top + plotH - (Math.max(0, Math.min(v, yMax)) / yMax) * plotH };
}

function open(f: Frame, title: string, kind: string): string[] {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" font-family="sans-serif" font-size="12" data-chart="${kind}">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
    `<text x="${n2(f.width / 2)}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
}

function yAxis(f: Frame, label: string): string[] {
  const out = [`<g class="axis y-axis">`];
  const ticks = 5;
  for (let i = 0; i <= ticks; i++) {
    const v = (f.yMax * i) / ticks;
    const y = n2(f.y(v));
    out.push(`<line x1="${MARGIN.left - 4}" y1="${y}" x2="${MARGIN.left + f.plotW}" y2="${y}" stroke="${i === 0 ? "#000000" : "#dddddd"}"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(formatNumber(v, f.fmt))}</text>`);
  }
  out.push(`<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${MARGIN.top + f.plotH}" stroke="#000000"/>`);
  const cy = n2(MARGIN.top + f.plotH / 2);
  out.push(`<text x="16" y="${cy}" text-anchor="middle" transform="rotate(-90 16 ${cy})">${escapeXml(label)}</text>`);
  out.push(`</g>`);
  return out;
}

function xLabels(f: Frame, labels: readonly string[], center: (i: number) => number, axisLabel?: string): string[] {
  const out = [`<g class="axis x-axis">`];
  const base = MARGIN.top + f.plotH;
  labels.forEach((label, i) => {
    out.push(`<text x="${n2(center(i))}" y="${base + 18}" text-anchor="middle">${escapeXml(label)}</text>`);
  });
  if (axisLabel !== undefined) out.push(`<text x="${n2(MARGIN.left + f.plotW / 2)}" y="${base + 44}" text-anchor="middle">${escapeXml(axisLabel)}</text>`);
  out.push(`</g>`);
  return out;
}

function legend(f: Frame, series: readonly Series[], marker: "rect" | "line"): string[] {
  const out = [`<g class="legend">`];
  const x = MARGIN.left + f.plotW + 16;
  series.forEach((s, i) => {
    const y = MARGIN.top + 8 + i * 20;
    const colour = PALETTE[i % PALETTE.length]!;
    out.push(
      marker === "rect"
        ? `<rect x="${x}" y="${y - 6}" width="12" height="12" fill="${colour}"/>`
        : `<line x1="${x}" y1="${y}" x2="${x + 14}" y2="${y}" stroke="${colour}" stroke-width="2"/>`,
    );
    out.push(`<text x="${x + 20}" y="${y}" dominant-baseline="middle" data-series="${escapeXml(s.name)}">${escapeXml(s.name)}</text>`);
  });
  out.push(`</g>`);
  return out;
}

/** Grouped bar chart: one group per category, one bar per series, value labels on top. */
export function renderBarChartSvg(spec: BarChartSpec): string {
  validate("bar chart", spec.categories, spec);
  const f = frame(spec);
  const groupW = f.plotW / spec.categories.length;
  const barW = (groupW * 0.8) / spec.series.length;
  const center = (i: number): number => MARGIN.left + groupW * (i + 0.5);
  const out = [...open(f, spec.title, "bar"), ...yAxis(f, spec.yLabel), `<g class="marks">`];
  spec.categories.forEach((category, ci) => {
    spec.series.forEach((s, si) => {
      const v = s.values[ci]!;
      if (v === null) return;
      const x = MARGIN.left + groupW * ci + groupW * 0.1 + barW * si;
      const y = f.y(v);
      const h = MARGIN.top + f.plotH - y;
      const text = formatNumber(v, f.fmt);
      out.push(
        `<rect class="bar" x="${n2(x)}" y="${n2(y)}" width="${n2(barW)}" height="${n2(h)}" fill="${PALETTE[si % PALETTE.length]}" data-series="${escapeXml(s.name)}" data-category="${escapeXml(category)}" data-value="${v}"><title>${escapeXml(`${s.name}, ${category}: ${text}`)}</title></rect>`,
      );
      out.push(`<text class="value" x="${n2(x + barW / 2)}" y="${n2(y - 3)}" text-anchor="middle" font-size="9">${escapeXml(text)}</text>`);
    });
  });
  out.push(`</g>`, ...xLabels(f, spec.categories, center), ...legend(f, spec.series, "rect"), `</svg>`);
  return out.join("\n") + "\n";
}

/** Line chart: one polyline per series over evenly spaced x positions; null values break the line. */
export function renderLineChartSvg(spec: LineChartSpec): string {
  validate("line chart", spec.x, spec);
  const f = frame(spec);
  const step = spec.x.length === 1 ? 0 : f.plotW / (spec.x.length - 1);
  const px = (i: number): number => (spec.x.length === 1 ? MARGIN.left + f.plotW / 2 : MARGIN.left + step * i);
  const out = [...open(f, spec.title, "line"), ...yAxis(f, spec.yLabel), `<g class="marks">`];
  spec.series.forEach((s, si) => {
    const colour = PALETTE[si % PALETTE.length]!;
    let segment: string[] = [];
    const flush = (): void => {
      if (segment.length > 1) out.push(`<polyline class="line" points="${segment.join(" ")}" fill="none" stroke="${colour}" stroke-width="2" data-series="${escapeXml(s.name)}"/>`);
      segment = [];
    };
    s.values.forEach((v, i) => {
      if (v === null) {
        flush();
        return;
      }
      segment.push(`${n2(px(i))},${n2(f.y(v))}`);
    });
    flush();
    s.values.forEach((v, i) => {
      if (v === null) return;
      const text = formatNumber(v, f.fmt);
      out.push(
        `<circle class="point" cx="${n2(px(i))}" cy="${n2(f.y(v))}" r="3.5" fill="${colour}" data-series="${escapeXml(s.name)}" data-x="${escapeXml(spec.x[i]!)}" data-value="${v}"><title>${escapeXml(`${s.name}, ${spec.x[i]}: ${text}`)}</title></circle>`,
      );
    });
  });
  out.push(`</g>`, ...xLabels(f, spec.x, px, spec.xLabel), ...legend(f, spec.series, "line"), `</svg>`);
  return out.join("\n") + "\n";
}
