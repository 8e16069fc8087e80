/**
 * Memoising graph builders by structure: the key is the canonical JSON of plain data (a
 * context, a dataset, a variant record), never a label string, so two calls that describe
 * the same thing get the same step objects and two that differ never collide.
 */
import { canonicalJson } from "../engine/canonical.ts";

const built = new Map<string, unknown>();

export function memo<T>(key: unknown, make: () => T): T {
  const k = canonicalJson(key);
  if (built.has(k)) return built.get(k) as T;
  const value = make();
  built.set(k, value);
  return value;
}
