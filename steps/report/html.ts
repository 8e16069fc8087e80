/**
 * A minimal HTML builder that escapes by construction: `el(tag, attrs, ...children)` escapes
 * attribute values and string children; only `raw(...)` inserts markup as is (used for
 * output of other escaping renderers, e.g. typeset labels and inline SVG).
 *
 * Why not a library: the report's HTML is generated from structured data (table and figure
 * JSON), never from Markdown, so a Markdown renderer (markdown-it, marked) would only add a
 * lossy detour (no colspan headers, no per-cell links or classes); hast-style builders would
 * do what these 30 lines do. Attributes keep their given order and nothing depends on time,
 * so the same data gives the same bytes.
 */
import { escapeXml } from "./format.ts";

export interface Html {
  readonly html: string;
}

export function raw(html: string): Html {
  return { html };
}

const VOID = new Set(["br", "img", "meta", "link", "hr", "input", "col"]);

export type Child = Html | string | readonly Child[];

function render(c: Child): string {
  if (typeof c === "string") return escapeXml(c);
  if (Array.isArray(c)) return (c as readonly Child[]).map(render).join("");
  return (c as Html).html;
}

/** An element; attributes whose value is undefined are left out. */
export function el(tag: string, attrs: Readonly<Record<string, string | undefined>>, ...children: Child[]): Html {
  const a = Object.entries(attrs)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => ` ${k}="${escapeXml(v)}"`)
    .join("");
  if (VOID.has(tag)) return { html: `<${tag}${a}>` };
  return { html: `<${tag}${a}>${children.map(render).join("")}</${tag}>` };
}

/** Join fragments with newlines (readable source, stable bytes). */
export function lines(...parts: Child[]): Html {
  return { html: parts.map(render).join("\n") };
}
