/**
 * `cspipe exec-step <spec.json>` (hidden): what a Slurm job runs on its node for an in-process
 * step (pipeline/executors/slurm/step-spec.ts). It rebuilds the run's graph from the sources on
 * the shared filesystem, finds the step by name, reads its inputs' entries from the store,
 * recomputes the fingerprint and refuses when the key is not the one the submitter computed
 * (naming the first component that differs). Then it runs the body, its log lines and progress
 * (`PROGRESS done total label`) on stdout, which Slurm writes into the job's output file and the
 * submitter streams into the step's log, and leaves result.json (renamed into place). It takes no
 * lease, records no run and publishes nothing: the submitting process does all of that.
 * Exit code 0 when the body succeeded, 1 otherwise.
 *
 * `--numerics <check.json>` runs before a program step's program instead: it computes the step's
 * numerics identity on this node as the local executor would and exits 3 (result.json says why)
 * when it differs from the key's, so no other bytes are published under the key.
 */
import type { Command } from "commander";
import { readFile, mkdir } from "node:fs/promises";
import { hostname } from "node:os";
import type { Project } from "../session.ts";
import type { Entry } from "../engine/store.ts";
import type { InputKinds, OutputDecls, StepContext } from "../engine/step.ts";
import { inputKeyOf } from "../engine/step.ts";
import { cacheKey, diffFingerprints, type Fingerprint } from "../engine/fingerprint.ts";
import { fingerprintOf } from "../engine/keys.ts";
import { describeFailure } from "../engine/failures.ts";
import { runStepBody } from "../engine/step-body.ts";
import { slotValues } from "../engine/wiring.ts";
import { dataDirDatasets } from "../data-dir-keys.ts";
import { STEP_RESULT_SCHEMA, numericsCheckShape, specSettings, stepSpecShape, writeAtomically, type NumericsCheck, type StepResult, type StepSpec } from "../executors/slurm/step-spec.ts";
import { numericsMismatch } from "../executors/numerics/verify.ts";
import type { ContainerRuntime } from "../engine/step.ts";
import type { Json } from "../engine/canonical.ts";

export interface ExecStepIO {
  readonly project: () => Promise<Project>;
  readonly setExitCode: (code: number) => void;
}

const refuse = (message: string): StepResult => ({ schema: STEP_RESULT_SCHEMA, ok: false, failure: { reason: "key-mismatch", message } });

/** Run the spec's step here; `out` gets its log lines and progress lines. */
export async function runStepSpec(project: Project, spec: StepSpec, out: (line: string) => void): Promise<StepResult> {
  const g = project.graph(spec.targets, spec.sets);
  if (!g.ok) return refuse(`the graph does not build here: ${g.failures.map(describeFailure).join("; ")}`);
  const step = g.graph.byName.get(spec.step);
  if (!step) return refuse(`no step ${spec.step} in the graph of ${spec.targets.join(", ")} here`);
  const rt = step.def.runtime;
  if (rt.type !== "in-process") return refuse(`step ${spec.step} is a program step here, not an in-process one`);
  const entries: Record<string, Entry> = {};
  for (const [name, ref] of Object.entries(spec.inputs)) {
    const e = await project.store.lookup(ref.stepId, ref.key);
    if (!e) return refuse(`input ${name} (entry ${ref.stepId}/${ref.key.slice(0, 12)}) is not in the store at ${project.store.root} here: is the store on a filesystem shared with the submitting host?`);
    entries[name] = e;
  }
  const params = g.graph.params.get(step);
  const settings = specSettings(spec);
  const keys = project.keyContext("local", await dataDirDatasets(project.lock, g.graph, settings, project.store.root), settings);
  const fp = fingerprintOf(step, params, (i) => entries[i], keys)!;
  if (cacheKey(fp) !== spec.key) {
    const diff = diffFingerprints(spec.fingerprint as unknown as Fingerprint, fp);
    return refuse(`its key here is ${cacheKey(fp).slice(0, 12)}, the submitter's ${spec.key.slice(0, 12)}: ${diff.slice(0, 3).join("; ") || "the fingerprints differ"}`);
  }
  await mkdir(spec.scratchDir, { recursive: true });
  await mkdir(spec.workDir, { recursive: true });
  const ctx: StepContext<unknown, InputKinds, OutputDecls> = {
    params,
    inputs: slotValues(step.def.inputs, Object.fromEntries(Object.entries(spec.inputs).map(([k, v]) => [k, v.path]))),
    inputKeys: slotValues(step.def.inputs, Object.fromEntries(Object.entries(spec.inputs).map(([k, v]) => [k, inputKeyOf(step.def, k, v.key, v.stepId, fp.inputs[k]!.kind)]))),
    outputs: Object.fromEntries(Object.entries(spec.outputs).map(([k, v]) => [k, v.path])),
    workDir: spec.workDir,
    scratchDir: spec.scratchDir,
    datasets: Object.fromEntries((step.def.datasets ?? []).map((d) => [d, keys.datasets?.[d] ?? project.lock.entries[d]!])),
    settings,
    signal: new AbortController().signal,
    log: out,
    progress: (done, total, label) => out(`PROGRESS ${done}${total !== undefined ? ` ${total}` : ""}${label !== undefined ? ` ${label}` : ""}`),
  };
  const r = await runStepBody(rt, ctx, project.store.root);
  if (r.ok) return { schema: STEP_RESULT_SCHEMA, ok: true, tools: { node: process.version, "slurm.host": hostname() } };
  if (r.detail !== undefined) out(r.detail);
  return { schema: STEP_RESULT_SCHEMA, ok: false, failure: r.failure };
}

/** A program step's numerics here against its key's: undefined when they match, else the refusal (pipeline/executors/numerics/verify.ts). */
export function checkNumericsHere(project: Project, check: NumericsCheck): StepResult | undefined {
  const here = project.localExecutor().numerics(check.runtime as unknown as ContainerRuntime);
  const why = numericsMismatch(check.numerics as Json, here);
  return why === undefined ? undefined : refuse(why);
}

export function registerExecStepCommand(program: Command, io: ExecStepIO): void {
  program
    .command("exec-step", { hidden: true })
    .description("run one in-process step of a run here, or check a program step's numerics here (--numerics), as a batch job (pipeline/executors/slurm/step-spec.ts)")
    .argument("<spec>", "the attempt's spec.json")
    .option("--numerics", "check a program step's numerics identity on this machine (exit 3 and result.json when it differs)", false)
    .action(async (specPath: string, flags: { numerics: boolean }) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      const json: unknown = JSON.parse(await readFile(specPath, "utf8"));
      if (flags.numerics) {
        const check = numericsCheckShape.parse(json);
        const refused = checkNumericsHere(await io.project(), check);
        if (refused) {
          out(`exec-step: refused: ${!refused.ok && "message" in refused.failure ? refused.failure.message : ""}`);
          await writeAtomically(check.result, JSON.stringify(refused) + "\n");
        }
        io.setExitCode(refused ? 3 : 0);
        return;
      }
      const parsed = stepSpecShape.safeParse(json);
      if (!parsed.success) {
        process.stderr.write(`exec-step: ${specPath}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}\n`);
        io.setExitCode(2);
        return;
      }
      const spec = parsed.data;
      const result = await runStepSpec(await io.project(), spec, out);
      if (!result.ok && result.failure.reason === "key-mismatch") out(`exec-step: refused: ${result.failure.message}`);
      await writeAtomically(spec.result, JSON.stringify(result) + "\n");
      io.setExitCode(result.ok ? 0 : 1);
    });
}
