/**
 * The report's charts as SVG, from a figure's JSON (figure.ts): grouped bars (Figure 2) and
 * lines over x positions (Figures 3 and 4, training curves).
 *
 * Layout is computed from measured text (text-metrics.ts: the font the SVG asks for), so
 * nothing is clipped: the title wraps, long category labels wrap under their group, the
 * legend flows in rows below the plot, and the canvas grows to hold them. The y axis is
 * scaled to the data (values, error bars and paper markers) with round ticks, starting at 0.
 * Labels are typeset (label.ts). Our numbers are bars / points with ± sd error bars where
 * seeds exist; the paper's printed numbers are diamond markers on the same position; each
 * mark links to its provenance page when `href` gives one, and carries a tooltip (N, seeds,
 * the paper's number) and data-* attributes.
 *
 * Why hand-written rather than a charting library: Vega-Lite 6 rendered to SVG in Node was
 * tried (2026-11-23) and is byte-stable too, but its text marks cannot typeset subscripts
 * (labels would read `X_t \ {q_t}`, unlike the tables), it measures text heuristically in
 * Node anyway, and it adds ~25 MB of dependencies; these ~350 lines cover the two chart kinds
 * the paper uses. Output is deterministic: fixed palette, coordinates rounded to 2 decimals,
 * no ids, nothing from time or randomness.
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { escapeXml, formatNumber, formatUnit, type NumberFormat } from "./format.ts";
import { labelSvg, labelText, labelWidth } from "./label.ts";
import { SVG_FONT_FAMILY } from "./text-metrics.ts";
import type { FigureJson, FigurePoint } from "./figure.ts";

/** Colour-blind-safe palette (Okabe-Ito), in series order (yellow last: weak on white). */
export const PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442"] as const;

export interface SvgOptions {
  /** Link of a point's mark (relative to where the SVG is shown); undefined = no link. */
  readonly href?: (point: FigurePoint, series: string) => string | undefined;
  readonly width?: number;
  /** Plot area height (default 240). */
  readonly plotHeight?: number;
  /** Legend entries for the series (default true; a one-series chart titled by its series needs none). */
  readonly legend?: boolean;
}

const FONT = 12;
const TICK_FONT = 11;
const TITLE_FONT = 14;
const LINE = 1.3;

export const n2 = (x: number): string => {
  const s = (Math.round(x * 100) / 100).toFixed(2).replace(/\.?0+$/, "");
  return s === "-0" ? "0" : s;
};

/** Round axis: a tick step of 1, 2, 2.5 or 5 times a power of ten, at most 6 steps up to `max` or above. */
export function niceScale(max: number): { max: number; step: number } {
  if (!(max > 0)) return { max: 1, step: 0.2 };
  const p = 10 ** Math.floor(Math.log10(max));
  for (const e of [p / 10, p]) {
    for (const m of [1, 2, 2.5, 5]) {
      const step = m * e;
      const count = Math.ceil(max / step - 1e-9);
      if (count <= 6) return { max: Math.round(step * count * 1e9) / 1e9, step };
    }
  }
  return { max: 10 * p, step: 2 * p };
}

/** Decimals needed to print multiples of `step` exactly (at most 4). */
export function tickDigits(step: number): number {
  for (let d = 0; d < 4; d++) if (Math.abs(step * 10 ** d - Math.round(step * 10 ** d)) < 1e-6) return d;
  return 4;
}

/** Split a label at spaces outside braces into lines no wider than `width` (a word longer than that gets its own line). */
export function wrapLabel(label: string, width: number, fontSize: number, bold = false): string[] {
  const words: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of label) {
    if (ch === "{") depth++;
    if (ch === "}") depth = Math.max(0, depth - 1);
    if (ch === " " && depth === 0) {
      if (cur !== "") words.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur !== "") words.push(cur);
  const lines: string[] = [];
  for (const w of words) {
    const last = lines[lines.length - 1];
    if (last !== undefined && labelWidth(`${last} ${w}`, fontSize, bold) <= width) lines[lines.length - 1] = `${last} ${w}`;
    else lines.push(w);
  }
  return lines.length > 0 ? lines : [""];
}

