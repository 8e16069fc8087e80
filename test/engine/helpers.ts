/** Shared helpers for engine tests: temp stores, inline targets, event capture. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../tmp.ts";
import { TargetRegistry } from "../../pipeline/engine/targets.ts";
import { z } from "zod";
import { defineStep, file, type AnyStep } from "../../pipeline/engine/step.ts";
import type { EngineEvent } from "../../pipeline/engine/events.ts";
import { Project, runTargets, type RunRequest } from "../../pipeline/session.ts";
import { findProjectRoot } from "../../pipeline/engine/sources.ts";
import { serializeLockFile, type LockFile } from "../../pipeline/engine/datasets-lock.ts";

export const ROOT = findProjectRoot();

export { tempDir };

export function registry(targets: Record<string, () => readonly AnyStep[]>): TargetRegistry {
  const r = new TargetRegistry();
  for (const [name, steps] of Object.entries(targets)) r.register({ name, description: name, steps });
  return r;
}

export function project(targets: TargetRegistry, options: { store?: string; lock?: LockFile; env?: Record<string, string | undefined> } = {}): Project {
  const dir = tempDir();
  const lockPath = join(dir, "datasets.lock");
  writeFileSync(lockPath, serializeLockFile(options.lock ?? { version: 1, entries: {} }));
  // Hermetic by default, except for the interpreter the user named (a GPU machine's torch often lives in a venv).
  const env = options.env ?? (process.env.CSPIPE_PYTHON !== undefined ? { CSPIPE_PYTHON: process.env.CSPIPE_PYTHON } : {});
  return new Project({ root: ROOT, store: options.store ?? join(dir, "store"), lockPath, targets, env });
}

export async function run(p: Project, targets: string[], extra: Partial<Omit<RunRequest, "emit" | "targets">> = {}) {
  const events: EngineEvent[] = [];
  const outcome = await runTargets(p, { targets, executor: "local", ...extra, emit: (e) => events.push(e) });
  const executed = events.filter((e) => e.type === "started").map((e) => (e as { step: string }).step).sort();
  const hits = events.filter((e) => e.type === "cache-hit").map((e) => (e as { step: string }).step).sort();
  return { outcome, events, executed, hits };
}

/**
 * The engine tests' smallest step, `make-text`: writes its `text` param to text.txt. Its source
 * is a file of its own in a fresh temp dir (`src`), which other inline steps may share.
 */
export function makeTextStep() {
  const src = join(tempDir(), "steps.ts");
  writeFileSync(src, "export const steps = 1;\n");
  const make = defineStep({
    id: "make-text",
    version: 1,
    source: src,
    params: z.object({ text: z.string() }).strict(),
    inputs: {},
    outputs: { text: file("text:plain", "text.txt") },
    runtime: { type: "in-process", async run(ctx) { writeFileSync(ctx.outputs.text, ctx.params.text); } },
  });
  return { src, make };
}
