/**
 * The pipeline's stage graph: the step graph collapsed by step id (229 steps of the mini
 * reproduction become ~20 stages such as `train-dpr ×14`), and its picture as SVG with a
 * layered layout computed here (no Graphviz at report time, so the bytes depend only on the
 * graph). Edges that close a loop at stage level (IHN: a model's run mines the negatives
 * that train the next model) are drawn dashed on the right as "iterates". Pure.
 */
import { escapeXml } from "./format.ts";
import { textWidth, SVG_FONT_FAMILY } from "./text-metrics.ts";
import { n2 } from "./svg.ts";

export interface GraphNode {
  readonly id: string;
  /** Stage the node collapses into (its step id). */
  readonly group: string;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
}

export interface StageGraph {
  /** Stages in order of first appearance in the node list (give nodes in topological order). */
  readonly stages: readonly { readonly id: string; readonly count: number }[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly count: number }[];
}

export function collapseGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): StageGraph {
  const groupOf = new Map(nodes.map((n) => [n.id, n.group]));
  const counts = new Map<string, number>();
  for (const n of nodes) counts.set(n.group, (counts.get(n.group) ?? 0) + 1);
  const e = new Map<string, { from: string; to: string; count: number }>();
  for (const x of edges) {
    const from = groupOf.get(x.from);
    const to = groupOf.get(x.to);
    if (from === undefined || to === undefined || from === to) continue;
    const k = `${from}\u0000${to}`;
    const prev = e.get(k);
    if (prev) prev.count++;
    else e.set(k, { from, to, count: 1 });
  }
  return {
    stages: [...counts].map(([id, count]) => ({ id, count })),
    edges: [...e.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0)),
  };
}

/** Stage colours by step-id family (first match), for reading the picture at a glance. */
const FAMILIES: readonly { readonly test: RegExp; readonly fill: string; readonly label: string }[] = [
  { test: /^(generate|preprocess|assemble-raw|fetch|import|assemble-hf)/, fill: "#e8eef7", label: "data" },
  { test: /bm25/, fill: "#fdf0dc", label: "lexical" },
  { test: /^(train|pretrain|assemble-dpr|mine|tokenize)/, fill: "#e3f4ec", label: "training" },
  { test: /^(encode|build-flat|search-dense)/, fill: "#f5e6ef", label: "dense retrieval" },
  { test: /^evaluate/, fill: "#fff7c2", label: "evaluation" },
  { test: /^(render|write)/, fill: "#eeeeee", label: "report" },
];

interface Placed {
  readonly id: string;
  readonly label: string;
  readonly layer: number;
  x: number;
  readonly w: number;
}

const BOX_H = 30;
const LAYER_GAP = 58;
const FONT = 12;

/** Tarjan's strongly connected components (recursive: fine for a few dozen stages): each stage's component number. */
function strongComponents(g: StageGraph): Map<string, number> {
  const out = new Map<string, string[]>();
  for (const e of g.edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const comp = new Map<string, number>();
  let next = 0;
  let comps = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      for (;;) {
        const w = stack.pop()!;
        onStack.delete(w);
        comp.set(w, comps);
        if (w === v) break;
      }
      comps++;
    }
  };
  for (const s of g.stages) if (!index.has(s.id)) connect(s.id);
  return comp;
}

/** The components' topological order (Kahn), ties by their earliest stage: each component's rank. */
function componentRanks(g: StageGraph, comp: ReadonlyMap<string, number>, first: ReadonlyMap<string, number>): Map<number, number> {
  const compFirst = new Map<number, number>();
  for (const s of g.stages) compFirst.set(comp.get(s.id)!, Math.min(compFirst.get(comp.get(s.id)!) ?? Infinity, first.get(s.id)!));
  const indeg = new Map<number, number>([...compFirst.keys()].map((c) => [c, 0]));
  const cedges = new Set<string>();
  for (const e of g.edges) {
    const [a, b] = [comp.get(e.from)!, comp.get(e.to)!];
    if (a !== b && !cedges.has(`${a}>${b}`)) {
      cedges.add(`${a}>${b}`);
      indeg.set(b, indeg.get(b)! + 1);
    }
  }
  const order: number[] = [];
  const ready = [...indeg].filter(([, d]) => d === 0).map(([c]) => c);
  while (ready.length > 0) {
    ready.sort((a, b) => compFirst.get(a)! - compFirst.get(b)!);
    const c = ready.shift()!;
    order.push(c);
    for (const k of cedges) {
      const [a, b] = k.split(">").map(Number) as [number, number];
      if (a !== c) continue;
      indeg.set(b, indeg.get(b)! - 1);
      if (indeg.get(b) === 0) ready.push(b);
    }
  }
  return new Map(order.map((c, i) => [c, i]));
}

/**
 * Stage order: the strongly connected components (a loop such as IHN's) in topological order,
 * ties and the stages inside one component by first appearance. Edges going backwards inside a
 * component close its loop; every other edge goes forward.
 */
