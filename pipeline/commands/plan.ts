/**
 * `plan`: what a run would do, without running anything. It runs the same analysis as `run`
 * (session.ts `preflight`: unknown targets and steps, the graph, the executor's GPU checks,
 * unpinned datasets to fetch, --only inputs), so it refuses what `run` refuses, with the same
 * messages and exit code 2. Then, per step: cached, run (key known) or pending (waits on a step
 * that runs), and the time the run is expected to take (recorded durations, else cost hints).
 *
 *   --format text      one line per step and a summary (default)
 *   --format json      {nodes, edges, summary} (--json is the same); each node names the files
 *                      that enter its key (`sources`, also while the key is pending) and, for a
 *                      program step, its argv template
 *   --format dot       Graphviz (`dot -Tsvg`); --collapse draws the stage graph (one box per step id)
 *   --format mermaid   a Mermaid flowchart; --collapse as for dot
 *   --gpus N           as run (GPU slots); text adds the GPU steps per kind and how many run at once
 */
import { existsSync } from "node:fs";
import { Option, type Command } from "commander";
import { describeFailures } from "../engine/failures.ts";
import { producerOf, type Graph } from "../engine/graph.ts";
import { wiredInputs } from "../engine/wiring.ts";
import type { PlanRow } from "../engine/engine.ts";
import type { EstimateSource, Estimates } from "../engine/schedule.ts";
import type { AnyStep, RunSettings } from "../engine/step.ts";
import type { SourceScanner } from "../engine/sources.ts";
import type { ExecutorChoice } from "../executors/index.ts";
import { planRun, type Project } from "../session.ts";
import { formatDuration, planEta, planEvent } from "../reporters/overall.ts";
import { collapseGraph } from "../../steps/report/stage-graph.ts";
import { GPUS_OPTION, gpuCount, gpuPlanLines } from "./gpu-plan.ts";
import { repeatable } from "./repeatable.ts";
import { addSlurmOptions, executorOption, withSlurmFlags, type SlurmOptionValues } from "./slurm-options.ts";

export const PLAN_FORMATS = ["text", "json", "dot", "mermaid"] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

export interface PlanNode {
  readonly step: string;
  readonly stepId: string;
  readonly status: PlanRow["status"];
  readonly key?: string;
  readonly expectedSeconds: number;
  /** What the executor would request for it (`--executor slurm`: the sbatch resources). */
  readonly resources?: string;
  /** Where expectedSeconds comes from: this store's earlier runs, the reference run, or a cost hint (a guess). */
  readonly estimate: EstimateSource;
  /**
   * Project-relative files whose bytes enter the step's key (its definition's import closure, its
   * program's): in a plan asked for with its code (`plan --format json`), not in `targets`' costs.
   */
  readonly sources?: readonly string[];
  /** A container step's argv template (placeholders unresolved). */
  readonly argv?: readonly string[];
}

/** What a node says of its step's code: the sources of its key and, for a container step, the argv. */
export function codeOf(step: AnyStep, scanner: SourceScanner): { sources: string[]; argv?: string[] } {
  const sources = Object.keys(scanner.fingerprint(step.def.source, step.def.extraSources ?? []).files);
  const rt = step.def.runtime;
  return rt.type === "container" ? { sources, argv: [...rt.argv] } : { sources };
}

export interface PlanEdge {
  readonly from: string;
  readonly to: string;
  /** The consumer's input (an element of a list or record input: `shards[0]`, `metrics[dpr]`) and the kind flowing along the edge. */
  readonly input: string;
  readonly kind: string;
}

export interface PlanDocument {
  readonly schema: "cspipe.plan/1";
  readonly targets: readonly string[];
  readonly nodes: readonly PlanNode[];
  readonly edges: readonly PlanEdge[];
  readonly summary: {
    readonly steps: number;
    readonly cached: number;
    readonly run: number;
    readonly pending: number;
    readonly expectedSeconds: number;
    readonly concurrency: number;
    /** Of the steps to run or pending: how many durations come from where, their expected seconds in all, and those guessed from hints. */
    readonly estimates: { readonly recorded: number; readonly reference: number; readonly hint: number; readonly seconds: number; readonly hintSeconds: number };
  };
}

/** What a plan document may carry beyond the schedule: the executor's requests, the steps' code (read through `scanner`). */
export interface PlanExtras {
  readonly resources?: ReadonlyMap<string, string>;
  readonly scanner?: SourceScanner;
}

