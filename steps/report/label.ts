/**
 * Typeset labels: the report's tables, figures and pages write system and query-form names
 * in a small TeX-like notation (`X_t \ {q_t}`, `a_{t-1}`, `DPR^shortcut`, `q*_t`) and this
 * module turns one label into runs of baseline / subscript / superscript text, rendered the
 * same way everywhere: HTML (`<sub>`, `<sup>`), SVG (`<tspan>` with a baseline shift and a
 * smaller size), Markdown (GitHub renders `<sub>`/`<sup>`) and plain Unicode (tooltips,
 * terminals). So a name reads identically in a table cell, a legend and a caption.
 *
 * The notation:
 *   `_x`, `_{...}`   subscript (one letter or digit, or a braced group)
 *   `^word`, `^{...}` superscript (a run of letters, or a braced group)
 *   `\` not followed by a letter   the set difference `∖` (U+2216)
 * Everything else is literal. Pure and deterministic.
 */
import { escapeXml } from "./format.ts";
import { textWidth } from "./text-metrics.ts";

export type Shift = "base" | "sub" | "sup";

export interface Run {
  readonly text: string;
  readonly shift: Shift;
}

const SET_MINUS = "\u2216";

/** Split a label into runs; adjacent runs of one shift are merged. */
export function parseLabel(label: string): Run[] {
  const runs: Run[] = [];
  const push = (text: string, shift: Shift): void => {
    if (text === "") return;
    const last = runs[runs.length - 1];
    if (last !== undefined && last.shift === shift) runs[runs.length - 1] = { text: last.text + text, shift };
    else runs.push({ text, shift });
  };
  let i = 0;
  while (i < label.length) {
    const c = label[i]!;
    const next = label[i + 1];
    if ((c === "_" || c === "^") && next !== undefined) {
      const shift: Shift = c === "_" ? "sub" : "sup";
      if (next === "{") {
        const close = label.indexOf("}", i + 2);
        if (close > i + 1) {
          push(label.slice(i + 2, close).replace(/\\(?![A-Za-z])/g, SET_MINUS), shift);
          i = close + 1;
          continue;
        }
      } else if (c === "_" && /[A-Za-z0-9]/.test(next)) {
        push(next, shift);
        i += 2;
        continue;
      } else if (c === "^" && /[A-Za-z0-9]/.test(next)) {
        const m = /^[A-Za-z0-9]+/.exec(label.slice(i + 1))!;
        push(m[0], shift);
        i += 1 + m[0].length;
        continue;
      }
    }
    if (c === "\\" && (next === undefined || !/[A-Za-z]/.test(next))) {
      push(SET_MINUS, "base");
      i += 1;
      continue;
    }
    push(c, "base");
    i += 1;
  }
  return runs;
}

/** HTML: text escaped, shifted runs in `<sub>` / `<sup>`. */
export function labelHtml(label: string): string {
  return parseLabel(label)
    .map((r) => (r.shift === "base" ? escapeXml(r.text) : `<${r.shift}>${escapeXml(r.text)}</${r.shift}>`))
    .join("");
}

const MD_SPECIAL = /[\\|*_`[\]<>]/g;

/** Markdown (GitHub flavour): special characters escaped, shifted runs as `<sub>` / `<sup>`. */
export function labelMarkdown(label: string): string {
  return parseLabel(label)
    .map((r) => {
      const text = r.text.replace(MD_SPECIAL, (ch) => `\\${ch}`).replace(/\r?\n/g, " ");
      return r.shift === "base" ? text : `<${r.shift}>${text}</${r.shift}>`;
    })
    .join("");
}

const SUB: Readonly<Record<string, string>> = Object.fromEntries(
  [..."0123456789+-=()aehijklmnoprstuvx"].map((ch, i) => [ch, "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"[i]!]),
);
const SUP: Readonly<Record<string, string>> = Object.fromEntries(
  [..."0123456789+-=()abcdefghijklmnoprstuvwxyz"].map((ch, i) => [ch, "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ"[i]!]),
);

/**
 * Plain Unicode text: a shifted run becomes Unicode sub/superscript characters when every
 * character has one, else it keeps the notation (`_{...}`, `^{...}`).
 */
export function labelText(label: string): string {
  return parseLabel(label)
    .map((r) => {
      if (r.shift === "base") return r.text;
      const table = r.shift === "sub" ? SUB : SUP;
      const chars = [...r.text];
      if (chars.every((ch) => table[ch] !== undefined)) return chars.map((ch) => table[ch]).join("");
      return `${r.shift === "sub" ? "_" : "^"}{${r.text}}`;
    })
    .join("");
}

/** Size of a shifted run relative to the base font, and its baseline shift in ems. */
export const SHIFT_SCALE = 0.72;
const SHIFT_EM: Readonly<Record<Shift, number>> = { base: 0, sub: 0.28, sup: -0.38 };

/**
 * SVG text content: `<tspan>`s with `dy` shifts (in ems of the base size, undone after each
 * run) and a smaller font for shifted runs. Put it inside a `<text>` element.
 */
export function labelSvg(label: string, fontSize: number): string {
  let offset = 0;
  const out: string[] = [];
  for (const r of parseLabel(label)) {
    const target = SHIFT_EM[r.shift] * fontSize;
    const dy = Math.round((target - offset) * 100) / 100;
    offset = target;
    const size = r.shift === "base" ? "" : ` font-size="${Math.round(fontSize * SHIFT_SCALE * 100) / 100}"`;
    out.push(dy === 0 && r.shift === "base" ? escapeXml(r.text) : `<tspan${dy !== 0 ? ` dy="${dy}"` : ""}${size}>${escapeXml(r.text)}</tspan>`);
  }
  return out.join("");
}

/** Rendered width of a label in the report's SVG font (see text-metrics.ts), in user units. */
export function labelWidth(label: string, fontSize: number, bold = false): number {
  let w = 0;
  for (const r of parseLabel(label)) w += textWidth(r.text, r.shift === "base" ? fontSize : fontSize * SHIFT_SCALE, bold);
  return w;
}
