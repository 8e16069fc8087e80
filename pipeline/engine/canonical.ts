/**
 * Canonical JSON: object keys sorted by code unit, no undefined, no NaN/Infinity, no
 * functions. Two equal values always serialise to the same bytes, so hashes of
 * canonical JSON are stable across processes and machines.
 */
import { createHash } from "node:crypto";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class CanonicalJsonError extends Error {
  override readonly name = "CanonicalJsonError";
}

function normalise(value: unknown, path: string): Json {
  if (value === null) return null;
  switch (typeof value) {
    case "boolean":
    case "string":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${path || "value"}: ${value} has no canonical JSON form`);
      return Object.is(value, -0) ? 0 : value;
    case "object": {
      if (Array.isArray(value)) return value.map((v, i) => normalise(v, `${path}[${i}]`));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalJsonError(`${path || "value"}: only plain objects are allowed (got ${proto?.constructor?.name ?? "unknown"})`);
      }
      const out: { [key: string]: Json } = {};
      for (const key of Object.keys(value).sort()) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) continue;
        out[key] = normalise(v, path ? `${path}.${key}` : key);
      }
      return out;
    }
    default:
      throw new CanonicalJsonError(`${path || "value"}: ${typeof value} has no canonical JSON form`);
  }
}

/** Canonical JSON text. `indent` only changes whitespace, never key order. */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(normalise(value, ""), null, indent);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
