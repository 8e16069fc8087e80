/**
 * Finding a Python interpreter for container steps run on the host. `CSPIPE_PYTHON`
 * wins; otherwise the first candidate that imports every required module. A miss names
 * what was tried and what to install.
 */
import { spawnSync } from "node:child_process";

export interface PythonProbe {
  readonly path: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly versions?: Record<string, string>;
}

const cache = new Map<string, PythonProbe>();

export function probePython(path: string, modules: readonly string[]): PythonProbe {
  const cacheKey = `${path}\0${modules.join(",")}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const code = [
    "import json, sys, importlib",
    `mods = ${JSON.stringify([...modules])}`,
    "out = {'python': sys.version.split()[0]}",
    "for m in mods:",
    "    try:",
    "        mod = importlib.import_module(m)",
    "        out[m] = getattr(mod, '__version__', 'unknown')",
    "    except Exception as e:",
    "        print(json.dumps({'missing': m, 'error': str(e)})); sys.exit(3)",
    "print(json.dumps(out))",
  ].join("\n");
  const r = spawnSync(path, ["-c", code], { encoding: "utf8", timeout: 60_000 });
  let probe: PythonProbe;
  if (r.error) probe = { path, ok: false, detail: `not runnable (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
  else {
    const last = r.stdout.trim().split("\n").pop() ?? "";
    try {
      const parsed = JSON.parse(last) as Record<string, string>;
      if (r.status === 0) probe = { path, ok: true, detail: "ok", versions: parsed };
      else probe = { path, ok: false, detail: `cannot import ${parsed.missing} (${parsed.error})` };
    } catch {
      probe = { path, ok: false, detail: `exited ${r.status}: ${r.stderr.trim().split("\n").pop() ?? ""}` };
    }
  }
  cache.set(cacheKey, probe);
  return probe;
}

export const DEFAULT_PYTHON_CANDIDATES = ["python3", "/usr/bin/python3", "python"];

export type PythonResolution = { ok: true; probe: PythonProbe } | { ok: false; message: string };

export function resolvePython(modules: readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): PythonResolution {
  const configured = env.CSPIPE_PYTHON;
  const candidates = configured ? [configured] : DEFAULT_PYTHON_CANDIDATES;
  const tried: PythonProbe[] = [];
  for (const c of candidates) {
    const p = probePython(c, modules);
    if (p.ok) return { ok: true, probe: p };
    tried.push(p);
  }
  const need = modules.length ? modules.join(", ") : "python3";
  const lines = tried.map((p) => `  ${p.path}: ${p.detail}`).join("\n");
  const how = [
    `Install them: on Debian/Ubuntu 'apt-get install python3-torch python3-numpy', or 'pip install ${modules.join(" ") || "numpy"}',`,
    `or point CSPIPE_PYTHON at an interpreter that has them${configured ? ` (CSPIPE_PYTHON is set to ${configured})` : ""}.`,
  ].join(" ");
  return { ok: false, message: `needs a Python interpreter with ${need}; tried:\n${lines}\n${how}` };
}
