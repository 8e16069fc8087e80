/**
 * `--set <path>=<value>`: typed hyperparameter overrides, as a pure core (no I/O).
 *
 * A parameter space (e.g. dense/parameters.ts) describes its parameters once, as fields with a
 * kind, a range and a one-line meaning; from that one description come the listing of `params`,
 * the parsing and validation of `--set`, and the application of overrides to the setup record.
 *
 * Rules a user can rely on:
 * - a path is dotted (`schedule.qrecc.lr`); `*` stands for any one segment (`schedule.*.epochs`
 *   sets every dataset), and an explicit path beats a wildcard whatever the order;
 * - the same explicit path given twice, or two wildcards that set one path to different values,
 *   is an error (no silent "last one wins");
 * - every bad argument is reported, each as an InputError naming the argument, the path, the
 *   expected type or range and the fix (an unknown path lists the nearest valid ones).
 */
import { InputError } from "../engine/errors.ts";
import { editDistance } from "../engine/nearest.ts";
import type { OverrideValue, Overrides } from "../engine/targets.ts";

export type Field =
  | { readonly kind: "number"; readonly min?: number; readonly minExclusive?: boolean; readonly max?: number; readonly maxExclusive?: boolean; readonly doc: string }
  | { readonly kind: "int"; readonly min?: number; readonly max?: number; readonly doc: string }
  | { readonly kind: "bool"; readonly doc: string }
  /** A non-empty list of distinct integers, written comma-separated (`seeds=1,2`, or `seeds=[1,2]`). */
  | { readonly kind: "ints"; readonly min?: number; readonly doc: string };

/** A field for a value of type T: numbers get number or int fields, booleans bool, number lists ints. */
export type FieldFor<T> = T extends boolean ? Extract<Field, { kind: "bool" }> : T extends number ? Extract<Field, { kind: "number" | "int" }> : T extends readonly number[] ? Extract<Field, { kind: "ints" }> : never;

/** A description of every field of a record T (a field added to T does not compile until it is described). */
export type Described<T> = { readonly [K in keyof T]-?: FieldFor<T[K]> };

/** One concrete parameter of a space, for one setup. */
export interface ParamDef {
  readonly path: string;
  readonly field: Field;
  /** Its value in the setup the overrides apply to. */
  readonly value: OverrideValue;
  /** Why it cannot be set here (e.g. "applies to the mini benchmark only: ..."); absent when it can. */
  readonly unavailable?: string;
}

