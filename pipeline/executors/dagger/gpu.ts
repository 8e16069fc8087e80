/**
 * Does the Dagger engine have GPUs? Under `dagger run` the engine may be on this host (in
 * a container started by the CLI) or remote (`_EXPERIMENTAL_DAGGER_RUNNER_HOST`), so the
 * host's own `nvidia-smi` is only evidence for a local engine. Policy, first match wins:
 *
 *   1. CSPIPE_DAGGER_GPU=1 (or true/yes): trust it, the engine has GPUs.
 *   2. CSPIPE_DAGGER_GPU=0 (or false/no): the engine has none.
 *   3. A remote engine (_EXPERIMENTAL_DAGGER_RUNNER_HOST set): unknown, so no; the detail
 *      tells the user to set CSPIPE_DAGGER_GPU=1 when it has GPUs.
 *   4. A local engine: yes when this host has an NVIDIA GPU (nvidia-smi -L) *and*
 *      _EXPERIMENTAL_DAGGER_GPU_SUPPORT is set (Dagger only passes GPUs through when the
 *      engine was started with it).
 *
 * The probe never connects to the engine: planning stays instant and a fully cached run
 * never touches Dagger.
 */
import type { AnyStep, RunSettings } from "../../engine/step.ts";
import type { AnalysisFailure } from "../../engine/failures.ts";

export interface GpuVerdict {
  readonly ok: boolean;
  readonly detail: string;
}

export type HostGpuProbe = () => GpuVerdict;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

export function daggerGpuVerdict(env: Readonly<Record<string, string | undefined>>, hostProbe: HostGpuProbe): GpuVerdict {
  const flag = env.CSPIPE_DAGGER_GPU?.trim().toLowerCase();
  if (flag !== undefined && flag !== "") {
    if (TRUE.has(flag)) return { ok: true, detail: "CSPIPE_DAGGER_GPU says the Dagger engine has GPUs" };
    if (FALSE.has(flag)) return { ok: false, detail: "CSPIPE_DAGGER_GPU=0 says the Dagger engine has no GPU" };
    return { ok: false, detail: `CSPIPE_DAGGER_GPU='${env.CSPIPE_DAGGER_GPU}' is neither 1 nor 0` };
  }
  const runner = env._EXPERIMENTAL_DAGGER_RUNNER_HOST;
  if (runner) {
    return {
      ok: false,
      detail: `the Dagger engine is remote (${runner}) and cspipe cannot see its GPUs; set CSPIPE_DAGGER_GPU=1 if it has NVIDIA GPUs with GPU support enabled`,
    };
  }
  const host = hostProbe();
  if (!host.ok) return { ok: false, detail: `the Dagger engine runs on this host and ${host.detail}` };
  if (!env._EXPERIMENTAL_DAGGER_GPU_SUPPORT) {
    return {
      ok: false,
      detail:
        "this host has a GPU but _EXPERIMENTAL_DAGGER_GPU_SUPPORT is unset, so the Dagger engine does not pass GPUs through; " +
        "export _EXPERIMENTAL_DAGGER_GPU_SUPPORT=1 before 'dagger run' (or set CSPIPE_DAGGER_GPU=1 if the engine already has it)",
    };
  }
  return { ok: true, detail: host.detail };
}


/**
 * Planning-time failures: a step that *requires* a GPU on an engine without one fails,
 * unless `--allow-cpu` (then it runs without a GPU request).
 */
export function gpuFailures(steps: readonly AnyStep[], settings: RunSettings, verdict: () => GpuVerdict): AnalysisFailure[] {
  if (settings.allowCpu) return [];
  const required = steps.filter((s) => s.def.runtime.type === "container" && s.def.runtime.gpu?.required);
  if (required.length === 0) return [];
  const v = verdict();
  if (v.ok) return [];
  return required.map((s) => ({ reason: "gpu-unavailable", step: s.name, detail: v.detail }));
}
