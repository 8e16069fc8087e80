/**
 * Reading and writing the store's own JSON files (manifests, run records, pins, leases).
 * A file that exists but does not parse, or parses to the wrong shape, is a StoreFileError
 * naming the file and the problem, never a bare `SyntaxError` from JSON.parse. Writes go to
 * a temporary sibling renamed into place, so a crash never leaves a half-written file under
 * the real name.
 */
import { readFileSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";
import { canonicalJson } from "./canonical.ts";

export class StoreFileError extends Error {
  override readonly name = "StoreFileError";
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}. Fix: 'doctor' lists damaged store files and 'doctor --repair' moves them aside`);
  }
}

/** A check of a parsed value: undefined when fine, else what is wrong. */
export type Shape = (value: unknown) => string | undefined;

/**
 * The parsed file; undefined when it does not exist, or when `wanted` says its text is of no use
 * (then it is not parsed). Throws StoreFileError when it is unreadable or malformed. Read
 * synchronously: these files are small, and a cache hit costs one of these reads (an
 * asynchronous read takes four thread-pool round trips).
 */
export async function readStoreJson<T>(file: string, shape?: Shape, wanted?: (text: string) => boolean): Promise<T | undefined> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new StoreFileError(file, `cannot read: ${(e as Error).message}`);
  }
  if (wanted !== undefined && !wanted(text)) return undefined;
  return parseStoreJson<T>(file, text, shape);
}

export function parseStoreJson<T>(file: string, text: string, shape?: Shape): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new StoreFileError(file, text.length === 0 ? "empty file (truncated JSON)" : `not valid JSON (truncated or damaged?): ${(e as Error).message}`);
  }
  const wrong = shape?.(value);
  if (wrong !== undefined) throw new StoreFileError(file, wrong);
  return value as T;
}

export async function writeStoreJson(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(tmp, canonicalJson(value, 2) + "\n");
    await rename(tmp, file);
  } catch (e) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const HEX64 = /^[0-9a-f]{64}$/;

/** The shape of manifest.json for the entry at <step-id>/<key>. */
export function manifestShape(stepId: string, key: string): Shape {
  return (v) => {
    if (!isObject(v)) return "not a JSON object";
    if (v.schema !== 1) return `unknown schema ${JSON.stringify(v.schema)}`;
    if (v.key !== key) return `records key ${String(v.key).slice(0, 12)}, but sits under ${key.slice(0, 12)}`;
    if (!isObject(v.step) || v.step.id !== stepId) return `records step ${isObject(v.step) ? String(v.step.id) : "?"}, but sits under ${stepId}`;
    if (!isObject(v.outputs)) return "has no outputs";
    for (const [name, o] of Object.entries(v.outputs)) {
      if (!isObject(o) || typeof o.path !== "string" || typeof o.dir !== "boolean" || typeof o.digest !== "string" || !HEX64.test(o.digest)) return `output '${name}' is malformed`;
    }
    if (!isObject(v.timings) || typeof v.timings.finished !== "string") return "has no timings";
    return undefined;
  };
}

/** Keys: a list of 64-hex strings. */
export function keysShape(field: string): Shape {
  return (v) => {
    if (!isObject(v)) return "not a JSON object";
    const keys = v[field];
    if (!Array.isArray(keys) || !keys.every((k) => typeof k === "string" && HEX64.test(k))) return `'${field}' is not a list of keys`;
    return undefined;
  };
}
