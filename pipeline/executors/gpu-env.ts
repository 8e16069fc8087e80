/**
 * What a GPU step's program is told, under any executor (pure): whether it must find CUDA
 * (CSPIPE_DEVICE_HINT, read by steps/pytrain/run.py, the device rule of every Python program),
 * and which devices are its own.
 */
import type { ContainerRuntime, RunSettings } from "../engine/step.ts";

/** "cuda-required": the step requires a GPU and --allow-cpu is absent; "cpu-allowed": --allow-cpu; else "auto". */
export function deviceHint(rt: ContainerRuntime, settings: RunSettings): "cuda-required" | "cpu-allowed" | "auto" {
  if (settings.allowCpu) return "cpu-allowed";
  return rt.gpu?.required ? "cuda-required" : "auto";
}

/**
 * CUDA_VISIBLE_DEVICES for the scheduler's device indexes 0..N-1, which count the devices this
 * process sees: through the user's own CUDA_VISIBLE_DEVICES when set (its i-th entry), else
 * the device numbers themselves.
 */
export function visibleDevices(devices: readonly number[], inherited: string | undefined): string {
  const own = inherited === undefined || inherited.trim() === "" ? undefined : inherited.split(",").map((d) => d.trim());
  return devices
    .map((d) => {
      if (own === undefined) return String(d);
      const id = own[d];
      if (id === undefined) throw new Error(`GPU slot ${d} is not among CUDA_VISIBLE_DEVICES=${inherited}`);
      return id;
    })
    .join(",");
}
