/**
 * The fingerprint is a plain record of everything that can change a step's outputs;
 * the cache key is the sha256 of its canonical JSON. The record is stored beside the
 * outputs (fingerprint.json) so `explain` can say which component changed.
 *
 * What enters a key (keep README.md in sync):
 *   step      the step def id and version
 *   sources   sha256 of every file in the defining module's import closure (+ extraSources)
 *   packages  versions of npm packages imported by that closure
 *   params    the validated params (defaults filled in), canonical JSON
 *   inputs    for each input: its kind and the sha256 digest of the producing output's bytes
 *             (not the producer's key: identical bytes keep consumers cached = early cutoff);
 *             a list input's elements by position, a record's by name, an optional one only
 *             when wired (keys.ts)
 *   datasets  for each datasets.lock entry read: the digest of its canonical entry
 *   env       values of the allow-listed environment variables the step declares
 *   runtime   in-process, or container image digest + argv template + pip pins + GPU request
 *   numerics  what the arithmetic depends on beyond all of the above (null when nothing does):
 *             for a program step, where and with what it computes (CPU with pinned kernels or
 *             the host's, threads, interpreter, module and BLAS versions; or the GPU models and
 *             CUDA/cuDNN versions), from its executor; for an in-process step, the native
 *             numeric packages its closure loads (engine/native-numerics.ts). The executor's
 *             name is not in the key: two executors that compute with the same numerics share
 *             entries, two machines that would compute other bytes never do.
 */
import { canonicalJson, sha256Hex, type Json } from "./canonical.ts";

export const FINGERPRINT_SCHEMA = 2;

export interface Fingerprint {
  readonly schema: number;
  readonly step: { readonly id: string; readonly version: number };
  readonly sources: Record<string, string>;
  readonly packages: Record<string, string>;
  readonly params: Json;
  /** Per input: its kind and the sha256 of its bytes; and its producer's key for a step with `provenanceKeys` (step.ts). */
  readonly inputs: Record<string, { readonly kind: string; readonly digest: string; readonly producer?: string }>;
  readonly datasets: Record<string, string>;
  readonly env: Record<string, string | null>;
  readonly runtime: Json;
  readonly numerics: Json;
}

/** Canonical JSON of frozen fingerprint components (a module's source closure, shared by its steps' fingerprints). */
const frozenParts = new WeakMap<object, string>();

function partJson(v: unknown): string {
  if (typeof v !== "object" || v === null || !Object.isFrozen(v)) return canonicalJson(v);
  let json = frozenParts.get(v);
  if (json === undefined) {
    json = canonicalJson(v);
    frozenParts.set(v, json);
  }
  return json;
}

/**
 * sha256 of the fingerprint's canonical JSON (canonicalHash(fp), byte for byte: its fields are
 * plain names, sorted, none undefined), composed field by field so that a frozen component's JSON
 * is made once per process: the sources records were most of the ~1.8 MB a plan of the default
 * target serialised. Frozen records are flat (sources.ts), so a shallow freeze is enough.
 */
export function cacheKey(fp: Fingerprint): string {
  const record = fp as unknown as Record<string, unknown>;
  const fields = Object.keys(record)
    .sort()
    .filter((k) => record[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${partJson(record[k])}`);
  return sha256Hex(`{${fields.join(",")}}`);
}

/** Human-readable reasons why `current` differs from `previous`, most fundamental first. */
export function diffFingerprints(previous: Fingerprint, current: Fingerprint): string[] {
  const out: string[] = [];
  if (previous.schema !== current.schema) out.push(`fingerprint schema ${previous.schema} -> ${current.schema}`);
  if (previous.step.id !== current.step.id) out.push(`step id ${previous.step.id} -> ${current.step.id}`);
  if (previous.step.version !== current.step.version) out.push(`step version ${previous.step.version} -> ${current.step.version}`);
  out.push(...diffRecord("source", previous.sources, current.sources, (k) => `source ${k} changed`));
  out.push(...diffRecord("package", previous.packages, current.packages, (k, a, b) => `package ${k} ${a} -> ${b}`));
  out.push(...diffParams(previous.params, current.params, ""));
  const inputs = new Set([...Object.keys(previous.inputs), ...Object.keys(current.inputs)]);
  for (const name of [...inputs].sort()) {
    const a = previous.inputs[name];
    const b = current.inputs[name];
    if (!a) out.push(`input ${name} added`);
    else if (!b) out.push(`input ${name} removed`);
    else if (a.kind !== b.kind) out.push(`input ${name} kind ${a.kind} -> ${b.kind}`);
    else if (a.digest !== b.digest) out.push(`input ${name} changed digest (${a.digest.slice(0, 12)} -> ${b.digest.slice(0, 12)})`);
  }
  out.push(...diffRecord("dataset", previous.datasets, current.datasets, (k) => `dataset ${k} lock entry changed`));
  out.push(...diffRecord("env", previous.env, current.env, (k, a, b) => `env ${k} ${show(a)} -> ${show(b)}`));
  if (canonicalJson(previous.runtime) !== canonicalJson(current.runtime)) out.push(`runtime ${canonicalJson(previous.runtime)} -> ${canonicalJson(current.runtime)}`);
  // Fingerprints of schema 1 had no numerics (the executor's name stood in for it).
  const numerics = diffParams(previous.numerics ?? null, current.numerics ?? null, "", "");
  if (numerics.length > 0) out.push(`computed with other numerics (its bytes may differ): ${numerics.join("; ")}`);
  return out;
}

function show(v: unknown): string {
  return v === undefined ? "(unset)" : v === null ? "(unset)" : typeof v === "string" ? v : canonicalJson(v);
}

function diffRecord<V>(
  what: string,
  a: Record<string, V>,
  b: Record<string, V>,
  changed: (key: string, before: V, after: V) => string,
): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (!(k in a)) out.push(`${what} ${k} added`);
    else if (!(k in b)) out.push(`${what} ${k} removed`);
    else if (canonicalJson(a[k]) !== canonicalJson(b[k])) out.push(changed(k, a[k]!, b[k]!));
  }
  return out;
}

function isObject(v: Json): v is { [key: string]: Json } {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Path-wise differences of two JSON records, each line starting with `label` (e.g. "param "). */
export function diffParams(a: Json, b: Json, path: string, label = "param "): string[] {
  if (canonicalJson(a) === canonicalJson(b)) return [];
  if (isObject(a) && isObject(b)) {
    const out: string[] = [];
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const p = path ? `${path}.${k}` : k;
      if (!(k in a)) out.push(`${label}${p} added (${show(b[k])})`);
      else if (!(k in b)) out.push(`${label}${p} removed (was ${show(a[k])})`);
      else out.push(...diffParams(a[k]!, b[k]!, p, label));
    }
    return out;
  }
  return [`${label}${path || "(all)"} ${show(a)} -> ${show(b)}`];
}
