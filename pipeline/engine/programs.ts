/**
 * The repository program a container step runs, read from its argv, so that the program's
 * own sources enter the step's key without anyone listing them (defineStep adds them to the
 * step's `extraSources`; SourceScanner follows them). Python programs, as Python runs them:
 *   python3 {src}/<dir> <module> ...   the directory's __main__.py, a launcher that runs <module>
 *                                      as `python3 -m` would, with <dir> first on sys.path
 *   python3 {src}/<path>.py ...        the script, with its own directory first on sys.path
 * Each becomes `python:<root>:<module>`: the module as Python resolves it with the project-relative
 * <root> on sys.path, and its import closure (python-imports.ts). Other argvs name no program.
 */
export const PYTHON_SOURCE = /^python:([^:]+):([\w.]+)$/;

const PYTHON = /^(?:.*\/)?python(?:3(?:\.\d+)?)?$/;
const MODULE = /^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$/;

function posixDirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "." : p.slice(0, i);
}

/** `python:<root>:<module>` sources of the program a runtime's argv runs (empty for any other argv). */
export function programSources(runtime: { readonly type: string; readonly argv?: readonly string[] }): string[] {
  if (runtime.type !== "container" || runtime.argv === undefined) return [];
  const [argv0, program, next] = runtime.argv;
  if (argv0 === undefined || !PYTHON.test(argv0) || program === undefined || !program.startsWith("{src}/")) return [];
  const path = program.slice("{src}/".length).replace(/\/+$/, "");
  if (path.endsWith(".py")) return [`python:${posixDirname(path)}:${path.slice(path.lastIndexOf("/") + 1, -3)}`];
  const out = [`python:${path}:__main__`];
  if (next !== undefined && MODULE.test(next)) out.push(`python:${path}:${next}`);
  return out;
}
