/**
 * The shape of the synthetic benchmark DAG, shared by the cspipe definitions
 * (`dag.ts`) and the Snakemake workflow (`snakemake/Snakefile` mirrors these rules).
 *
 *   layers x width steps, named `l<LL>-s<SS>` (two digits each).
 *   Layer 0 steps have no inputs and write "<name>\n".
 *   Step (l, j) for l > 0 reads (l-1, j) and (l-1, (j+1) mod width) and writes
 *   "<name> <sha256 hex of the two input texts concatenated>\n".
 *   The sinks are the steps of the last layer; every step is upstream of one of them.
 *
 * Pure: no I/O.
 */
import { createHash } from "node:crypto";
import { InputError } from "../../pipeline/engine/errors.ts";

export interface DagShape {
  readonly layers: number;
  readonly width: number;
}

export const DEFAULT_SHAPE: DagShape = { layers: 20, width: 10 };

/** Throws InputError unless 1 <= layers, width <= 100 (names use two digits). */
export function checkShape(shape: DagShape, field = "shape"): DagShape {
  for (const [name, v] of [["layers", shape.layers], ["width", shape.width]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 100) {
      throw new InputError(`${name} must be an integer in 1..100, got ${String(v)}`, { field: `${field}.${name}`, fix: `pass a ${name} between 1 and 100` });
    }
  }
  return shape;
}

export function stepName(layer: number, index: number): string {
  return `l${String(layer).padStart(2, "0")}-s${String(index).padStart(2, "0")}`;
}

/** The two producers of step (layer, index), as [layer, index] pairs; none for layer 0. */
export function producersOf(shape: DagShape, layer: number, index: number): readonly (readonly [number, number])[] {
  if (layer === 0) return [];
  return [
    [layer - 1, index],
    [layer - 1, (index + 1) % shape.width],
  ];
}

export function stepCount(shape: DagShape): number {
  return shape.layers * shape.width;
}

/** The text a step writes, given its name and its input texts in order (a, b). */
export function stepText(name: string, inputs: readonly string[]): string {
  if (inputs.length === 0) return `${name}\n`;
  return `${name} ${createHash("sha256").update(inputs.join(""), "utf8").digest("hex")}\n`;
}

/** Every step's text, computed directly (the reference both engines must reproduce). */
export function expectedTexts(shape: DagShape): Map<string, string> {
  const out = new Map<string, string>();
  for (let l = 0; l < shape.layers; l++) {
    for (let j = 0; j < shape.width; j++) {
      const inputs = producersOf(shape, l, j).map(([pl, pj]) => out.get(stepName(pl, pj))!);
      out.set(stepName(l, j), stepText(stepName(l, j), inputs));
    }
  }
  return out;
}

/** Read a shape from env vars CSPIPE_BENCH_LAYERS / CSPIPE_BENCH_WIDTH (defaults 20 x 10). */
export function shapeFromEnv(env: Readonly<Record<string, string | undefined>>): DagShape {
  const num = (name: string, dflt: number): number => {
    const v = env[name];
    if (v === undefined || v === "") return dflt;
    const n = Number(v);
    if (!Number.isInteger(n)) throw new InputError(`${name}=${v} is not an integer`, { field: name, fix: `set ${name} to an integer in 1..100 or unset it` });
    return n;
  };
  return checkShape({ layers: num("CSPIPE_BENCH_LAYERS", DEFAULT_SHAPE.layers), width: num("CSPIPE_BENCH_WIDTH", DEFAULT_SHAPE.width) }, "env");
}