export function stageOrder(g: StageGraph): { rank: Map<string, number>; back: Set<StageGraph["edges"][number]> } {
  const first = new Map(g.stages.map((s, i) => [s.id, i]));
  const comp = strongComponents(g);
  const compRank = componentRanks(g, comp, first);
  const sorted = [...g.stages].sort((a, b) => compRank.get(comp.get(a.id)!)! - compRank.get(comp.get(b.id)!)! || first.get(a.id)! - first.get(b.id)!);
  const rank = new Map(sorted.map((s, i) => [s.id, i]));
  const back = new Set(g.edges.filter((e) => comp.get(e.from) === comp.get(e.to) && rank.get(e.from)! >= rank.get(e.to)!));
  return { rank, back };
}

type Edge = StageGraph["edges"][number];

/** Layers by the longest path over forward edges, stages in rank order within each. */
function layersOf(g: StageGraph, rank: ReadonlyMap<string, number>, forward: readonly Edge[]): string[][] {
  const ranked = [...g.stages].sort((a, b) => rank.get(a.id)! - rank.get(b.id)!);
  const layer = new Map<string, number>();
  for (const s of ranked) {
    const preds = forward.filter((e) => e.to === s.id).map((e) => (layer.get(e.from) ?? 0) + 1);
    layer.set(s.id, Math.max(0, ...preds));
  }
  const nLayers = Math.max(0, ...layer.values()) + 1;
  const layers: string[][] = Array.from({ length: nLayers }, () => []);
  for (const s of ranked) layers[layer.get(s.id)!]!.push(s.id);
  return layers;
}

/** Barycentric sweeps (down, up, down, up): each layer ordered by the mean position of its neighbours in the layer before. */
function barycentricSweeps(layers: string[][], forward: readonly Edge[]): void {
  const nLayers = layers.length;
  const pos = new Map<string, number>();
  const index = (): void => layers.forEach((l) => l.forEach((id, i) => pos.set(id, i)));
  index();
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    for (let li = down ? 1 : nLayers - 2; down ? li < nLayers : li >= 0; li += down ? 1 : -1) {
      const bary = (id: string): number => {
        const nb = forward.filter((e) => (down ? e.to === id : e.from === id)).map((e) => (down ? e.from : e.to));
        return nb.length === 0 ? pos.get(id)! : nb.reduce((a, b) => a + pos.get(b)!, 0) / nb.length;
      };
      const keyed = layers[li]!.map((id) => ({ id, b: bary(id), p: pos.get(id)! }));
      keyed.sort((a, b) => a.b - b.b || a.p - b.p || (a.id < b.id ? -1 : 1));
      layers[li] = keyed.map((k) => k.id);
      index();
    }
  }
}

/** Each stage's box, its layer's row centred on x = 0; and the widest row's width. */
function placeBoxes(g: StageGraph, layers: readonly string[][]): { placed: Map<string, Placed>; width: number } {
  const count = new Map(g.stages.map((s) => [s.id, s.count]));
  const placed = new Map<string, Placed>();
  let width = 0;
  for (const [li, l] of layers.entries()) {
    const boxes = l.map((id) => {
      const label = count.get(id)! > 1 ? `${id} ×${count.get(id)}` : id;
      return { id, label, layer: li, x: 0, w: Math.ceil(textWidth(label, FONT) + 18) };
    });
    const total = boxes.reduce((a, b) => a + b.w, 0) + 14 * Math.max(0, boxes.length - 1);
    width = Math.max(width, total);
    let x = 0;
    for (const b of boxes) {
      b.x = x;
      x += b.w + 14;
      placed.set(b.id, b);
    }
    for (const b of boxes) b.x -= total / 2;
  }
  return { placed, width };
}

/** Where the picture's boxes sit: x of the rows' centre, the widest row, y of a layer's top. */
interface Canvas {
  readonly placed: ReadonlyMap<string, Placed>;
  readonly cx: number;
  readonly width: number;
  readonly yOf: (li: number) => number;
}

const arrow = (x: number, y: number): string => `<path d="M${n2(x - 4)},${n2(y - 7)}L${n2(x)},${n2(y)}L${n2(x + 4)},${n2(y - 7)}Z" fill="#555555"/>`;

/** A forward edge: a curve from the bottom of its source box to the top of its target, with an arrow head. */
function forwardEdgeSvg(c: Canvas, e: Edge): string[] {
  const a = c.placed.get(e.from)!;
  const b = c.placed.get(e.to)!;
  const x1 = c.cx + a.x + a.w / 2;
  const y1 = c.yOf(a.layer) + BOX_H;
  const x2 = c.cx + b.x + b.w / 2;
  const y2 = c.yOf(b.layer);
  const my = (y1 + y2) / 2;
  return [`<path class="edge" d="M${n2(x1)},${n2(y1)}C${n2(x1)},${n2(my)} ${n2(x2)},${n2(my)} ${n2(x2)},${n2(y2 - 1)}" fill="none" stroke="#888888" stroke-width="${n2(Math.min(3, 1 + Math.log10(e.count)))}" data-from="${escapeXml(e.from)}" data-to="${escapeXml(e.to)}"><title>${escapeXml(`${e.from} → ${e.to} (${e.count})`)}</title></path>`, arrow(x2, y2)];
}

