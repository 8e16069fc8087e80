/**
 * Checking, where a step is about to compute, that the machine computes with the numerics its
 * key promises. The local executor plans and runs on one machine, so its identities hold by
 * construction; an executor that plans on one machine and runs on another (a cluster's login
 * node and its compute nodes) asks this on the compute node before the program starts, and a
 * mismatch fails the step instead of publishing other bytes under the key.
 */
import { canonicalJson, type Json } from "../../engine/canonical.ts";
import { diffParams } from "../../engine/fingerprint.ts";

/** Pure: undefined when `here` is `expected`, else the differences in words and the fix. */
export function numericsMismatch(expected: Json, here: Json): string | undefined {
  if (canonicalJson(expected) === canonicalJson(here)) return undefined;
  const diffs = diffParams(expected, here, "", "");
  return (
    `this machine computes with other numerics than the step's key promises (${diffs.join("; ")}). ` +
    "Fix: run the step where the interpreter, its modules and the CPU's kernel class match the planning machine's (same software on every node), " +
    "or plan on a machine like the compute nodes"
  );
}