/** The plan as data: nodes in run order, edges producer -> consumer (one per input). Pure unless asked for the code (`extras.scanner`). */
export function planDocument(targets: readonly string[], graph: Graph, rows: readonly PlanRow[], estimates: Estimates, concurrency: number, extras: PlanExtras = {}): PlanDocument {
  const { resources = new Map<string, string>(), scanner } = extras;
  const ev = planEvent(graph, rows, estimates, concurrency);
  const nodes: PlanNode[] = ev.steps.map((s, i) => {
    const r = resources.get(s.step);
    return {
      step: s.step,
      stepId: graph.order[i]!.def.id,
      status: s.status,
      ...(s.key !== undefined ? { key: s.key } : {}),
      expectedSeconds: s.expectedSeconds ?? 0,
      estimate: s.estimate ?? "hint",
      ...(r !== undefined ? { resources: r } : {}),
      ...(scanner !== undefined ? codeOf(graph.order[i]!, scanner) : {}),
    };
  });
  const edges: PlanEdge[] = [];
  for (const s of graph.order) {
    for (const { name: input, ref } of wiredInputs(s)) edges.push({ from: producerOf(graph, s, input).name, to: s.name, input, kind: ref.kind });
  }
  const count = (st: string) => nodes.filter((n) => n.status === st).length;
  return {
    schema: "cspipe.plan/1",
    targets: [...targets],
    nodes,
    edges,
    summary: { steps: nodes.length, cached: count("cached"), run: count("run"), pending: count("pending"), expectedSeconds: Math.round(planEta(ev) * 10) / 10, concurrency, estimates: estimateCounts(nodes) },
  };
}

/** Where the durations of the steps left (to run or pending) come from. */
function estimateCounts(nodes: readonly PlanNode[]): PlanDocument["summary"]["estimates"] {
  const left = nodes.filter((n) => n.status !== "cached");
  const of = (e: EstimateSource) => left.filter((n) => n.estimate === e);
  const sum = (ns: readonly PlanNode[]) => Math.round(ns.reduce((a, n) => a + n.expectedSeconds, 0) * 10) / 10;
  return { recorded: of("recorded").length, reference: of("reference").length, hint: of("hint").length, seconds: sum(left), hintSeconds: sum(of("hint")) };
}

/**
 * "(durations: 12 from this store's runs, 380 from the reference run, 3 guessed)", and "a guess"
 * up front when steps that never ran anywhere carry a quarter or more of the expected work.
 */
export function estimateNote(e: PlanDocument["summary"]["estimates"]): string {
  const parts = [
    e.recorded > 0 ? `${e.recorded} from this store's runs` : "",
    e.reference > 0 ? `${e.reference} from the reference run` : "",
    e.hint > 0 ? `${e.hint} guessed from cost hints` : "",
  ].filter((p) => p !== "");
  if (parts.length === 0) return "(nothing to run)";
  const guess = e.hint > 0 && e.hintSeconds >= 0.25 * e.seconds;
  return `(${guess ? "a guess: " : ""}durations: ${parts.join(", ")})`;
}

const STATUS_FILL: Readonly<Record<PlanRow["status"], string>> = { cached: "#d9ead3", run: "#fce5cd", pending: "#eeeeee" };

const dotId = (s: string): string => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;

/** Graphviz dot; collapsed: one node per step id ("train-dpr ×14"), edges counted. */
export function planDot(doc: PlanDocument, collapse: boolean): string {
  const out = ["digraph plan {", "  rankdir=TB;", '  node [shape=box, style="rounded,filled", fontname="DejaVu Sans", fontsize=10];', '  edge [color="#888888", arrowsize=0.6];'];
  if (collapse) {
    const g = collapseGraph(doc.nodes.map((n) => ({ id: n.step, group: n.stepId })), doc.edges);
    for (const s of g.stages) out.push(`  ${dotId(s.id)} [label=${dotId(s.count > 1 ? `${s.id} ×${s.count}` : s.id)}, fillcolor="#eef2f7"];`);
    for (const e of g.edges) out.push(`  ${dotId(e.from)} -> ${dotId(e.to)}${e.count > 1 ? ` [label="${e.count}"]` : ""};`);
  } else {
    for (const n of doc.nodes) out.push(`  ${dotId(n.step)} [label=${dotId(`${n.step}\n${n.stepId} · ${n.status}${n.key ? ` · ${n.key.slice(0, 12)}` : ""}`)}, fillcolor="${STATUS_FILL[n.status]}"];`);
    for (const e of doc.edges) out.push(`  ${dotId(e.from)} -> ${dotId(e.to)} [tooltip=${dotId(`${e.input} (${e.kind})`)}];`);
  }
  out.push("}");
  return out.join("\n") + "\n";
}

