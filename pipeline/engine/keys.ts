/** Building a step's fingerprint from the graph and the entries of its producers. */
import type { AnyStep } from "./step.ts";
import type { LockEntry, LockFile } from "./datasets-lock.ts";
import { lockEntryDigest } from "./datasets-lock.ts";
import { FINGERPRINT_SCHEMA, type Fingerprint } from "./fingerprint.ts";
import type { SourceScanner } from "./sources.ts";
import type { Entry } from "./store.ts";
import type { Json } from "./canonical.ts";
import { wiredInputs } from "./wiring.ts";

export interface KeyContext {
  readonly scanner: SourceScanner;
  readonly lock: LockFile;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Name of the executor that runs container steps (never in a key: `numerics` stands for what it changes). */
  readonly executor: string;
  /**
   * The numerics identity of a step (fingerprint.ts): from the executor for a container step, from
   * the native packages its closure loads for an in-process one. Absent: null for every step.
   */
  readonly numerics?: (step: AnyStep, packages: readonly string[]) => Json;
  /**
   * Lock entries as this run sees them, where they differ from the lock: an unpinned entry
   * whose file the user placed with --data-dir carries that file's sha256 and size, so its
   * content is in the key (session.ts). The fetch step then accepts exactly that file.
   */
  readonly datasets?: Readonly<Record<string, LockEntry>>;
}

export function runtimeFingerprint(step: AnyStep): Json {
  const rt = step.def.runtime;
  if (rt.type === "in-process") return { type: "in-process" };
  return {
    type: "container",
    image: rt.image,
    argv: [...rt.argv],
    pip: [...(rt.pip ?? [])],
    gpu: rt.gpu ? { count: rt.gpu.count, required: rt.gpu.required } : null,
  };
}

/**
 * The fingerprint of `step`, given the entries of the steps that produce its inputs.
 * `producerEntry(input)` returns the producing entry of an input element, or undefined when it is
 * not known yet.
 *
 * `inputs` holds one record `{kind, digest}` per element of the wiring (wiring.ts): a plain slot
 * under its name, as always; a list's elements under `<slot>[0]`, `<slot>[1]`, ... in the list's
 * order, so reordering the list changes the key; a record's under `<slot>[<name>]`, so renaming an
 * element changes it and the order it was written in does not; an optional slot under its name
 * when wired and not at all when absent, so present and absent never share a key. An empty list
 * or record records nothing (the step's params or code tell what that means).
 */
export function fingerprintOf(
  step: AnyStep,
  params: unknown,
  producerEntry: (input: string) => Entry | undefined,
  ctx: KeyContext,
): Fingerprint | undefined {
  const inputs: Record<string, { kind: string; digest: string; producer?: string }> = {};
  for (const { name, ref } of wiredInputs(step)) {
    const entry = producerEntry(name);
    if (!entry) return undefined;
    const rec = entry.manifest.outputs[ref.output];
    if (!rec) throw new Error(`${step.name}: producer entry ${entry.key} lacks output ${ref.output}`);
    // The output's own kind: the slot's, once analysis checked it, or the element's in a slot of any kind.
    // A step that writes its producers' keys into its outputs has them in its own (step.ts provenanceKeys).
    inputs[name] = step.def.provenanceKeys === true ? { kind: ref.kind, digest: rec.digest, producer: entry.key } : { kind: ref.kind, digest: rec.digest };
  }
  const src = ctx.scanner.fingerprint(step.def.source, step.def.extraSources ?? []);
  const datasets: Record<string, string> = {};
  for (const d of [...(step.def.datasets ?? [])].sort()) datasets[d] = lockEntryDigest(ctx.datasets?.[d] ?? ctx.lock.entries[d]!);
  const env: Record<string, string | null> = {};
  for (const name of [...(step.def.env ?? [])].sort()) env[name] = ctx.env[name] ?? null;
  return {
    schema: FINGERPRINT_SCHEMA,
    step: { id: step.def.id, version: step.def.version },
    sources: src.files,
    packages: src.packages,
    params: params as Json,
    inputs,
    datasets,
    env,
    runtime: runtimeFingerprint(step),
    numerics: ctx.numerics ? ctx.numerics(step, Object.keys(src.packages)) : null,
  };
}
