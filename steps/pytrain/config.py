"""The one config validator of every program: a config JSON checked against its schema (a module
generated from the TypeScript source of the program's keys, e.g. training/dpr/config_schema.py).
Unknown keys are errors (to catch typos); every field's type, choices and range is checked;
`init` is a tagged union whose kinds name their required and optional keys, and its relative
paths are relative to the config file."""
import json
import os

from pytrain.errors import InputError


def check_field(key, field, v, path):
    """One key against its schema entry: type, choices and range."""
    kind = field["kind"]
    if kind == "int?" and v is None:
        return
    if kind == "bool":
        if not isinstance(v, bool):
            raise InputError(f"expected a boolean, got {type(v).__name__}", path, key)
        return
    if kind == "enum":
        if v not in field["values"]:
            raise InputError(f"{v!r} is not one of {', '.join(field['values'])}", path, key)
        return
    numeric = int if kind in ("int", "int?") else (int, float)
    if isinstance(v, bool) or not isinstance(v, numeric):
        raise InputError(f"expected {'an integer' if numeric is int else 'a number'}, got {v!r}", path, key)
    lo, hi = field.get("min"), field.get("max")
    if lo is not None and (v <= lo if field.get("minExclusive") else v < lo):
        raise InputError(f"must be {'>' if field.get('minExclusive') else '>='} {lo}, got {v!r}", path, key)
    if hi is not None and (v >= hi if field.get("maxExclusive") else v > hi):
        raise InputError(f"must be {'<' if field.get('maxExclusive') else '<='} {hi}, got {v!r}", path, key)


def defaults(schema):
    return {**{k: f["default"] for k, f in schema["fields"].items()}, "init": None}


def _check_init(init, kinds, path):
    if not isinstance(init, dict):
        raise InputError("expected an object", path, "init", 'e.g. {"kind": "random"}')
    kind = init.get("kind")
    if kind not in kinds:
        raise InputError(f"init.kind {kind!r} is not one of {', '.join(kinds)}", path, "init.kind")
    spec = kinds[kind]
    for k in spec["required"]:
        if not isinstance(init.get(k), str):
            raise InputError(f"init kind {kind!r} needs a path string", path, f"init.{k}")
    extra = sorted(set(init) - {"kind", *spec["required"], *spec["optional"]})
    if extra:
        raise InputError(f"unknown key(s) {', '.join(extra)} for init kind {kind!r}", path, f"init.{extra[0]}")
    base = os.path.dirname(os.path.abspath(path)) if path != "<config>" else os.getcwd()
    return {**init, **{k: os.path.join(base, init[k]) for k in spec["required"]}}


def validate_config(raw, schema, path="<config>"):
    """The config with defaults filled in, or InputError naming the first bad key."""
    if not isinstance(raw, dict):
        raise InputError("config must be a JSON object", path)
    known = defaults(schema)
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise InputError(f"unknown key(s) {', '.join(unknown)}", path, unknown[0], f"valid keys: {', '.join(sorted(known))}")
    cfg = {**known, **raw}
    for key, field in schema["fields"].items():
        check_field(key, field, cfg[key], path)
    cfg["init"] = _check_init(cfg["init"], schema["init_kinds"], path)
    return cfg


def read_config(path):
    """The config file's JSON (InputError when missing or not JSON)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise InputError("config file not found", path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"not valid JSON (line {e.lineno}: {e.msg})", path) from None


def with_init(raw, init, flag, path):
    """`raw` with `init` from a command-line flag; the config's own init and the flag exclude each other."""
    if init is None or not isinstance(raw, dict):
        return raw
    if raw.get("init") is not None:
        raise InputError(f"both {flag} and init are given", path, "init", f"drop the config's init or the {flag} flag")
    return {**raw, "init": init}


def load_config(path, schema, init=None, flag="an init flag"):
    """Reads and validates a config; `init` (from `flag`, e.g. --init-from) takes the place of the config's."""
    return validate_config(with_init(read_config(path), init, flag, path), schema, path)
