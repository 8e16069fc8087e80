/**
 * No import cycles among the repository's TypeScript sources (pipeline/, steps/, scripts/, bench/),
 * type-only imports included: a cycle, even one the build erases, means two modules each sit below
 * the other, and the layering (engine below everything, definitions on top) stops being visible.
 * The edges come from the engine's own source scanner (sources.ts: importSpecifiers,
 * resolveLocalImport), the one that computes keys' closures, so this test sees what keys see plus
 * the type-only lines keys leave out.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { importSpecifiers, resolveLocalImport } from "../../pipeline/engine/sources.ts";
import { tempDir } from "../tmp.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TREES = ["pipeline", "steps", "scripts", "bench"];
const SCRIPT = /\.(?:[cm]?[jt]s|tsx)$/;

function scripts(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "__pycache__") continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...scripts(path));
    else if (e.isFile() && SCRIPT.test(e.name) && !e.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

/**
 * Module -> the local modules it imports (loaded or type-only), every path relative to `root`.
 * A specifier that names no file is left out: the scanner's patterns also match import lines that
 * scripts write as text (scripts/build.mjs, gen-wordbreak-table.ts); a real one fails the type-check.
 */
function importGraph(root: string, trees: readonly string[]): Map<string, string[]> {
  const rel = (p: string) => relative(root, p).split(sep).join("/");
  const graph = new Map<string, string[]>();
  for (const file of trees.flatMap((t) => scripts(join(root, t)))) {
    const said = importSpecifiers(readFileSync(file, "utf8"));
    const local = [...said.loaded, ...said.typeOnly].filter((s) => s.startsWith(".") || s.startsWith("/"));
    const deps = local.map((s) => resolveLocalImport(file, s)).filter((p): p is string => p !== undefined && SCRIPT.test(p));
    graph.set(rel(file), [...new Set(deps.map(rel))].sort());
  }
  return graph;
}

/** One cycle (as a path a -> b -> ... -> a) per strongly connected component that has one (Tarjan). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w);
      if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = new Set<string>();
    for (let w = ""; w !== v; ) {
      w = stack.pop()!;
      onStack.delete(w);
      component.add(w);
    }
    if (component.size > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(cycleWithin(graph, component, v));
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

/** A shortest path from `start` back to itself inside `component` (breadth first). */
function cycleWithin(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>, start: string): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    for (const w of graph.get(queue[i]!) ?? []) {
      if (!component.has(w) || from.has(w)) continue;
      from.set(w, queue[i]!);
      if (w === start) queue.length = i + 1;
      else queue.push(w);
    }
  }
  const back: string[] = [];
  for (let v = from.get(start)!; v !== start; v = from.get(v)!) back.push(v);
  return [start, ...back.reverse(), start];
}

test("the repository's TypeScript sources import one another without cycles, type-only imports included", () => {
  const graph = importGraph(ROOT, TREES);
  assert.ok(graph.size > 300, `expected the whole tree, read ${graph.size} modules`);
  const cycles = importCycles(graph);
  assert.deepEqual(cycles.map((c) => c.join(" -> ")), [], "import cycles (break each by moving what both sides need to a module below both)");
});

test("the check sees a cycle closed by a type-only import, and by `import { type X }`, and names its files", () => {
  const root = tempDir("import-cycles-");
  const write = (rel: string, text: string) => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  write("steps/a.ts", 'import { b } from "./b.ts";\nexport const a = b + 1;\n');
  write("steps/b.ts", 'import type { C } from "./c/index.ts";\nexport const b: C = 1;\n');
  write("steps/c/index.ts", 'import {\n  type A,\n} from "../d.ts";\nexport type C = A;\n');
  write("steps/d.ts", 'export type { a as A } from "./a.ts";\nimport "./e.js";\n');
  write("steps/e.js", "export {};\n");
  write("steps/f.ts", 'export type F = import("./f.ts").F;\nimport type { F as G } from "./f.ts";\nexport type H = G;\n');
  assert.deepEqual(importCycles(importGraph(root, ["steps"])), [
    ["steps/a.ts", "steps/b.ts", "steps/c/index.ts", "steps/d.ts", "steps/a.ts"],
    ["steps/f.ts", "steps/f.ts"],
  ]);
  write("steps/d.ts", 'import "./e.js";\nexport type A = number;\n');
  write("steps/f.ts", "export type F = number;\n");
  assert.deepEqual(importCycles(importGraph(root, ["steps"])), []);
});