function text(x: number, y: number, label: string, size: number, attrs = ""): string {
  return `<text x="${n2(x)}" y="${n2(y)}" font-size="${size}"${attrs}>${labelSvg(label, size)}</text>`;
}

function check(f: FigureJson): void {
  for (const s of f.series) {
    if (s.points.length !== f.categories.length) throw new InputError(`series '${s.name}' has ${s.points.length} points for ${f.categories.length} x positions`, { field: `series.${s.name}`, fix: "give one point (or null) per category" });
    for (const p of s.points) {
      for (const v of [p.ours?.value, p.ours?.sd, p.paper?.value]) {
        if (v !== undefined && v !== null && !Number.isFinite(v)) throw new InputError(`series '${s.name}' holds ${v}`, { field: `series.${s.name}`, fix: "use finite numbers" });
      }
    }
  }
}

function tooltip(f: FigureJson, series: string, p: FigurePoint): string {
  const parts: string[] = [];
  if (p.ours !== null) {
    const v = formatNumber(p.ours.value, f.valueFormat);
    parts.push(p.ours.sd === null ? `ours ${v}` : `ours ${v} ± ${formatNumber(p.ours.sd, f.valueFormat)} (mean ± sd, ${p.ours.seeds} seeds)`);
    parts.push(`N = ${p.ours.n}`);
  }
  if (p.absent !== null) parts.push(p.absent);
  if (p.paper !== null) parts.push(`paper ${p.paper.printed}`);
  return `${labelText(series)}, ${labelText(p.category)}: ${parts.join("; ")}`;
}

function linked(f: FigureJson, options: SvgOptions, series: string, p: FigurePoint, mark: string): string {
  const title = `<title>${escapeXml(tooltip(f, series, p))}</title>`;
  const body = mark.replace(/\/>$/, `>${title}</${/^<(\w+)/.exec(mark)![1]}>`);
  const href = p.ours !== null ? options.href?.(p, series) : undefined;
  return href === undefined ? body : `<a href="${escapeXml(href)}">${body}</a>`;
}

/** Radius of a paper marker; the value label's text (9 px) spans from its baseline up to about 7 px above it and 2 px below. */
const DIAMOND_R = 4.5;

/**
 * The baseline of a bar's value label: 3 px above the bar (or its error bar), moved above the
 * paper's marker where the marker would cover it (a printed number close to ours).
 */
export function valueLabelY(top: number, paperY: number | null): number {
  const y = top - 3;
  if (paperY === null) return y;
  const overlaps = paperY - DIAMOND_R < y + 2 && paperY + DIAMOND_R > y - 7;
  return overlaps ? Math.min(y, paperY - DIAMOND_R - 3) : y;
}

const diamond = (x: number, y: number, r: number, stroke: string, attrs: string): string =>
  `<path class="paper" d="M${n2(x)},${n2(y - r)}L${n2(x + r)},${n2(y)}L${n2(x)},${n2(y + r)}L${n2(x - r)},${n2(y)}Z" fill="#ffffff" stroke="${stroke}" stroke-width="1.5"${attrs}/>`;

const errorBar = (x: number, y1: number, y2: number): string =>
  `<path class="sd" d="M${n2(x)},${n2(y1)}V${n2(y2)}M${n2(x - 3)},${n2(y1)}H${n2(x + 3)}M${n2(x - 3)},${n2(y2)}H${n2(x + 3)}" stroke="#222222" stroke-width="1" fill="none"/>`;

interface LegendEntry {
  readonly label: string;
  readonly swatch: (x: number, y: number) => string;
}

