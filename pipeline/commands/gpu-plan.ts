/**
 * `--gpus N` on the command line: the option's parser, and what `plan --gpus N` adds below the
 * plan: the steps that take GPU slots, per step kind, and how many can run at once.
 */
import { InvalidArgumentError } from "commander";
import type { AnyStep } from "../engine/step.ts";
import type { PlanRow } from "../engine/engine.ts";
import { devicesWanted } from "../engine/devices.ts";

export const GPUS_OPTION = ["--gpus <n>", "GPU slots: steps that ask for GPUs each get their own devices (CUDA_VISIBLE_DEVICES locally, per-device requests under Dagger) instead of a --concurrency slot (default: the devices the step's torch sees)"] as const;

export function gpuCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("must be an integer >= 0");
  return n;
}

/** Lines summarising the GPU steps of a plan with `gpus` slots (pure). */
export function gpuPlanLines(steps: readonly AnyStep[], rows: readonly PlanRow[], gpus: number): string[] {
  const status = new Map(rows.map((r) => [r.step, r.status]));
  const byKind = new Map<string, { steps: number; todo: number; devices: number; required: boolean }>();
  for (const s of steps) {
    const rt = s.def.runtime;
    if (rt.type !== "container" || rt.gpu === undefined) continue;
    const k = byKind.get(s.def.id) ?? { steps: 0, todo: 0, devices: 0, required: false };
    k.steps++;
    if (status.get(s.name) !== "cached") k.todo++;
    k.devices = Math.max(k.devices, gpus > 0 ? devicesWanted(s, gpus) : rt.gpu.count === "all" ? 0 : rt.gpu.count);
    k.required ||= rt.gpu.required;
    byKind.set(s.def.id, k);
  }
  if (byKind.size === 0) return [`GPU slots: ${gpus}; no step asks for a GPU`];
  const total = [...byKind.values()].reduce((a, k) => a + k.todo, 0);
  const lines = [`GPU slots: ${gpus}${gpus === 0 ? " (GPU steps would share the --concurrency slots, on CPU with --allow-cpu)" : ""}; ${total} GPU steps to run or pending:`];
  for (const [id, k] of [...byKind.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const each = k.devices > 0 ? `${k.devices} GPU${k.devices > 1 ? "s" : ""} each` : "every GPU";
    const parallel = gpus > 0 && k.devices > 0 ? `, up to ${Math.floor(gpus / k.devices)} at once` : "";
    lines.push(`  ${id.padEnd(24)} ${String(k.todo).padStart(4)} of ${String(k.steps).padStart(4)} steps, ${each}${parallel}${k.required ? " (GPU required)" : ""}`);
  }
  return lines;
}
