/**
 * Finding a Python interpreter for container steps run on the host. `CSPIPE_PYTHON`
 * wins; otherwise the first candidate that imports every required module. A miss names
 * what was tried and what to install. Each candidate is asked once (numerics/probe.ts:
 * remembered per interpreter across commands).
 */
import { probeInterpreter, type InterpreterFacts, type ProbeOptions } from "./numerics/probe.ts";

export const DEFAULT_PYTHON_CANDIDATES = ["python3", "/usr/bin/python3", "python"];

export type PythonResolution = { ok: true; facts: InterpreterFacts } | { ok: false; message: string };

/** How a candidate is asked (default: probeInterpreter). */
export type Prober = (python: string, modules: readonly string[], env: Readonly<Record<string, string | undefined>>) => InterpreterFacts;

/** Pure: why `facts` cannot run a program importing `modules` (undefined: it can). */
export function unusable(facts: InterpreterFacts, modules: readonly string[]): string | undefined {
  if (!facts.ok) return facts.detail;
  const missing = modules.find((m) => !(m in facts.modules));
  return missing === undefined ? undefined : `cannot import ${missing} (${facts.errors[missing] ?? "not found"})`;
}

export function resolvePython(
  modules: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
  opts: ProbeOptions & { readonly prober?: Prober } = {},
): PythonResolution {
  const prober: Prober = opts.prober ?? ((p, m, e) => probeInterpreter(p, m, e, opts));
  const configured = env.CSPIPE_PYTHON;
  const candidates = configured ? [configured] : DEFAULT_PYTHON_CANDIDATES;
  const tried: string[] = [];
  for (const c of candidates) {
    const facts = prober(c, modules, env);
    const why = unusable(facts, modules);
    if (why === undefined) return { ok: true, facts };
    tried.push(`  ${c}: ${why}`);
  }
  const need = modules.length ? modules.join(", ") : "python3";
  const how = [
    `Install them: on Debian/Ubuntu 'apt-get install python3-torch python3-numpy', or 'pip install ${modules.join(" ") || "numpy"}',`,
    `or point CSPIPE_PYTHON at an interpreter that has them${configured ? ` (CSPIPE_PYTHON is set to ${configured})` : ""}.`,
  ].join(" ");
  return { ok: false, message: `needs a Python interpreter with ${need}; tried:\n${tried.join("\n")}\n${how}` };
}