/** Legend entries laid out in rows from `left` to `right`; returns the markup and its height. */
function legend(entries: readonly LegendEntry[], left: number, right: number, top: number): { svg: string[]; height: number } {
  const out = [`<g class="legend">`];
  let x = left;
  let row = 0;
  const rowH = FONT * 1.6;
  for (const e of entries) {
    const w = 22 + labelWidth(e.label, FONT) + 16;
    if (x > left && x + w - 16 > right) {
      x = left;
      row++;
    }
    const y = top + row * rowH + FONT * 0.8;
    out.push(e.swatch(x, y), text(x + 22, y + FONT * 0.35, e.label, FONT, ` data-series="${escapeXml(e.label)}"`));
    x += w;
  }
  out.push(`</g>`);
  return { svg: out, height: entries.length === 0 ? 0 : (row + 1) * rowH };
}

/** The y axis: a round scale over every number drawn (values with their sd, paper markers, yMax), its ticks and their labels. */
function yAxisScale(f: FigureJson): { scale: { max: number; step: number }; ticks: number[]; tickLabels: string[] } {
  const fmt = f.valueFormat;
  let dataMax = 0;
  for (const s of f.series) for (const p of s.points) dataMax = Math.max(dataMax, (p.ours?.value ?? 0) + (p.ours?.sd ?? 0), p.paper?.value ?? 0);
  const scale = niceScale(Math.max(dataMax, f.yMax ?? 0));
  const ticks = Array.from({ length: Math.round(scale.max / scale.step) + 1 }, (_, i) => i * scale.step);
  const tickFmt: NumberFormat = fmt.kind === "integer" ? fmt : { kind: fmt.kind, digits: tickDigits(fmt.kind === "percent" ? scale.step * 100 : scale.step) };
  return { scale, ticks, tickLabels: ticks.map((v) => formatNumber(v, tickFmt)) };
}

/** Where the plot sits on the canvas: its edges, the slot of each category, and y of a value. */
interface Frame {
  readonly left: number;
  readonly right: number;
  readonly plotW: number;
  readonly top: number;
  readonly plotH: number;
  readonly base: number;
  readonly slot: number;
  readonly center: (ci: number) => number;
  readonly yOf: (v: number) => number;
}

function frameOf(f: FigureJson, left: number, right: number, top: number, plotH: number, scaleMax: number): Frame {
  const plotW = right - left;
  const slot = plotW / f.categories.length;
  return { left, right, plotW, top, plotH, base: top + plotH, slot, center: (ci) => left + slot * (ci + 0.5), yOf: (v) => top + plotH - (Math.max(0, v) / scaleMax) * plotH };
}

/** The title's lines, centred, from y = 8 down; returns them and the y below the last. */
function titleLines(title: string, width: number): { svg: string[]; bottom: number } {
  let y = 8;
  const svg = wrapLabel(title, width - 24, TITLE_FONT, true).map((l) => {
    y += TITLE_FONT * LINE;
    return text(width / 2, y - 4, l, TITLE_FONT, ` text-anchor="middle" font-weight="bold"`);
  });
  return { svg, bottom: y };
}

function yAxisSvg(fr: Frame, ticks: readonly number[], tickLabels: readonly string[], yLabel: string): string[] {
  const out = [`<g class="axis y-axis">`];
  ticks.forEach((v, i) => {
    out.push(`<line x1="${n2(fr.left - 4)}" y1="${n2(fr.yOf(v))}" x2="${n2(fr.right)}" y2="${n2(fr.yOf(v))}" stroke="${i === 0 ? "#000000" : "#e0e0e0"}"/>`);
    out.push(text(fr.left - 7, fr.yOf(v) + TICK_FONT * 0.35, tickLabels[i]!, TICK_FONT, ` text-anchor="end"`));
  });
  out.push(`<line x1="${n2(fr.left)}" y1="${n2(fr.top)}" x2="${n2(fr.left)}" y2="${n2(fr.base)}" stroke="#000000"/>`);
  const cy = fr.top + fr.plotH / 2;
  out.push(`<text x="${n2(8 + FONT)}" y="${n2(cy)}" font-size="${FONT}" text-anchor="middle" transform="rotate(-90 ${n2(8 + FONT)} ${n2(cy)})">${labelSvg(yLabel, FONT)}</text>`, `</g>`);
  return out;
}

