/**
 * The `report` target: every registered section (a rendered table or figure) copied into
 * one directory with `index.md` and `index.html`, exported to `./report/` after a run.
 * Sections are a plain array: later stages append their own (`[...LEXICAL_SECTIONS, ...]`).
 */
import { use, type AnyStep, type OutputRef } from "../engine/step.ts";
import { parseParams } from "../engine/graph.ts";
import type { DataSource, ParameterSpace, Target, TargetContext } from "../engine/targets.ts";
import { overridesText } from "./overrides.ts";
import { canonicalJson } from "../engine/canonical.ts";
import { renderProvenanceStep, writeReportStep } from "../../steps/report/steps.ts";
import { wiredInputs } from "../engine/wiring.ts";
import { OUTPUT_VIEWS } from "../../steps/report/provenance-kinds.ts";
import type { ProvenanceNodeSpec } from "../../steps/report/provenance.ts";
import { DATA_LABEL, figure2aBm25, table1Bm25, table2Bm25, table3Bm25 } from "./lexical.ts";

export interface ReportSection {
  readonly kind: "table" | "figure";
  /** Unique among sections; the report step's input name. */
  readonly id: string;
  /** Present on this data source only. */
  readonly only?: DataSource;
  build(ctx: TargetContext): OutputRef<"table"> | OutputRef<"figure">;
}

export const LEXICAL_SECTIONS: ReportSection[] = [
  { kind: "table", id: "table2-bm25", build: table2Bm25 },
  { kind: "table", id: "table1-bm25", build: table1Bm25 },
  { kind: "table", id: "table3-bm25", build: table3Bm25 },
  { kind: "figure", id: "figure2a-bm25", build: figure2aBm25 },
];

/** One sentence on the data behind the numbers, per source. */
export const DATASET_DESCRIPTIONS: Readonly<Record<DataSource, string>> = {
  mini: "The seeded mini benchmark: synthetic conversations written in the native formats of QReCC (test split), TopiOCQA (dev) and OR-QuAC (test), read by the same parsers and steps as the real data.",
  real: "QReCC test (16,451 turns, 8,209 with gold; normalized evaluation skips the rest), TopiOCQA dev, OR-QuAC test.",
};

const NOTES: readonly string[] = [
  "Every number links to the page of the evaluation that produced it (its cache key, params, run file, and the chain back to the data); the JSON/CSV files carry the same keys.",
  "Paper numbers are shown as printed; early-version tables say so under the table.",
];

/** What a report may add besides its sections. */
export interface ReportOptions {
  /** The findings artifact (`json:findings`, findings.json), rendered at the top of the report. */
  readonly findings?: (ctx: TargetContext) => OutputRef<"json:findings">;
  /** The hyperparameters `run <report> --set` may override (the dense setup of the report's profile). */
  readonly parameters?: ParameterSpace;
}

/** A note naming the `--set` overrides the report was built with (none for the plain setup). */
function overridesNote(ctx: TargetContext): string[] {
  const sets = overridesText(ctx.overrides);
  return sets.length === 0 ? [] : [`Built with hyperparameters overridden on the command line: ${sets.map((s) => `--set ${s}`).join(" ")} (the other values are the code's).`];
}

/**
 * The steps a report documents: everything upstream of its sections' outputs (and the render
 * steps themselves), producers before consumers, each with the output its provenance page reads
 * (the first kind with a view, else its first output).
 */
export function documentedSteps(roots: readonly AnyStep[]): { nodes: ProvenanceNodeSpec[]; refs: Record<string, OutputRef> } {
  const seen = new Map<string, AnyStep>();
  const order: AnyStep[] = [];
  const visit = (s: AnyStep): void => {
    if (seen.has(s.name)) return;
    seen.set(s.name, s);
    for (const { ref } of wiredInputs(s)) visit(ref.step);
    order.push(s);
  };
  for (const r of roots) visit(r);
  const kinds = [...OUTPUT_VIEWS.keys()];
  const nodes: ProvenanceNodeSpec[] = [];
  const refs: Record<string, OutputRef> = {};
  for (const s of order) {
    const outputs = Object.keys(s.out).sort();
    const pick = kinds.map((k) => outputs.find((o) => s.out[o]!.kind === k)).find((o) => o !== undefined) ?? outputs[0];
    if (pick === undefined) continue;
    refs[s.name] = s.out[pick]!;
    const parsed = parseParams(s.def, s.params);
    const inputs: Record<string, string> = {};
    for (const { name, ref } of wiredInputs(s)) inputs[name] = ref.step.name;
    nodes.push({ name: s.name, stepId: s.def.id, version: s.def.version, description: s.def.description ?? "", params: parsed.success ? parsed.data : s.params, inputs });
  }
  return { nodes, refs };
}

/** The report step over the given sections (for the target and for tests). */
export function reportStep(allSections: readonly ReportSection[], ctx: TargetContext, name = "write-report", options: ReportOptions = {}) {
  const sections = allSections.filter((s) => s.only === undefined || s.only === ctx.data);
  const seen = new Set<string>();
  for (const s of sections) {
    if (seen.has(s.id)) throw new Error(`report section '${s.id}' is listed twice`);
    seen.add(s.id);
  }
  const tables = sections.filter((s) => s.kind === "table");
  const figures = sections.filter((s) => s.kind === "figure");
  const built = (of: readonly ReportSection[]) => Object.fromEntries(of.map((s) => [s.id, s.build(ctx)]));
  const tableRefs = built(tables) as Record<string, OutputRef<"table">>;
  const figureRefs = built(figures) as Record<string, OutputRef<"figure">>;
  const documented = documentedSteps([...Object.values(tableRefs), ...Object.values(figureRefs)].map((r) => r.step));
  const provenanceName = name === "write-report" ? "render-provenance" : `render-provenance.${name}`;
  const provenance = use(renderProvenanceStep, { name: provenanceName, params: { nodes: documented.nodes }, inputs: { steps: documented.refs } }).out.provenance;
  const findings = options.findings?.(ctx);
  return use(writeReportStep, {
    name,
    params: {
      title: `cspipe report: shortcut dependency in conversational search (${DATA_LABEL[ctx.data]})`,
      data: ctx.data,
      datasetDescription: DATASET_DESCRIPTIONS[ctx.data],
      notes: [...NOTES, ...overridesNote(ctx)],
      order: [...tables, ...figures].map((s) => s.id),
    },
    inputs: { tables: tableRefs, figures: figureRefs, provenance, ...(findings !== undefined ? { findings } : {}) },
  });
}

/** The report target; `name` is also the directory it is exported to (./<name>/). */
export function reportTarget(sections: readonly ReportSection[], name = "report", about = "linking every table and figure", options: ReportOptions = {}): Target {
  // steps() and exports() ask for the same step: build it (the whole graph behind the report, its
  // provenance parameters validated step by step) once per context.
  const built = new Map<string, ReturnType<typeof reportStep>>();
  const step = (ctx: TargetContext) => {
    const key = canonicalJson(ctx);
    let s = built.get(key);
    if (s === undefined) built.set(key, (s = reportStep(sections, ctx, name === "report" ? "write-report" : `write-${name}`, options)));
    return s;
  };
  return {
    name,
    description: `${name}/index.md and ${name}/index.html ${about} (${sections.map((s) => s.id).join(", ")})`,
    steps: (ctx) => [step(ctx)],
    exports: (ctx) => ({ [name]: step(ctx).out.report }),
    ...(options.parameters !== undefined ? { parameters: options.parameters } : {}),
  };
}
