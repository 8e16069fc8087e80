"""What every program of the package shares at its edges: the stdout protocol (`PROGRESS <done>
<total>`, `EPOCH <json>`, `RESULT <json>` lines; everything else on stderr), the check that the
numeric modules import (exit 3 naming the fix), and the exit codes (2 for bad input, one line
`error: <file>: field '<f>': <what> Fix: <how>`; 1 with a traceback for anything else).

Programs run from the source root `steps/` (the launcher, steps/__main__.py:
`python3 steps <module> ...`), so they and this package import each other by absolute module
names and import torch only after `require_modules` has said what is missing."""
import sys

from pytrain.errors import InputError


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def emit(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def require_modules(*names, fix="apt-get install -y python3-torch python3-numpy (Debian), or pip install torch numpy"):
    """Exits 3 naming the interpreter and the fix when one of the modules does not import."""
    missing = []
    for name in names:
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        sys.stderr.write(f"error: Python module(s) {', '.join(missing)} not importable by {sys.executable}. "
                         f"Fix: {fix}; or point CSPIPE_PYTHON at an interpreter that has them.\n")
        sys.exit(3)


def run_program(main, argv):
    """main(argv) -> exit status; bad input (InputError) is one line on stderr and status 2."""
    try:
        return main(argv)
    except InputError as e:
        sys.stderr.write(f"error: {' '.join(str(e).split())}\n")
        return 2