const mermaidText = (s: string): string => s.replace(/"/g, "#quot;");

/** A Mermaid flowchart (node ids n0, n1, ... in plan order; labels quoted). */
export function planMermaid(doc: PlanDocument, collapse: boolean): string {
  const out = ["flowchart TD"];
  if (collapse) {
    const g = collapseGraph(doc.nodes.map((n) => ({ id: n.step, group: n.stepId })), doc.edges);
    const id = new Map(g.stages.map((s, i) => [s.id, `s${i}`]));
    for (const s of g.stages) out.push(`  ${id.get(s.id)}["${mermaidText(s.count > 1 ? `${s.id} ×${s.count}` : s.id)}"]`);
    for (const e of g.edges) out.push(`  ${id.get(e.from)} -->${e.count > 1 ? `|${e.count}|` : ""} ${id.get(e.to)}`);
  } else {
    const id = new Map(doc.nodes.map((n, i) => [n.step, `n${i}`]));
    for (const n of doc.nodes) out.push(`  ${id.get(n.step)}["${mermaidText(n.step)}<br/>${mermaidText(n.stepId)} · ${n.status}"]:::${n.status}`);
    for (const e of doc.edges) out.push(`  ${id.get(e.from)} --> ${id.get(e.to)}`);
    out.push(`  classDef cached fill:${STATUS_FILL.cached}`, `  classDef run fill:${STATUS_FILL.run}`, `  classDef pending fill:${STATUS_FILL.pending}`);
  }
  return out.join("\n") + "\n";
}

export function planText(doc: PlanDocument): string {
  const width = Math.max(0, ...doc.nodes.filter((n) => n.resources !== undefined).map((n) => n.step.length + (n.key ? 13 : 0)));
  const lines = doc.nodes.map((n) => {
    const head = `${n.status.padEnd(8)} ${n.step}${n.key ? ` ${n.key.slice(0, 12)}` : ""}`;
    return n.resources === undefined ? head : `${head.padEnd(width + 9)}  ${n.resources}`;
  });
  const s = doc.summary;
  lines.push(`${s.steps} steps: ${s.cached} cached, ${s.run} to run, ${s.pending} pending on upstream; expected ${formatDuration(s.expectedSeconds)} with ${s.concurrency} at once ${estimateNote(s.estimates)}`);
  return lines.join("\n") + "\n";
}

interface PlanFlags extends SlurmOptionValues {
  force: string[];
  set: string[];
  only?: string;
  json: boolean;
  format: PlanFormat;
  collapse: boolean;
  executor: ExecutorChoice;
  concurrency: number;
  allowCpu: boolean;
  allowUnpinned: boolean;
  offline: boolean;
  dataDir?: string;
  gpus?: number;
}

export interface PlanCommandIO {
  readonly project: () => Promise<Project>;
  readonly out: (text: string) => void;
  readonly err: (line: string) => void;
  readonly setExitCode: (code: number) => void;
}

export function registerPlanCommand(program: Command, io: PlanCommandIO): void {
  addSlurmOptions(program.command("plan"))
    .description("what a run would do (cached, run, or pending on a step that runs) and how long it should take; refuses what run refuses (nothing executes)")
    .argument("[targets...]")
    .option("--force <step>", "treat this step as forced", repeatable, [] as string[])
    .option("--set <path=value>", "as run: override a hyperparameter of the targets' setup (repeatable)", repeatable, [] as string[])
    .option("--only <step>", "plan just this step from cached inputs (error if an input is not cached)")
    .option("--json", "same as --format json", false)
    .addOption(new Option("--format <format>", "text, json (nodes and edges), dot (Graphviz) or mermaid").choices(PLAN_FORMATS).default("text"))
    .option("--collapse", "dot/mermaid: one box per step id (the stage graph)", false)
    .addOption(executorOption("where steps would run (its checks apply; slurm also prints each step's sbatch resources)"))
    .option("--concurrency <n>", "steps at once, for the expected duration", (v: string) => Math.max(1, Number.parseInt(v, 10) || 1), 2)
    .option("--allow-cpu", "as run: let steps that request a GPU run on CPU", false)
    .option("--allow-unpinned", "as run: accept datasets.lock entries whose sha256 is null", false)
    .option("--offline", "as run", false)
    .option("--data-dir <dir>", "as run")
    .option(...GPUS_OPTION, gpuCount)
    .action(async (targets: string[], flags: PlanFlags) => {
      const p = await io.project();
      const dataDir = (await import("./paths.ts")).dataDirOf(flags);
      const settings: RunSettings = { allowCpu: flags.allowCpu, offline: flags.offline, allowUnpinned: flags.allowUnpinned, ...(flags.dataDir && dataDir !== undefined ? { dataDir } : {}) };
      const r = await planRun(p, { targets, sets: flags.set, force: flags.force, ...(flags.only !== undefined ? { only: flags.only } : {}), executor: flags.executor, ...withSlurmFlags(flags), settings, concurrency: flags.concurrency, ...(flags.gpus !== undefined ? { gpus: flags.gpus } : {}) });
      if (!r.ok) {
        for (const line of describeFailures(r.failures)) io.err(line);
        io.setExitCode(2);
        return;
      }
      const format: PlanFormat = flags.json ? "json" : flags.format;
      // Only the JSON document lists each step's code; the other formats do not read it.
      const doc = planDocument(targets, r.graph, r.rows, r.estimates, flags.concurrency, { resources: r.resources, ...(format === "json" ? { scanner: p.scanner } : {}) });
      const render: Readonly<Record<PlanFormat, () => string>> = {
        text: () => planText(doc) + (flags.gpus !== undefined ? gpuPlanLines(r.graph.order, r.rows, flags.gpus).join("\n") + "\n" : ""),
        json: () => JSON.stringify(doc) + "\n",
        dot: () => planDot(doc, flags.collapse),
        mermaid: () => planMermaid(doc, flags.collapse),
      };
      io.out(render[format]());
      // A store that does not exist plans everything cold: say so, since a mistyped --store looks the same.
      if (!existsSync(p.store.root)) io.err(`note: no store at ${p.store.root} yet, so every step is planned as not cached (check --store or $CSPIPE_STORE if you meant an existing store)`);
    });
}
