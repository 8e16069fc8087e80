/**
 * How many GPU slots a run has (`--gpus N`, else what the executor's probe finds) and the
 * planning failures that follow: `--gpus` beyond what the local probe sees, and steps asking
 * for more GPUs than the run has. The scheduler then hands devices out (engine/devices.ts).
 */
import type { Executor } from "../engine/executor.ts";
import type { AnalysisFailure } from "../engine/failures.ts";
import type { AnyStep, RunSettings } from "../engine/step.ts";
import { oversizedGpuRequests } from "../engine/devices.ts";

export interface GpuSlots {
  readonly gpus: number;
  readonly detail: string;
  readonly failures: readonly AnalysisFailure[];
}

export async function gpuSlots(exec: Executor, steps: readonly AnyStep[], settings: RunSettings, requested?: number): Promise<GpuSlots> {
  const gpuSteps = steps.filter((s) => s.def.runtime.type === "container" && s.def.runtime.gpu !== undefined);
  if (gpuSteps.length === 0) return { gpus: requested ?? 0, detail: "no step asks for a GPU", failures: [] };
  const found = exec.gpuDevices ? await exec.gpuDevices(gpuSteps) : undefined;
  const failures: AnalysisFailure[] = [];
  let gpus = requested ?? found?.count ?? 0;
  let detail = requested !== undefined ? `--gpus ${requested}` : (found?.detail ?? "no GPU probe");
  if (requested !== undefined && found !== undefined && exec.name === "local" && requested > found.count) {
    if (found.count === 0 && settings.allowCpu) {
      gpus = 0;
      detail = `--gpus ${requested} ignored: ${found.detail} (--allow-cpu: GPU steps run on CPU)`;
    } else {
      failures.push({ reason: "gpu-unavailable", step: gpuSteps[0]!.name, detail: `--gpus ${requested} asks for more devices than the probe finds: ${found.detail}` });
    }
  }
  for (const o of oversizedGpuRequests(gpuSteps, gpus)) {
    failures.push({ reason: "gpu-unavailable", step: o.step, detail: `it asks for ${o.wanted} GPUs and the run has ${gpus} (--gpus)` });
  }
  return { gpus, detail, failures };
}
