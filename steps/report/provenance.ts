/**
 * Provenance as data: the steps behind a number, each with its cache key, params and the
 * steps that produced its inputs, walked back to the data. The same core serves the report's
 * static provenance pages (provenance-step.ts: the graph comes from the definitions, keys from
 * the step's inputs) and `show` on the command line (pipeline/commands/show.ts: the graph
 * comes from the store). Pure.
 */
import { canonicalJson } from "../../pipeline/engine/canonical.ts";

/** One step of the graph as the report documents it (static, from the definitions). */
export interface ProvenanceNodeSpec {
  /** Step name in the graph (unique). */
  readonly name: string;
  readonly stepId: string;
  readonly version: number;
  readonly description: string;
  /** Validated params (defaults filled in). */
  readonly params: unknown;
  /** Input name -> name of the step producing it. */
  readonly inputs: Readonly<Record<string, string>>;
}

/** A node with the cache key its step resolved to and a one-line summary. */
export interface ChainNode {
  readonly name: string;
  readonly stepId: string;
  readonly key: string;
  readonly summary: string;
  /** Input name -> producer's key (undefined when the producer is not known). */
  readonly inputs: Readonly<Record<string, string | undefined>>;
}

/** One line of a chain printed as an indented tree; `repeat` marks a node already shown above. */
export interface ChainLine {
  readonly depth: number;
  /** The consumer's input name this node feeds (null for the root). */
  readonly via: string | null;
  readonly node: ChainNode;
  readonly repeat: boolean;
}

/**
 * The upstream chain of `root` as a depth-first tree in input-name order; a node reached a
 * second time is listed once more as a repeat, without its own inputs.
 */
export function chainLines(root: string, nodes: ReadonlyMap<string, ChainNode>): ChainLine[] {
  const out: ChainLine[] = [];
  const seen = new Set<string>();
  const visit = (key: string, depth: number, via: string | null): void => {
    const node = nodes.get(key);
    if (node === undefined) return;
    const repeat = seen.has(key);
    out.push({ depth, via, node, repeat });
    if (repeat) return;
    seen.add(key);
    for (const input of Object.keys(node.inputs).sort()) {
      const k = node.inputs[input];
      if (k !== undefined) visit(k, depth + 1, input);
    }
  };
  visit(root, 0, null);
  return out;
}

/** Keys of the nodes downstream of each key (reverse edges), sorted. */
export function consumersOf(nodes: ReadonlyMap<string, ChainNode>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of nodes.values()) {
    for (const k of Object.values(n.inputs)) {
      if (k === undefined) continue;
      const list = out.get(k) ?? [];
      if (!list.includes(n.key)) list.push(n.key);
      out.set(k, list);
    }
  }
  for (const list of out.values()) list.sort();
  return out;
}

const MAX_PARAM_CHARS = 40;

function brief(v: unknown): string | undefined {
  if (v === null || typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v === "string") return v.length <= MAX_PARAM_CHARS ? v : undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === "string" || typeof x === "number") && v.join(",").length <= MAX_PARAM_CHARS) return `[${v.join(",")}]`;
  return undefined;
}

/**
 * The params in one line, `k=v` for short scalar values in key order (long or nested values
 * are named only: `spec=…`), at most `max` characters.
 */
export function paramsLine(params: unknown, max = 120): string {
  if (params === null || typeof params !== "object" || Array.isArray(params)) return "";
  const parts: string[] = [];
  for (const k of Object.keys(params).sort()) {
    const b = brief((params as Record<string, unknown>)[k]);
    parts.push(b === undefined ? `${k}=…` : `${k}=${b}`);
  }
  let line = "";
  for (const p of parts) {
    const next = line === "" ? p : `${line}, ${p}`;
    if (next.length > max) return `${line}, …`;
    line = next;
  }
  return line;
}

/** Params as stable, readable JSON (sorted keys). */
export function paramsJson(params: unknown): string {
  return canonicalJson(params, 2);
}
