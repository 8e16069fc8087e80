"""The launcher of cspipe's Python programs: `python3 steps <module> [args...]` runs the module
(e.g. `training.dpr.train`) as `python3 -m <module>` would, with this directory, the Python
source root, first on sys.path: Python puts it there when it runs a directory. Programs and the
shared training package (pytrain) import each other by absolute module names, so no program
edits sys.path, and the engine follows the same layout to find a program's import closure
(pipeline/engine/python-imports.ts): that closure is what enters the keys of its steps."""
import runpy
import sys

if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
    sys.stderr.write("usage: python3 steps <module> [args...]   e.g. python3 steps training.dpr.train --help\n")
    sys.exit(2)
module = sys.argv.pop(1)
runpy.run_module(module, run_name="__main__", alter_sys=True)
