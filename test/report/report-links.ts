/**
 * Checks a written report as a browser reads it (HTML parsed by parse5, the WHATWG parser):
 * every number cell of every table links to a provenance page that exists, every figure mark
 * with a number does too, and every relative link of index.html and of the provenance pages
 * leads to a file of the report.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { parse } from "parse5";

interface Node {
  readonly nodeName: string;
  readonly attrs?: readonly { name: string; value: string }[];
  readonly childNodes?: readonly Node[];
  readonly content?: Node;
  readonly value?: string;
}

const attr = (n: Node, name: string): string | undefined => n.attrs?.find((a) => a.name === name)?.value;
const hasClass = (n: Node, c: string): boolean => (attr(n, "class") ?? "").split(/\s+/).includes(c);

function* walk(n: Node): Generator<Node> {
  yield n;
  for (const c of n.childNodes ?? []) yield* walk(c);
  if (n.content) yield* walk(n.content);
}

export function text(n: Node): string {
  return [...walk(n)].map((x) => (x.nodeName === "#text" ? (x.value ?? "") : "")).join("");
}

function resolveLink(page: string, href: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#")) return undefined;
  return normalize(join(dirname(page), decodeURI(href.split("#")[0]!)));
}

export interface LinkReport {
  /** Number cells of the tables (td.ours holding a number). */
  readonly cells: number;
  /** Figure marks with a number (links inside inline SVG). */
  readonly marks: number;
  /** Relative links checked, all pages. */
  readonly links: number;
  readonly pages: number;
}

export function checkReportLinks(reportDir: string): LinkReport {
  const index = join(reportDir, "index.html");
  const doc = parse(readFileSync(index, "utf8")) as unknown as Node;
  let cells = 0;
  let marks = 0;
  for (const n of walk(doc)) {
    if (n.nodeName === "td" && hasClass(n, "ours")) {
      const value = text(n).trim();
      if (value === "-" || value.startsWith("-")) {
        assert.equal([...walk(n)].some((x) => x.nodeName === "a"), false, "a cell without a number links nowhere");
        continue;
      }
      const a = [...walk(n)].find((x) => x.nodeName === "a");
      assert.ok(a, `table cell '${value}' has no link`);
      const href = attr(a, "href")!;
      assert.match(href, /^provenance\/([0-9a-f]{64}|seeds-[0-9a-f]{16})\.html$/, `cell '${value}' links to ${href}`);
      assert.ok(existsSync(join(reportDir, href)), `cell '${value}' links to ${href}, which does not exist`);
      cells++;
    }
    if (n.nodeName === "a" && (n.childNodes ?? []).some((c) => ["rect", "circle"].includes(c.nodeName))) {
      const href = attr(n, "href")!;
      assert.ok(existsSync(join(reportDir, href)), `figure mark links to ${href}, which does not exist`);
      marks++;
    }
  }
  let links = 0;
  const pages = [index, ...(existsSync(join(reportDir, "provenance")) ? readdirSync(join(reportDir, "provenance")).filter((f) => f.endsWith(".html")).map((f) => join(reportDir, "provenance", f)) : [])];
  for (const page of pages) {
    const d = parse(readFileSync(page, "utf8")) as unknown as Node;
    for (const n of walk(d)) {
      const href = n.nodeName === "a" ? attr(n, "href") : undefined;
      if (href === undefined) continue;
      const target = resolveLink(page, href);
      if (target === undefined) continue;
      assert.ok(target.startsWith(normalize(reportDir)), `${page}: link ${href} leaves the report`);
      assert.ok(existsSync(target), `${page}: link ${href} leads nowhere`);
      links++;
    }
  }
  return { cells, marks, links, pages: pages.length };
}