/** A line chart's polylines for one series: one per run of consecutive points (a missing point breaks the line). */
function seriesLines(s: FigureJson["series"][number], colour: string, fr: Frame): string[] {
  const out: string[] = [];
  let seg: string[] = [];
  const flush = (): void => {
    if (seg.length > 1) out.push(`<polyline class="line" points="${seg.join(" ")}" fill="none" stroke="${colour}" stroke-width="2" data-series="${escapeXml(s.name)}"/>`);
    seg = [];
  };
  s.points.forEach((p, ci) => (p.ours === null ? flush() : seg.push(`${n2(fr.center(ci))},${n2(fr.yOf(p.ours.value))}`)));
  flush();
  return out;
}

/** What the marks drew that the legend explains. */
interface MarkKinds {
  paper: boolean;
  sd: boolean;
}

/** One point's marks at x: our bar (with its value label) or circle, its error bar, n/a, the paper's diamond. */
function pointMarks(f: FigureJson, options: SvgOptions, fr: Frame, mark: { series: string; colour: string; barW: number; x: number; ci: number }, p: FigurePoint, kinds: MarkKinds): string[] {
  const out: string[] = [];
  const { series, colour, barW, x, ci } = mark;
  const data = ` data-series="${escapeXml(series)}" data-category="${escapeXml(f.categories[ci]!)}"`;
  if (p.ours !== null) {
    const o = p.ours;
    const attrs = `${data} data-value="${o.value}" data-keys="${o.stepKeys.join(" ")}"`;
    if (f.chart === "bar") {
      const yv = fr.yOf(o.value);
      out.push(linked(f, options, series, p, `<rect class="bar" x="${n2(x - barW / 2)}" y="${n2(yv)}" width="${n2(barW)}" height="${n2(fr.base - yv)}" fill="${colour}"${attrs}/>`));
      const label = formatNumber(o.value, f.valueFormat);
      const labelY = valueLabelY(fr.yOf(o.value + (o.sd ?? 0)), p.paper === null ? null : fr.yOf(p.paper.value));
      if (labelWidth(label, 9) + 2 <= barW) out.push(text(x, labelY, label, 9, ` class="value" text-anchor="middle"`));
    } else out.push(linked(f, options, series, p, `<circle class="point" cx="${n2(x)}" cy="${n2(fr.yOf(o.value))}" r="3.5" fill="${colour}"${attrs}/>`));
    if (o.sd !== null) {
      kinds.sd = true;
      out.push(errorBar(x, fr.yOf(o.value - o.sd), fr.yOf(o.value + o.sd)));
    }
  } else if (p.absent !== null) {
    out.push(`<text class="absent" x="${n2(x)}" y="${n2(fr.base - 4)}" font-size="9" fill="#666666" text-anchor="middle"${data}>n/a<title>${escapeXml(tooltip(f, series, p))}</title></text>`);
  }
  if (p.paper !== null) {
    kinds.paper = true;
    out.push(linked(f, { ...options, href: () => undefined }, series, p, diamond(x, fr.yOf(p.paper.value), DIAMOND_R, f.chart === "bar" ? "#000000" : colour, `${data} data-paper="${p.paper.value}"`)));
  }
  return out;
}

/** Every series' marks, in series order (a line chart's lines before its points). */
function marksSvg(f: FigureJson, options: SvgOptions, fr: Frame): { svg: string[]; kinds: MarkKinds } {
  const marks: string[] = [`<g class="marks">`];
  const kinds: MarkKinds = { paper: false, sd: false };
  const barW = (fr.slot * 0.8) / f.series.length;
  f.series.forEach((s, si) => {
    const colour = PALETTE[si % PALETTE.length]!;
    if (f.chart === "line") marks.push(...seriesLines(s, colour, fr));
    s.points.forEach((p, ci) => {
      const x = f.chart === "bar" ? fr.left + fr.slot * ci + fr.slot * 0.1 + barW * (si + 0.5) : fr.center(ci);
      marks.push(...pointMarks(f, options, fr, { series: s.name, colour, barW, x, ci }, p, kinds));
    });
  });
  marks.push(`</g>`);
  return { svg: marks, kinds };
}

