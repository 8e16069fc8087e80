/**
 * Numerics identities (the `numerics` component of a key, fingerprint.ts) in words, for `show`,
 * a run's `numerics` lines and the report. The identities are built by the executors
 * (pipeline/executors/numerics/identity.ts) and by native-numerics.ts; this only reads them.
 */
import type { Json } from "./canonical.ts";

/** One line in words, for `explain`, `plan` and the report. */
export function describeNumerics(n: Json): string {
  if (n === null || typeof n !== "object" || Array.isArray(n)) return "JavaScript only (the same on every machine)";
  const r = n as Record<string, Json>;
  if (r.device === "in-process") {
    const native = r.native as Record<string, Record<string, Json>>;
    return Object.entries(native).map(([p, v]) => `${p} (${Object.entries(v).map(([k, x]) => `${k} ${String(x)}`).join(", ")})`).join("; ");
  }
  if (r.executor === "dagger") return `Dagger container on ${String(r.device)} (${String(r.kernels)} kernels, ${String(r.threads)} thread${r.threads === 1 ? "" : "s"})`;
  const mods = Object.entries((r.modules ?? {}) as Record<string, Json>).map(([m, v]) => `${m} ${String(v)}`).join(", ");
  const where = r.device === "cuda" ? `CUDA on ${((r.gpus ?? []) as Json[]).join(", ")} (CUDA ${String(r.cuda)}, cuDNN ${String(r.cudnn)})` : `CPU ${String(r.machine)}`;
  const kernels = r.kernels === "pinned-avx2" ? "pinned AVX2 kernels" : `the host's kernels on ${String((r.cpu as Record<string, Json> | undefined)?.model ?? "?")}${hostEnv(r.env)}`;
  const libs = [r.blas === null || r.blas === undefined ? undefined : String(r.blas), r.aten === null || r.aten === undefined ? undefined : `ATen ${String(r.aten)}`].filter((x) => x !== undefined);
  const threads = `${String(r.threads)} thread${r.threads === 1 ? "" : "s"}`;
  return `${where}, ${kernels}${libs.length > 0 ? ` (${libs.join("; ")})` : ""}, ${threads}, Python ${String(r.python)}${mods ? `, ${mods}` : ""}`;
}

function hostEnv(env: Json | undefined): string {
  const e = (env ?? {}) as Record<string, Json>;
  const set = Object.entries(e).map(([k, v]) => `${k}=${String(v)}`);
  return set.length > 0 ? ` with ${set.join(" ")}` : "";
}

/** The distinct numerics of `steps` in words, each with how many steps compute with it (most first). */
export function numericsGroups(identities: readonly Json[]): { description: string; steps: number }[] {
  const counts = new Map<string, number>();
  for (const n of identities) {
    const d = describeNumerics(n);
    counts.set(d, (counts.get(d) ?? 0) + 1);
  }
  return [...counts].map(([description, steps]) => ({ description, steps })).sort((a, b) => b.steps - a.steps || (a.description < b.description ? -1 : 1));
}