/** A cross-field rule broken by the overridden setup: the message and the paths involved. */
export interface Violation {
  readonly message: string;
  readonly paths: readonly string[];
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** The type and range of a field in words: "number > 0", "integer in [1, 64]", "true or false". */
export function typeText(f: Field): string {
  switch (f.kind) {
    case "bool":
      return "true or false";
    case "ints":
      return `comma-separated distinct integers${f.min !== undefined ? ` >= ${f.min}` : ""}`;
    case "int":
      if (f.min !== undefined && f.max !== undefined) return `integer in [${f.min}, ${f.max}]`;
      return `integer${f.min !== undefined ? ` >= ${f.min}` : ""}${f.max !== undefined ? ` <= ${f.max}` : ""}`;
    case "number": {
      const lo = f.min === undefined ? "" : f.minExclusive ? `> ${f.min}` : `>= ${f.min}`;
      const hi = f.max === undefined ? "" : f.maxExclusive ? `< ${f.max}` : `<= ${f.max}`;
      if (lo && hi) return `number in ${f.minExclusive ? "(" : "["}${f.min}, ${f.max}${f.maxExclusive ? ")" : "]"}`;
      return `number${lo ? ` ${lo}` : ""}${hi ? ` ${hi}` : ""}`;
    }
  }
}

/** What a field expects, as a phrase: "a number in (0, 1]", "an integer >= 1", "true or false". */
export function expected(f: Field): string {
  return f.kind === "number" || f.kind === "int" ? `${f.kind === "int" ? "an" : "a"} ${typeText(f)}` : typeText(f);
}

/** A value as `--set` writes it (lists comma-separated). */
export function formatValue(v: OverrideValue): string {
  return typeof v === "object" ? v.join(",") : String(v);
}

const inRange = (f: Extract<Field, { kind: "number" | "int" }>, n: number): boolean => {
  const minEx = f.kind === "number" && f.minExclusive === true;
  const maxEx = f.kind === "number" && f.maxExclusive === true;
  if (f.min !== undefined && (minEx ? n <= f.min : n < f.min)) return false;
  if (f.max !== undefined && (maxEx ? n >= f.max : n > f.max)) return false;
  return true;
};

/** Parse one raw value for a field: the value, or what is wrong with it. */
export function parseValue(f: Field, raw: string): { ok: true; value: OverrideValue } | { ok: false; problem: string } {
  const got = `got '${raw}'`;
  switch (f.kind) {
    case "bool":
      if (raw === "true" || raw === "false") return { ok: true, value: raw === "true" };
      return { ok: false, problem: `expects true or false, ${got}` };
    case "number":
    case "int": {
      const n = Number(raw);
      if (!NUMBER.test(raw) || !Number.isFinite(n) || (f.kind === "int" && !Number.isInteger(n))) return { ok: false, problem: `expects ${expected(f)}, ${got}` };
      if (!inRange(f, n)) return { ok: false, problem: `is out of range: expects ${expected(f)}, ${got}` };
      return { ok: true, value: n };
    }
    case "ints": {
      // One pair of enclosing brackets is allowed, as a list is often written (`seeds=[1,2]`).
      const body = /^\s*\[.*\]\s*$/.test(raw) ? raw.trim().slice(1, -1) : raw;
      const parts = body.split(",").map((p) => p.trim());
      if (body.trim() === "" || parts.some((p) => !/^[+-]?\d+$/.test(p))) return { ok: false, problem: `expects ${typeText(f)} (e.g. 1,2,3), ${got}` };
      const ns = parts.map(Number);
      if (f.min !== undefined && ns.some((n) => n < f.min!)) return { ok: false, problem: `is out of range: expects ${typeText(f)}, ${got}` };
      if (new Set(ns).size !== ns.length) return { ok: false, problem: `expects distinct integers, ${got} (a value repeats)` };
      return { ok: true, value: ns };
    }
  }
}

/**
 * The valid paths nearest to an unknown one (at most `n`, ties by path): by edit distance over
 * the whole path and, so that `lr` finds `schedule.qrecc.lr`, over its last segment. When none
 * is close but the path's parent is a group (`schedule.qrecc.learning_rate`), that group's paths.
 */
export function nearestPaths(path: string, known: readonly string[], n = 3): string[] {
  const last = (p: string) => p.slice(p.lastIndexOf(".") + 1);
  // Initials of a segment's words (learning_rate, learningRate -> lr), so an abbreviation finds its long form and back.
  const initials = (s: string) => s.split(/_|(?=[A-Z])/).map((w) => w.charAt(0).toLowerCase()).join("");
  const abbreviates = (a: string, b: string) => a.length > 1 && (initials(a) === b.toLowerCase() || initials(b) === a.toLowerCase());
  const score = (k: string) => Math.min(editDistance(path, k), editDistance(last(path), last(k)) + (path.includes(".") ? 1 : 0), abbreviates(last(path), last(k)) ? 1 : Infinity);
  const parent = path.includes(".") ? path.slice(0, path.lastIndexOf(".") + 1) : undefined;
  // Siblings first: schedule.qrecc.learning_rate -> schedule.qrecc.lr before schedule.orquac.lr.
  const sibling = (k: string) => (parent !== undefined && k.startsWith(parent) ? 0.5 : 0);
  const ranked = [...known].map((k) => ({ k, d: score(k) - sibling(k) })).sort((a, b) => a.d - b.d || (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  const close = ranked.filter((x) => x.d <= Math.max(2, Math.floor(last(path).length / 2)));
  const pick = close.length > 0 || parent === undefined ? close : ranked.filter((x) => x.k.startsWith(parent) && !x.k.slice(parent.length).includes("."));
  return pick.slice(0, n).map((x) => x.k);
}

/** Does a pattern (segments, `*` = any one segment) match a path? */
const matches = (pattern: readonly string[], path: string): boolean => {
  const segs = path.split(".");
  return segs.length === pattern.length && segs.every((s, i) => pattern[i] === "*" || pattern[i] === s);
};

export interface ParseOptions {
  /** Names the space in messages, e.g. "the dense setup (mini, paper profile)". */
  readonly space: string;
  /** Cross-field rules checked on the overridden values (paths -> value after overrides). */
  readonly check?: (value: (path: string) => OverrideValue | undefined) => readonly Violation[];
}

const LIST_HINT = "'params <target>' lists every path with its type and value";

/**
 * Turn `--set` arguments into overrides over `defs`. Overrides equal to the current value are
 * kept (the user asked for them; they change no key). Every bad argument gives an InputError.
 */
export function parseSets(sets: readonly string[], defs: readonly ParamDef[], options: ParseOptions): { ok: true; overrides: Overrides } | { ok: false; errors: InputError[] } {
  const byPath = new Map(defs.map((d) => [d.path, d]));
  const settable = defs.filter((d) => d.unavailable === undefined).map((d) => d.path);
  const errors: InputError[] = [];
  const fail = (arg: string, message: string, fix: string) => errors.push(new InputError(`--set '${arg}': ${message}`, { fix }));
  /** path -> the value and the argument that set it, for explicit paths and wildcard expansions. */
  const explicit = new Map<string, { value: OverrideValue; arg: string }>();
  const wild = new Map<string, { value: OverrideValue; arg: string }>();
  for (const arg of sets) {
    const eq = arg.indexOf("=");
    const path = eq < 0 ? "" : arg.slice(0, eq).trim();
    const raw = eq < 0 ? "" : arg.slice(eq + 1).trim();
    if (eq < 0 || path === "" || raw === "") {
      fail(arg, `not of the form <path>=<value>${eq >= 0 && path !== "" ? " (the value is empty)" : eq >= 0 ? " (the path is empty)" : ""}.`, `write e.g. --set schedule.qrecc.lr=1e-4; ${LIST_HINT}.`);
      continue;
    }
    const pattern = path.split(".");
    const wildcard = pattern.includes("*");
    const hits = wildcard ? defs.filter((d) => matches(pattern, d.path)) : byPath.has(path) ? [byPath.get(path)!] : [];
    if (hits.length === 0) {
      const group = settable.filter((p) => p.startsWith(`${path}.`));
      if (!wildcard && group.length > 0) {
        fail(arg, `'${path}' is a group of parameters in ${options.space}, not one.`, `set one of them, e.g. ${group.slice(0, 3).map((p) => `${p}=...`).join(", ")}.`);
        continue;
      }
      const near = nearestPaths(path, settable);
      fail(arg, `unknown parameter '${path}' in ${options.space}${near.length ? `; nearest: ${near.join(", ")}` : ""}.`, `${LIST_HINT}.`);
      continue;
    }
    const usable = hits.filter((d) => d.unavailable === undefined);
    if (usable.length === 0) {
      fail(arg, `'${path}' cannot be set here: it ${hits[0]!.unavailable}.`, `leave it out; ${LIST_HINT}.`);
      continue;
    }
    // A wildcard's fields share one kind in practice (same leaf name); each path is checked on its own field.
    let bad = false;
    for (const d of usable) {
      const v = parseValue(d.field, raw);
      if (!v.ok) {
        fail(arg, `${d.path} ${v.problem}.`, `give ${d.path} ${expected(d.field)} (now ${formatValue(d.value)}): ${d.field.doc}.`);
        bad = true;
        break;
      }
      const into = wildcard ? wild : explicit;
      const prev = into.get(d.path);
      if (prev !== undefined && (!wildcard || formatValue(prev.value) !== formatValue(v.value))) {
        fail(arg, `${d.path} is already set by --set '${prev.arg}'.`, "set each path once.");
        bad = true;
        break;
      }
      into.set(d.path, { value: v.value, arg });
    }
    if (bad) continue;
  }
  if (errors.length > 0) return { ok: false, errors };
  const merged = new Map(wild);
  for (const [p, v] of explicit) merged.set(p, v);
  const overrides: Record<string, OverrideValue> = {};
  for (const p of [...merged.keys()].sort()) overrides[p] = merged.get(p)!.value;
  const valueOf = (p: string) => (p in overrides ? overrides[p] : byPath.get(p)?.value);
  for (const v of options.check?.(valueOf) ?? []) {
    const args = [...new Set(v.paths.filter((p) => merged.has(p)).map((p) => merged.get(p)!.arg))];
    if (args.length === 0) continue; // broken before any override: not the user's doing
    errors.push(new InputError(`--set ${args.map((a) => `'${a}'`).join(" ")}: ${v.message} (${v.paths.map((p) => `${p}=${formatValue(valueOf(p)!)}`).join(", ")}).`, { fix: "choose values that satisfy the rule." }));
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, overrides };
}

/** The value at a dotted path of a plain record (undefined where there is none). */
export function getPath(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const seg of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

function setPath(obj: unknown, segs: readonly string[], value: OverrideValue, full: string): unknown {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw new Error(`override ${full}: no record at '${segs.join(".")}'`);
  const [head, ...rest] = segs;
  const rec = obj as Record<string, unknown>;
  if (!Object.hasOwn(rec, head!)) throw new Error(`override ${full}: no field '${head}'`);
  return { ...rec, [head!]: rest.length === 0 ? value : setPath(rec[head!], rest, value, full) };
}

/**
 * The setup with the overrides applied (a new record; `base` is untouched). Paths come from
 * `parseSets` over the same setup, so a path that does not exist is a programming error.
 */
export function applyOverrides<T extends object>(base: T, overrides: Overrides | undefined): T {
  let out: unknown = base;
  for (const path of Object.keys(overrides ?? {}).sort()) out = setPath(out, path.split("."), overrides![path]!, path);
  return out as T;
}

/** Overrides as `--set` arguments, sorted by path (`schedule.qrecc.lr=0.0001 seeds=1,2`). */
export function overridesText(overrides: Overrides | undefined): string[] {
  return Object.keys(overrides ?? {})
    .sort()
    .map((p) => `${p}=${formatValue(overrides![p]!)}`);
}

/** A stage's overrides apart from the dense setup's: the paths under `prefix` (prefix dropped) and the rest, as given. */
export function splitByPrefix(overrides: Overrides | undefined, prefix: string): { readonly own: Record<string, OverrideValue>; readonly rest: Record<string, OverrideValue> } {
  const own: Record<string, OverrideValue> = {};
  const rest: Record<string, OverrideValue> = {};
  for (const [path, v] of Object.entries(overrides ?? {})) {
    if (path.startsWith(prefix)) own[path.slice(prefix.length)] = v;
    else rest[path] = v;
  }
  return { own, rest };
}
