/**
 * How a step, a test or a benchmark runs one of the repository's Python programs: through the
 * launcher steps/__main__.py, `python3 steps <module> [args...]`, which runs the module with
 * steps/ (the Python source root) first on sys.path, as `python3 -m <module>` would from there.
 * Programs import each other and the training package by absolute module names (no program
 * edits sys.path), and the engine reads the same argv to put the program's import closure into
 * the step's key (pipeline/engine/programs.ts).
 */
import { join } from "node:path";

/** The Python source root, relative to the project root. */
export const PYTHON_ROOT = "steps";

/** A container step's argv running `module` (a dotted name under steps/) with `args`. */
export function pythonArgv(module: string, args: readonly string[] = []): string[] {
  return ["python3", `{src}/${PYTHON_ROOT}`, module, ...args];
}

/** The environment that lets a script outside steps/ (a benchmark's) import the programs' modules as they do. */
export function pythonPathEnv(root: string, ...more: string[]): { PYTHONPATH: string } {
  return { PYTHONPATH: [join(root, PYTHON_ROOT), ...more, ...(process.env.PYTHONPATH ? [process.env.PYTHONPATH] : [])].join(":") };
}

/** The interpreter's arguments that run `module` from a checkout at `root` (tests, benchmarks). */
export function pythonCommand(root: string, module: string, args: readonly string[] = []): string[] {
  return [join(root, PYTHON_ROOT), module, ...args];
}
