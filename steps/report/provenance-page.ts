/**
 * The report's provenance pages (static HTML, one per cache key): what the step is (names,
 * step id and version, description, key, params), what its output shows (metrics, the run
 * file to download, a model's training curves), the steps it read from and the steps that
 * read it, and its whole upstream chain back to the data, each step with its key and a
 * one-line summary. Plus a page per set of seeds and an index of every page. Pure.
 */
import { el, lines, raw, type Html } from "./html.ts";
import { REPORT_CSS } from "./style.ts";
import { chainLines, paramsJson, paramsLine, type ChainNode } from "./provenance.ts";
import type { OutputView } from "./provenance-kinds.ts";

export interface PageNode extends ChainNode {
  /** Every step name that resolved to this key. */
  readonly names: readonly string[];
  readonly version: number;
  readonly description: string;
  readonly params: unknown;
  readonly kind: string;
  readonly view: OutputView | undefined;
}

export const page = (key: string): string => `${key}.html`;

export function htmlPage(title: string, ...body: Html[]): string {
  return (
    lines(
      raw("<!DOCTYPE html>"),
      raw('<html lang="en">'),
      el("head", {}, raw('<meta charset="utf-8">'), el("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }), el("title", {}, title), el("style", {}, raw(REPORT_CSS))),
      el("body", {}, ...body),
      raw("</html>"),
    ).html + "\n"
  );
}

const shortKey = (k: string): string => `${k.slice(0, 12)}…`;

function nodeRef(n: ChainNode): Html {
  return el("span", {}, el("a", { href: page(n.key) }, n.name), " ", el("code", {}, n.stepId), " ", el("span", { class: "key", title: n.key }, shortKey(n.key)));
}

/** The upstream chain as an indented list (repeats marked, not expanded). */
export function chainHtml(root: string, nodes: ReadonlyMap<string, ChainNode>): Html {
  return el(
    "ol",
    { class: "chain" },
    ...chainLines(root, nodes).map((l) =>
      el(
        "li",
        { style: `margin-left:${(l.depth * 1.3).toFixed(1)}rem`, class: l.repeat ? "repeat" : undefined },
        l.via === null ? raw("") : el("span", { class: "via" }, `${l.via} ← `),
        nodeRef(l.node),
        l.repeat ? " (see above)" : ` — ${l.node.summary}`,
      ),
    ),
  );
}

function summaryOf(n: PageNode): string {
  return n.summary;
}

export function nodePage(n: PageNode, nodes: ReadonlyMap<string, PageNode>, consumers: readonly string[], storeHint: string): string {
  const inputs = Object.keys(n.inputs).sort();
  const files = n.view?.files ?? [];
  return htmlPage(
    `${n.names[0]} (${n.stepId})`,
    el("p", {}, el("a", { href: "../index.html" }, "← report"), " · ", el("a", { href: "index.html" }, "all provenance pages")),
    el("h1", {}, n.names[0]!),
    el("p", { class: "caption" }, summaryOf(n)),
    el(
      "table",
      { class: "kv" },
      el(
        "tbody",
        {},
        el("tr", {}, el("th", { scope: "row" }, "step"), el("td", {}, el("code", {}, `${n.stepId} v${n.version}`), ` — ${n.description}`)),
        el("tr", {}, el("th", { scope: "row" }, "cache key"), el("td", { class: "key" }, n.key)),
        n.names.length > 1 ? el("tr", {}, el("th", { scope: "row" }, "also named"), el("td", {}, n.names.slice(1).join(", "))) : raw(""),
        el("tr", {}, el("th", { scope: "row" }, "output kind"), el("td", {}, el("code", {}, n.kind))),
        el("tr", {}, el("th", { scope: "row" }, "params"), el("td", {}, paramsLine(n.params) || "(none)")),
        files.length > 0 ? el("tr", {}, el("th", { scope: "row" }, "files"), el("td", {}, ...files.flatMap((f, i) => [i > 0 ? raw(" · ") : raw(""), el("a", { href: f.to }, f.label)]))) : raw(""),
        el("tr", {}, el("th", { scope: "row" }, "in the store"), el("td", {}, el("code", {}, storeHint))),
      ),
    ),
    ...(n.view?.sections ?? []),
    el("h2", {}, "Inputs"),
    inputs.length === 0
      ? el("p", {}, "None: this step starts from its params (and datasets.lock entries).")
      : el(
          "ul",
          {},
          ...inputs.map((i) => {
            const k = n.inputs[i];
            const p = k === undefined ? undefined : nodes.get(k);
            return el("li", {}, el("code", {}, i), " ← ", p === undefined ? "(not in the report's graph)" : [nodeRef(p), ` — ${summaryOf(p)}`]);
          }),
        ),
    el("h2", {}, "Used by"),
    consumers.length === 0 ? el("p", {}, "The report's tables and figures.") : el("ul", {}, ...[...consumers].map((k) => nodes.get(k)!).sort((a, b) => (a.name < b.name ? -1 : 1)).map((c) => el("li", {}, nodeRef(c)))),
    el("h2", {}, "Chain back to the data"),
    el("p", { class: "caption" }, "Every step this output depends on, by the input it feeds; a step reached twice is listed once more without its inputs."),
    chainHtml(n.key, nodes),
    el("h2", {}, "Params"),
    el("pre", {}, paramsJson(n.params)),
  );
}

/** The page of a number averaged over seeds: one line per seed's evaluation. */
export function seedsPage(title: string, keys: readonly string[], nodes: ReadonlyMap<string, PageNode>): string {
  return htmlPage(
    title,
    el("p", {}, el("a", { href: "../index.html" }, "← report")),
    el("h1", {}, title),
    el("p", { class: "caption" }, `Mean ± sample standard deviation over ${keys.length} evaluations (one per training seed):`),
    el(
      "ul",
      {},
      ...keys.map((k) => {
        const n = nodes.get(k);
        return el("li", {}, n === undefined ? el("a", { href: page(k) }, k) : [nodeRef(n), ` — ${summaryOf(n)}`]);
      }),
    ),
  );
}

/** Every page, grouped by step id. */
export function indexPage(nodes: ReadonlyMap<string, PageNode>, stagesSvg: string): string {
  const byStep = new Map<string, PageNode[]>();
  for (const n of nodes.values()) byStep.set(n.stepId, [...(byStep.get(n.stepId) ?? []), n]);
  const groups = [...byStep.keys()].sort();
  return htmlPage(
    "Provenance",
    el("p", {}, el("a", { href: "../index.html" }, "← report")),
    el("h1", {}, "Provenance"),
    el("p", { class: "caption" }, `${nodes.size} cached entries behind the report's tables and figures, by step.`),
    el("figure", {}, raw(stagesSvg)),
    ...groups.map((g) =>
      el(
        "section",
        {},
        el("h2", {}, g),
        el("ul", {}, ...byStep.get(g)!.sort((a, b) => (a.names[0]! < b.names[0]! ? -1 : 1)).map((n) => el("li", {}, nodeRef(n), ` — ${summaryOf(n)}`))),
      ),
    ),
  );
}
