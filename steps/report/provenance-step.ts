/**
 * The `render-provenance` step: static provenance pages for every step behind the report.
 *
 * The definitions describe the graph upstream of the report's tables and figures (each
 * step's name, id, version, description, validated params, and which step feeds each of its
 * inputs: the params) and wire one output of every such step into its `steps` input, by step
 * name (so the step sees each one's cache key and kind through `inputKeys`, and reads the small
 * outputs it shows: metrics,
 * run files, training records). It writes `provenance/`: `<key>.html` per entry, the run files
 * and metrics to download, `index.html`, `index.json` (key -> step, names, summary),
 * `numerics.json` (the numerics its models were computed with; refused when trained models
 * differ: numerics-record.ts) and `stages.svg`, the collapsed stage graph. Same inputs, same bytes: nothing is read from the
 * store's logs or clocks.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { z } from "zod";
import { anyRecord, defineStep, dir } from "../../pipeline/engine/step.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { consumersOf, paramsLine, type ProvenanceNodeSpec } from "./provenance.ts";
import { OUTPUT_VIEWS, placeFile } from "./provenance-kinds.ts";
import { indexPage, nodePage, page, type PageNode } from "./provenance-page.ts";
import { collapseGraph, stageGraphSvg } from "./stage-graph.ts";
import { numericsRecord } from "./numerics-record.ts";

const nodeSchema = z
  .object({
    name: z.string().min(1),
    stepId: z.string().min(1),
    version: z.number().int(),
    description: z.string(),
    params: z.unknown(),
    inputs: z.record(z.string(), z.string()),
  })
  .strict();

const params = z
  .object({
    /** Every documented step, producers before consumers. */
    nodes: z.array(nodeSchema),
    /** Stage the report itself adds after the documented steps (drawn in the stage graph). */
    reportStage: z.string().default("write-report"),
  })
  .strict();

export type RenderProvenanceParams = z.input<typeof params>;

/** What `index.json` records per entry (the report step links through it). */
export interface ProvenanceIndexEntry {
  readonly key: string;
  readonly stepId: string;
  readonly names: readonly string[];
  readonly summary: string;
  readonly page: string;
}

export interface ProvenanceIndex {
  readonly schema: "cspipe.provenance/1";
  readonly entries: readonly ProvenanceIndexEntry[];
}

/** `render-provenance`: pages for the documented steps, one output of each wired as `steps`, by step name (of any kind). */
export const renderProvenanceStep = defineStep({
  id: "render-provenance",
  version: 1,
  // Its outputs name the producers' keys (provenance links): they are in its key (step.ts provenanceKeys).
  provenanceKeys: true,
  source: import.meta.url,
  description: "Static provenance pages (HTML) for every step behind the report, with run files, metrics and training curves.",
  params,
  inputs: { steps: anyRecord() },
  outputs: { provenance: dir("provenance", "provenance") },
  runtime: {
    type: "in-process",
    async run(ctx) {
      const out = ctx.outputs.provenance;
      const specs = ctx.params.nodes as readonly ProvenanceNodeSpec[];
      const wired = ctx.inputKeys.steps;
      const keyOf = (name: string): string | undefined => wired[name]?.key;
      const byKey = new Map<string, { spec: ProvenanceNodeSpec; names: string[] }>();
      for (const s of specs) {
        const key = keyOf(s.name);
        if (key === undefined) throw new InputError(`documented step '${s.name}' is not wired`, { field: `nodes.${s.name}`, fix: "wire one output of every documented step as an input named after it" });
        const prev = byKey.get(key);
        if (prev) prev.names.push(s.name);
        else byKey.set(key, { spec: s, names: [s.name] });
      }
      // Large files (run files) are copied only where an evaluation of the report reads them.
      const evaluated = new Set(specs.filter((s) => wired[s.name]?.kind === "json:metrics").flatMap((s) => Object.values(s.inputs)));
      const nodes = new Map<string, PageNode>();
      for (const [key, { spec, names }] of byKey) {
        const kind = wired[spec.name]!.kind;
        const reader = OUTPUT_VIEWS.get(kind);
        const view = reader === undefined ? undefined : await reader(ctx.inputs.steps[spec.name]!, key, { copy: names.some((n) => evaluated.has(n)), storePath: `entries/${spec.stepId}/${key}/` });
        const nodeInputs: Record<string, string | undefined> = {};
        for (const [input, producer] of Object.entries(spec.inputs)) nodeInputs[input] = keyOf(producer);
        nodes.set(key, {
          name: names[0]!,
          names: [...names].sort(),
          stepId: spec.stepId,
          key,
          version: spec.version,
          description: spec.description,
          params: spec.params,
          kind,
          view,
          inputs: nodeInputs,
          summary: view?.summary ?? (paramsLine(spec.params) || spec.description),
        });
      }
      const numerics = numericsRecord([...nodes.values()].flatMap((n) => (n.view?.numerics === undefined ? [] : [{ name: n.name, ...n.view.numerics }])));
      await writeFile(join(out, "numerics.json"), JSON.stringify(numerics, null, 2) + "\n");
      const consumers = consumersOf(nodes);
      for (const n of nodes.values()) {
        await writeFile(join(out, page(n.key)), nodePage(n, nodes, consumers.get(n.key) ?? [], `entries/${n.stepId}/${n.key}/ (log.txt: the full log)`));
        for (const f of n.view?.files ?? []) {
          const to = join(out, f.to);
          await mkdir(dirname(to), { recursive: true });
          await placeFile(f.from, to, f.gzip === true);
        }
      }
      const stageNodes = specs.map((s) => ({ id: s.name, group: s.stepId }));
      const sinks = specs.filter((s) => !specs.some((o) => Object.values(o.inputs).includes(s.name)));
      const stageEdges = specs.flatMap((s) => Object.values(s.inputs).map((from) => ({ from, to: s.name })));
      const report = `\u0000${ctx.params.reportStage}`;
      const stages = stageGraphSvg(collapseGraph([...stageNodes, { id: report, group: ctx.params.reportStage }], [...stageEdges, ...sinks.map((s) => ({ from: s.name, to: report }))]));
      await writeFile(join(out, "stages.svg"), stages);
      await writeFile(join(out, "index.html"), indexPage(nodes, stages));
      const index: ProvenanceIndex = {
        schema: "cspipe.provenance/1",
        entries: [...nodes.values()].sort((a, b) => (a.key < b.key ? -1 : 1)).map((n) => ({ key: n.key, stepId: n.stepId, names: n.names, summary: n.summary, page: page(n.key) })),
      };
      await writeFile(join(out, "index.json"), JSON.stringify(index, null, 2) + "\n");
      ctx.log(`provenance: ${nodes.size} entries, ${specs.length} steps`);
    },
  },
});