/** The i-th loop-closing edge: dashed, out to the right of the rows and back, labelled "iterates". */
function backEdgeSvg(c: Canvas, e: Edge, i: number): string[] {
  const a = c.placed.get(e.from)!;
  const b = c.placed.get(e.to)!;
  const xr = c.cx + c.width / 2 + 24 + i * 14;
  const y1 = c.yOf(a.layer) + BOX_H / 2;
  const y2 = c.yOf(b.layer) + BOX_H / 2;
  const x1 = c.cx + a.x + a.w;
  const x2 = c.cx + b.x + b.w;
  return [
    `<path class="edge back" d="M${n2(x1)},${n2(y1)}C${n2(xr)},${n2(y1)} ${n2(xr)},${n2(y2)} ${n2(x2 + 2)},${n2(y2)}" fill="none" stroke="#D55E00" stroke-dasharray="5 3" stroke-width="1.5" data-from="${escapeXml(e.from)}" data-to="${escapeXml(e.to)}"><title>${escapeXml(`${e.from} → ${e.to}: iterates (${e.count})`)}</title></path>`,
    `<path d="M${n2(x2 + 9)},${n2(y2 - 4)}L${n2(x2 + 2)},${n2(y2)}L${n2(x2 + 9)},${n2(y2 + 4)}Z" fill="#D55E00"/>`,
    `<text x="${n2(xr + 3)}" y="${n2((y1 + y2) / 2)}" font-size="10" fill="#D55E00">iterates</text>`,
  ];
}

function stageBoxSvg(c: Canvas, p: Placed): string {
  const fam = FAMILIES.find((f) => f.test.test(p.id));
  const x = c.cx + p.x;
  const y = c.yOf(p.layer);
  return `<g class="stage" data-stage="${escapeXml(p.id)}"><rect x="${n2(x)}" y="${n2(y)}" width="${p.w}" height="${BOX_H}" rx="5" fill="${fam?.fill ?? "#ffffff"}" stroke="#555555"/><text x="${n2(x + p.w / 2)}" y="${n2(y + BOX_H / 2 + 4)}" text-anchor="middle">${escapeXml(p.label)}</text></g>`;
}

/** The families' colours along the bottom edge, from x = left. */
function familyLegendSvg(left: number, H: number): string[] {
  const out: string[] = [];
  let lx = left;
  for (const f of FAMILIES) {
    out.push(`<rect x="${n2(lx)}" y="${n2(H - 22)}" width="12" height="12" fill="${f.fill}" stroke="#555555"/><text x="${n2(lx + 16)}" y="${n2(H - 12)}" font-size="11">${escapeXml(f.label)}</text>`);
    lx += 16 + textWidth(f.label, 11) + 16;
  }
  return out;
}

/** Layers (longest path over forward edges), barycentric ordering, and an SVG picture. */
export function stageGraphSvg(g: StageGraph): string {
  const { rank, back: backSet } = stageOrder(g);
  const forward = g.edges.filter((e) => !backSet.has(e));
  const back = g.edges.filter((e) => backSet.has(e));
  const layers = layersOf(g, rank, forward);
  barycentricSweeps(layers, forward);
  const { placed, width } = placeBoxes(g, layers);
  const margin = 20;
  const loopRoom = back.length > 0 ? 90 : 0;
  const legendWidth = FAMILIES.reduce((a, f) => a + 16 + textWidth(f.label, 11) + 16, 0);
  const W = Math.ceil(Math.max(width + 2 * margin + loopRoom, legendWidth + 2 * margin));
  const top = 20;
  const c: Canvas = { placed, cx: margin + width / 2, width, yOf: (li) => top + li * LAYER_GAP };
  const H = Math.ceil(c.yOf(layers.length - 1) + BOX_H + 20 + 26);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="${SVG_FONT_FAMILY}" font-size="${FONT}" data-chart="stage-graph">`,
    `<title>Stage graph: ${g.stages.length} stages</title>`,
    `<rect x="0" y="0" width="${W}" height="${H}" fill="#ffffff"/>`,
    ...forward.flatMap((e) => forwardEdgeSvg(c, e)),
    ...back.flatMap((e, i) => backEdgeSvg(c, e, i)),
    ...[...placed.values()].map((p) => stageBoxSvg(c, p)),
    ...familyLegendSvg(margin, H),
    `</svg>`,
  ].join("\n") + "\n";
}