/** The category labels, each wrapped to its slot, and the x axis' label; returns them and the y below them. */
function xAxisSvg(f: FigureJson, fr: Frame): { svg: string[]; bottom: number } {
  const xs: string[] = [`<g class="axis x-axis">`];
  let bottom = fr.base;
  f.categories.forEach((c, ci) => {
    wrapLabel(c, fr.slot - 6, FONT).forEach((line, li) => {
      const ly = fr.base + 16 + li * FONT * LINE;
      bottom = Math.max(bottom, ly + 4);
      xs.push(text(fr.center(ci), ly, line, FONT, ` text-anchor="middle"`));
    });
  });
  if (f.xLabel !== null) {
    bottom += FONT * LINE + 4;
    xs.push(text(fr.left + fr.plotW / 2, bottom - 4, f.xLabel, FONT, ` text-anchor="middle"`));
  }
  xs.push(`</g>`);
  return { svg: xs, bottom };
}

/** The series (unless the legend is off), then the paper's marker and the error bar where the marks drew them. */
function legendEntries(f: FigureJson, options: SvgOptions, kinds: MarkKinds): LegendEntry[] {
  const entries: LegendEntry[] = (options.legend === false ? [] : f.series).map((s, si) => {
    const colour = PALETTE[si % PALETTE.length]!;
    return {
      label: s.name,
      swatch: (x: number, ly: number) =>
        f.chart === "bar" ? `<rect x="${n2(x)}" y="${n2(ly - 6)}" width="14" height="12" fill="${colour}"/>` : `<line x1="${n2(x)}" y1="${n2(ly)}" x2="${n2(x + 16)}" y2="${n2(ly)}" stroke="${colour}" stroke-width="2"/><circle cx="${n2(x + 8)}" cy="${n2(ly)}" r="3" fill="${colour}"/>`,
    };
  });
  if (kinds.paper) entries.push({ label: "paper (as printed)", swatch: (x, ly) => diamond(x + 7, ly, 4.5, "#000000", "") });
  if (kinds.sd) entries.push({ label: "± sd over seeds", swatch: (x, ly) => errorBar(x + 7, ly - 6, ly + 6) });
  return entries;
}

/** The chart as a standalone SVG document. */
export function renderFigureSvg(f: FigureJson, options: SvgOptions = {}): string {
  check(f);
  const width = options.width ?? 640;
  const nCat = f.categories.length;
  if (nCat === 0 || f.series.length === 0) throw new InputError(`figure '${f.id}' has no ${nCat === 0 ? "categories" : "series"}`, { field: nCat === 0 ? "categories" : "series", fix: "give at least one" });
  const { scale, ticks, tickLabels } = yAxisScale(f);
  const unit = f.yUnit ?? formatUnit(f.valueFormat);
  const yLabel = unit === "" ? f.yLabel : `${f.yLabel} (${unit})`;
  const left = 8 + FONT * LINE + 8 + Math.max(...tickLabels.map((t) => labelWidth(t, TICK_FONT))) + 8;
  const title = titleLines(f.title, width);
  const fr = frameOf(f, left, width - 16, title.bottom + 14, options.plotHeight ?? 240, scale.max);
  const marks = marksSvg(f, options, fr);
  const xs = xAxisSvg(f, fr);
  const lg = legend(legendEntries(f, options, marks.kinds), 16, width - 16, xs.bottom + 12);
  const height = Math.ceil(xs.bottom + 12 + lg.height + 8);
  return (
    [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${SVG_FONT_FAMILY}" data-chart="${f.chart}" data-figure="${escapeXml(f.id)}">`,
      `<title>${escapeXml(labelText(f.title))}</title>`,
      `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
      ...title.svg,
      ...yAxisSvg(fr, ticks, tickLabels, yLabel),
      ...marks.svg,
      ...xs.svg,
      ...lg.svg,
      `</svg>`,
    ].join("\n") + "\n"
  );
}
