"""What an interpreter computes with, for cspipe's executors (pipeline/executors/numerics/probe.ts).

    python3 probe_interpreter.py MODULE...

Run under the environment a program would get (kernel pins, threads): prints one JSON line with
the Python version, the machine, each module's version (or why it does not import), and for
torch the CUDA devices, the ATen CPU capability in use and the BLAS actually loaded (its own
version string, naming the kernel core type it chose). `files` lists what the answer depends on
(interpreter, module files, BLAS library) so the caller can tell when it is stale.
Uses only the standard library besides the modules asked for.
"""
import ctypes
import importlib
import json
import os
import platform
import sys

BLAS_CALLS = (("openblas_get_config", "openblas"), ("mkl_get_version_string", "mkl"))


def _loaded_libraries():
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            return sorted({line.split()[-1] for line in f if "/" in line and ".so" in line.split()[-1]})
    except OSError:
        return []


def _blas(paths):
    """The loaded BLAS's own description: OpenBLAS's config string (version, core type) or MKL's version."""
    for path in paths:
        name = os.path.basename(path)
        if not any(s in name for s in ("blas", "mkl", "lapack")):
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol, kind in BLAS_CALLS:
            fn = getattr(lib, symbol, None)
            if fn is None:
                continue
            if kind == "openblas":
                fn.restype = ctypes.c_char_p
                return {"kind": kind, "config": fn().decode(), "path": os.path.realpath(path)}
            buf = ctypes.create_string_buffer(256)
            fn(buf, 256)
            return {"kind": kind, "config": buf.value.decode(), "path": os.path.realpath(path)}
    return None


def static_blas(build_config):
    """The BLAS linked into torch itself (pip wheels link MKL statically, so no BLAS library shows
    in the process's maps), from torch.__config__.show(): its BLAS_INFO and, for MKL, MKL's own
    version line. None when the build names no BLAS, or a generic one (a shared library then)."""
    info = None
    for part in build_config.replace("\n", ",").split(","):
        if "BLAS_INFO=" in part:
            info = part.split("BLAS_INFO=", 1)[1].strip()
    if info in (None, "", "generic", "open"):
        return None
    version = next((line.strip().lstrip("- ") for line in build_config.splitlines() if "Math Kernel Library" in line), None)
    return {"kind": info, "config": f"{version or info} (linked into torch)"}


def _torch(torch):
    out = {"version": torch.__version__, "cuda": torch.version.cuda, "devices": 0, "names": []}
    try:
        if torch.cuda.is_available():
            n = torch.cuda.device_count()
            out["devices"] = n
            out["names"] = [torch.cuda.get_device_name(i) for i in range(n)]
            out["cudnn"] = torch.backends.cudnn.version()
    except Exception as e:  # noqa: BLE001 - a broken CUDA setup is a fact to report
        out["cuda_error"] = str(e)
    build_config = torch.__config__.show()
    for line in build_config.splitlines():
        if "CPU capability usage:" in line:
            out["capability"] = line.split(":", 1)[1].strip()
    a = torch.ones((8, 8))
    (a @ a).sum().item()  # loads the BLAS behind matmul
    linked = static_blas(build_config)
    if linked is not None:
        lib = os.path.join(os.path.dirname(os.path.realpath(torch.__file__)), "lib", "libtorch_cpu.so")
        out["linked_blas"] = {**linked, "path": lib if os.path.exists(lib) else os.path.realpath(torch.__file__)}
    return out


def main(modules):
    out = {"python": sys.version.split()[0], "executable": os.path.realpath(sys.executable),
           "machine": platform.machine(), "modules": {}, "errors": {}}
    files = [out["executable"]]
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - any import failure means the module is unusable
            out["errors"][name] = f"{type(e).__name__}: {e}"
            continue
        out["modules"][name] = str(getattr(mod, "__version__", "unknown"))
        if getattr(mod, "__file__", None):
            files.append(os.path.realpath(mod.__file__))
        if name == "torch":
            out["torch"] = _torch(mod)
    if "torch" in out["modules"] or "numpy" in out["modules"]:
        linked = out.get("torch", {}).pop("linked_blas", None)
        out["blas"] = _blas(_loaded_libraries()) or linked
        if out["blas"]:
            files.append(out["blas"]["path"])
    # Installing or removing a package changes its directory: an answer about a missing module goes stale then.
    here = os.path.dirname(os.path.realpath(__file__))
    files += [os.path.realpath(p) for p in sys.path if p and os.path.isdir(p) and os.path.realpath(p) != here]
    out["files"] = sorted(set(files))
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
