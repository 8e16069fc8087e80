/**
 * Where a target's results land after a run: `results/<target>/` under the export root (the
 * project root, `--export-dir`, or `experiments/<id>/` for a run with `--set`), so every table and
 * figure target ends by naming a folder the user can open, like `report` does with `./report/`.
 * A target with one rendered directory (a table, a figure) exports its files there; one with several
 * outputs (a table and its findings) puts each under its own name inside.
 */
import { basename } from "node:path";
import type { OutputRef } from "../engine/step.ts";
import type { Target, TargetContext } from "../engine/targets.ts";

/** The folder of every target's results, under the export root. */
export const RESULTS_DIR = "results";

/**
 * The exports of a target's result outputs: `results/<target>` for one directory, else
 * `results/<target>/<output file or folder>`; outputs whose file or folder names coincide (two
 * rendered tables are each a `table/`) are each named by their step instead
 * (`results/table5/render-table5/`, `results/table5/render-table5-ceilings/`), so none hides another.
 */
export function resultExports(target: string, refs: readonly OutputRef[]): Record<string, OutputRef> {
  const declared = (r: OutputRef) => r.step.def.outputs[r.output]!;
  if (refs.length === 1 && declared(refs[0]!).dir) return { [`${RESULTS_DIR}/${target}`]: refs[0]! };
  const base = (r: OutputRef) => basename(declared(r).path);
  const shared = new Set(refs.map(base).filter((b, i, all) => all.indexOf(b) !== i));
  return Object.fromEntries(refs.map((r) => [`${RESULTS_DIR}/${target}/${shared.has(base(r)) ? r.step.name : base(r)}`, r]));
}

/** A target whose steps are the producers of `results(ctx)`, exported to `results/<name>/`. */
export function resultTarget(fields: Omit<Target, "steps" | "exports">, results: (ctx: TargetContext) => readonly OutputRef[]): Target {
  return { ...fields, steps: (ctx) => results(ctx).map((r) => r.step), exports: (ctx) => resultExports(fields.name, results(ctx)) };
}

/** Every output of the step behind `ref` (e.g. a findings step's findings.json and findings.md). */
export function stepOutputs(ref: OutputRef): OutputRef[] {
  return Object.entries(ref.step.def.outputs).map(([output, d]) => ({ step: ref.step, output, kind: d.kind }));
}
