/**
 * The operations behind the CLI, as functions over a project (project.ts: root, store, lock,
 * targets). Nothing here prints or exits: results and failures are values.
 */
import { join } from "node:path";
import { hostname } from "node:os";
import type { AnyStep, RunSettings } from "./engine/step.ts";
import { EXPERIMENTS_DIR, experimentId, type Overrides } from "./engine/targets.ts";
import { producerOf, type Graph } from "./engine/graph.ts";
import { inputNames } from "./engine/wiring.ts";
import { dirSize, type Entry, type Pin } from "./engine/store.ts";
import { publishExport } from "./engine/exports.ts";
import { collectGarbage as collectStoreGarbage, type GcOptions } from "./engine/gc.ts";
import { dataDirDatasets } from "./data-dir-keys.ts";
import { planGraph, runGraph, type FailureMode, type PlanRow, type RunResult } from "./engine/engine.ts";
import type { EventSink } from "./engine/events.ts";
import type { AnalysisFailure } from "./engine/failures.ts";
import { diffFingerprints } from "./engine/fingerprint.ts";
import type { KeyContext } from "./engine/keys.ts";
import { createExecutor, type ExecutorChoice } from "./executors/index.ts";
import type { SlurmFlags } from "./executors/slurm/config.ts";
import type { Executor } from "./engine/executor.ts";
import { planEvent } from "./reporters/overall.ts";
import { knownSeconds, type Estimates } from "./engine/schedule.ts";
import { producedEntries, type ProducedEntry } from "./produced.ts";
import { gpuSlots } from "./executors/gpu-slots.ts";
import { numericsMode } from "./executors/numerics/pins.ts";
import { numericsGroups } from "./engine/numerics-words.ts";
import { markPhase } from "./engine/phases.ts";
import type { Project, TargetExport } from "./project.ts";

export { Project, type ProjectOptions, type TargetExport } from "./project.ts";

/** An export copied out of the store after the run. */
export interface ExportedOutput {
  readonly target: string;
  readonly name: string;
  /** Where the copy now is. */
  readonly path: string;
  /** The store path it was copied from. */
  readonly from: string;
  readonly step: string;
  readonly key: string;
}

export interface RunRequest {
  readonly targets: readonly string[];
  /** `--set <path>=<value>` arguments: hyperparameter overrides of the targets' setup (parsed by each target's parameter space). */
  readonly sets?: readonly string[];
  /**
   * Directory that receives the targets' exports (default: the project root, so `report` lands in
   * `./report/`; with overrides `experiments/<experiment id>/`, so a plain run's export is never replaced).
   */
  readonly exportRoot?: string;
  readonly force?: readonly string[];
  readonly only?: string;
  readonly concurrency?: number;
  readonly failureMode?: FailureMode;
  readonly verify?: boolean;
  readonly executor?: ExecutorChoice;
  /** `--slurm-*` flags (for `--executor slurm`). */
  readonly slurm?: SlurmFlags;
  readonly settings?: RunSettings;
  /** GPU slots (`--gpus`); default: the devices the executor's probe finds. */
  readonly gpus?: number;
  readonly emit: EventSink;
  /** Aborted to stop the run (SIGINT/SIGTERM; engine/interrupt.ts): the run is recorded as interrupted. */
  readonly signal?: AbortSignal;
}

export type RunOutcome = { ok: false; analysis: AnalysisFailure[] } | { ok: boolean; analysis: []; result: RunResult; exported: ExportedOutput[]; produced: ProducedEntry[] };

/** Steps upstream of (and including) `step`. */
function upstreamOf(graph: Graph, step: AnyStep): Set<AnyStep> {
  const seen = new Set<AnyStep>();
  const stack = [step];
  while (stack.length) {
    const s = stack.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const input of inputNames(s)) stack.push(producerOf(graph, s, input));
  }
  return seen;
}

function subgraph(graph: Graph, keep: Set<AnyStep>): Graph {
  const order = graph.order.filter((s) => keep.has(s));
  return {
    order,
    byName: new Map(order.map((s) => [s.name, s])),
    params: graph.params,
    consumers: new Map(order.map((s) => [s, (graph.consumers.get(s) ?? []).filter((c) => keep.has(c))])),
  };
}

/**
 * Steps that would fetch a datasets.lock entry without a sha256: refused before anything
 * runs (unless --allow-unpinned), rather than when the fetch step starts, possibly after
 * other downloads began. A cached fetch is fine: nothing will be downloaded.
 */
async function unpinnedToFetch(project: Project, graph: Graph, keys: KeyContext): Promise<AnalysisFailure[]> {
  const unpinned = (s: AnyStep) => (s.def.datasets ?? []).filter((d) => project.lock.entries[d]?.sha256 === null);
  const candidates = graph.order.filter((s) => unpinned(s).length > 0);
  if (candidates.length === 0) return [];
  const rows = new Map((await planGraph(graph, { store: project.store, keys, force: new Set() })).map((r) => [r.step, r]));
  const where = (dataset: string) => ({ file: project.lock.entries[dataset]!.file, urls: project.lock.entries[dataset]!.urls });
  return candidates.filter((s) => rows.get(s.name)?.status !== "cached").flatMap((s) => unpinned(s).map((dataset) => ({ reason: "dataset-unpinned" as const, step: s.name, dataset, ...where(dataset) })));
}

/** What a run needs once analysis passed: the (sub)graph, the executor, the `--only` set. */
export interface Preflight {
  readonly graph: Graph;
  readonly names: string[];
  readonly exports: TargetExport[];
  readonly exec: Executor;
  readonly only: Set<string> | undefined;
  readonly settings: RunSettings;
  /** The key context of this run (its executor, and the data-dir datasets as checked now). */
  readonly keys: KeyContext;
  /** GPU slots of the run (`--gpus`, else what the executor's probe finds). */
  readonly gpus: number;
  /** The `--set` overrides the targets took (empty: none). */
  readonly overrides: Overrides;
  /** Each target's sink steps, by name. */
  readonly sinksOf: ReadonlyMap<string, readonly string[]>;
}

/**
 * Everything a run checks before it starts anything (unknown targets and steps, the graph's
 * analysis, the executor and its GPU checks, unpinned datasets to fetch, --only inputs not
 * cached). `run` and `plan` both call it, so they refuse the same things with the same failures.
 * On failure the executor (if any) is closed.
 */
export async function preflight(project: Project, req: Omit<RunRequest, "emit">): Promise<({ ok: true } & Preflight) | { ok: false; failures: AnalysisFailure[] }> {
  const g = project.graph(req.targets, req.sets ?? []);
  markPhase("graph");
  if (!g.ok) return { ok: false, failures: g.failures };
  let graph = g.graph;
  const failures: AnalysisFailure[] = [];
  for (const f of req.force ?? []) if (!graph.byName.has(f)) failures.push({ reason: "unknown-step", step: f, known: [...graph.byName.keys()].sort() });
  let only: Set<string> | undefined;
  if (req.only !== undefined) {
    const step = graph.byName.get(req.only);
    if (!step) failures.push({ reason: "unknown-step", step: req.only, known: [...graph.byName.keys()].sort() });
    else {
      graph = subgraph(graph, upstreamOf(graph, step));
      only = new Set([req.only]);
    }
  }
  try {
    numericsMode(project.env);
  } catch (e) {
    return { ok: false, failures: [...failures, { reason: "invalid-setting", setting: "CSPIPE_NUMERICS", detail: (e as Error).message }] };
  }
  const exec = await createExecutor(req.executor ?? "local", project.env, {
    local: () => project.localExecutor(),
    run: { root: project.root, storeRoot: project.store.root, data: project.data, targets: g.names, sets: req.sets ?? [] },
    ...(req.slurm !== undefined ? { slurm: req.slurm } : {}),
  });
  if ("reason" in exec) failures.push(exec);
  const settings = req.settings ?? {};
  const keys = project.keyContext("reason" in exec ? "local" : exec, await dataDirDatasets(project.lock, graph, settings, project.store.root), settings);
  if (!("reason" in exec)) failures.push(...(await exec.check(graph.order, settings)));
  const slots = "reason" in exec ? undefined : await gpuSlots(exec, graph.order, settings, req.gpus);
  failures.push(...(slots?.failures ?? []));
  if (!settings.allowUnpinned && !("reason" in exec)) failures.push(...(await unpinnedToFetch(project, graph, keys)));
  if (only && failures.length === 0) {
    // --only: every producer of the step must already be cached (checked before anything runs).
    const rows = await planGraph(graph, { store: project.store, keys, force: new Set() });
    const step = graph.byName.get(req.only!)!;
    for (const input of inputNames(step)) {
      const p = producerOf(graph, step, input);
      const row = rows.find((r) => r.step === p.name);
      if (row?.status !== "cached") failures.push({ reason: "input-not-cached", step: step.name, input, producer: p.name });
    }
  }
  markPhase("preflight");
  if (failures.length > 0 || "reason" in exec) {
    if (!("reason" in exec)) await exec.close?.();
    return { ok: false, failures };
  }
  return { ok: true, graph, names: g.names, exports: g.exports, exec, only, settings, keys, gpus: slots?.gpus ?? 0, overrides: g.overrides, sinksOf: g.sinksOf };
}

/**
 * Where a run's exports go: the explicit `--export-dir`, else the project root for the code's
 * setup (`./report/`), else `experiments/<id>/` for a run with overrides, so an overridden run
 * never replaces the plain run's export (the same overrides always land in the same place).
 */
export function exportRootOf(root: string, explicit: string | undefined, overrides: Overrides): string {
  if (explicit !== undefined) return explicit;
  return Object.keys(overrides).length > 0 ? join(root, EXPERIMENTS_DIR, experimentId(overrides)) : root;
}

export async function runTargets(project: Project, req: RunRequest): Promise<RunOutcome> {
  const pf = await preflight(project, req);
  if (!pf.ok) {
    req.emit({ type: "analysis-failed", failures: pf.failures });
    return { ok: false, analysis: pf.failures };
  }
  const { graph, exec, only, settings, keys } = pf;
  const g = pf;
  const overridden = Object.keys(pf.overrides).length > 0;
  const estimates = await project.estimates();
  // The run reuses the plan's keys and the entries it read (RunOptions.planned): a no-op rerun hashes and reads each once.
  const rows = await planGraph(graph, { store: project.store, keys, force: new Set(req.force ?? []) });
  markPhase("plan");
  req.emit(planEvent(graph, rows, estimates, req.concurrency ?? 2));
  const programs = graph.order.filter((s) => s.def.runtime.type === "container");
  if (programs.length > 0 && keys.numerics) req.emit({ type: "numerics", groups: numericsGroups(programs.map((s) => keys.numerics!(s, []))) });
  try {
    const result = await runGraph(graph, {
      store: project.store,
      executor: exec,
      keys,
      sourceRoot: project.root,
      settings,
      emit: req.emit,
      concurrency: req.concurrency ?? 2,
      failureMode: req.failureMode ?? "stop",
      force: new Set(req.force ?? []),
      planned: { graph, keys, rows: new Map(rows.map((r) => [r.step, r])) },
      ...(only ? { only } : {}),
      verify: req.verify ?? false,
      targets: g.names,
      tools: project.tools(),
      measured: knownSeconds(graph, estimates),
      ...(req.signal ? { signal: req.signal } : {}),
      gpus: pf.gpus,
      about: { data: project.data, ...(overridden ? { overrides: pf.overrides } : {}) },
    });
    markPhase("engine");
    const exportRoot = exportRootOf(project.root, req.exportRoot, pf.overrides);
    const exported = result.ok ? await publishExports(project, g.exports, result, exportRoot) : [];
    markPhase("exports");
    return { ok: result.ok, analysis: [], result, exported, produced: result.ok ? producedEntries(project.store, pf.sinksOf, pf.exports, result.results) : [] };
  } finally {
    await exec.close?.();
  }
}

/**
 * Copy each export whose step has an entry in this run (with --only, steps outside the subgraph are skipped);
 * an export whose copy is already in place, unchanged since this store made it, is not copied again (exports.ts).
 */
async function publishExports(project: Project, exports: readonly TargetExport[], result: RunResult, root: string): Promise<ExportedOutput[]> {
  const out: ExportedOutput[] = [];
  const recordsDir = project.store.exportRecordsDir();
  for (const e of exports) {
    const entry = result.results.get(e.ref.step.name)?.entry;
    if (entry === undefined) continue;
    const from = project.store.outputPath(entry, e.ref.output);
    const source = { key: entry.key, output: e.ref.output, digest: entry.manifest.outputs[e.ref.output]!.digest };
    const published = await publishExport(from, root, e.name, { recordsDir, source });
    out.push({ target: e.target, name: e.name, path: published.path, from, step: e.ref.step.name, key: entry.key });
  }
  return out;
}

export async function planTargets(project: Project, targets: readonly string[], force: readonly string[] = []): Promise<{ ok: true; rows: PlanRow[] } | { ok: false; failures: AnalysisFailure[] }> {
  const g = project.graph(targets);
  if (!g.ok) return g;
  return { ok: true, rows: await planGraph(g.graph, { store: project.store, keys: project.keyContext("local"), force: new Set(force) }) };
}

/** `plan` with the analysis `run` does first (preflight): the rows, and the graph for edges. */
export async function planRun(
  project: Project,
  req: Omit<RunRequest, "emit">,
): Promise<{ ok: true; rows: PlanRow[]; graph: Graph; estimates: Estimates; resources: ReadonlyMap<string, string> } | { ok: false; failures: AnalysisFailure[] }> {
  const pf = await preflight(project, req);
  if (!pf.ok) return pf;
  try {
    const rows = await planGraph(pf.graph, { store: project.store, keys: pf.keys, force: new Set(req.force ?? []) });
    markPhase("plan");
    // What the executor would ask for each step (a batch system's request); empty for the others.
    const resources = new Map<string, string>();
    for (const s of pf.graph.order) {
      const line = pf.exec.describeResources?.(s);
      if (line !== undefined) resources.set(s.name, line);
    }
    return { ok: true, rows, graph: pf.graph, estimates: await project.estimates(), resources };
  } finally {
    await pf.exec.close?.();
  }
}

export interface Explanation {
  readonly step: string;
  readonly status: "cached" | "would-run" | "pending";
  readonly key?: string;
  readonly previousKey?: string;
  readonly reasons: readonly string[];
}

/** Why would `stepName` rerun? Compares its current fingerprint with the one of its last recorded run. */
export async function explainStep(project: Project, stepName: string, targets: readonly string[]): Promise<{ ok: true; explanation: Explanation } | { ok: false; failures: AnalysisFailure[] }> {
  let g = project.graph(targets);
  if (g.ok && !g.graph.byName.has(stepName) && targets.length === 0) {
    // Not in the default target: look through every target.
    const all = project.graph(project.targets.names());
    if (all.ok) g = all;
  }
  if (!g.ok) return g;
  const step = g.graph.byName.get(stepName);
  if (!step) return { ok: false, failures: [{ reason: "unknown-step", step: stepName, known: [...g.graph.byName.keys()].sort() }] };
  const rows = await planGraph(subgraph(g.graph, upstreamOf(g.graph, step)), { store: project.store, keys: project.keyContext("local"), force: new Set() });
  const row = rows.find((r) => r.step === stepName)!;
  const runs = await project.store.runs();
  let previous: { key: string; stepId: string } | undefined;
  for (let i = runs.length - 1; i >= 0 && !previous; i--) previous = runs[i]!.steps[stepName];
  if (row.status === "cached") return { ok: true, explanation: { step: stepName, status: "cached", key: row.key!, reasons: ["cached: every component of the fingerprint matches an entry in the store"] } };
  if (row.status === "pending") {
    const reasons: string[] = [];
    for (const input of inputNames(step)) {
      const p = producerOf(g.graph, step, input);
      const pr = rows.find((r) => r.step === p.name)!;
      if (pr.status !== "cached") reasons.push(`input ${input}: upstream step ${p.name} is not cached (${pr.status === "run" ? "it would run" : "it waits on its own inputs"}), so this step's key is not known yet`);
    }
    return { ok: true, explanation: { step: stepName, status: "pending", reasons } };
  }
  if (!previous) return { ok: true, explanation: { step: stepName, status: "would-run", key: row.key!, reasons: ["never run in this store"] } };
  const prevEntry = await project.store.lookup(previous.stepId, previous.key);
  if (!prevEntry) return { ok: true, explanation: { step: stepName, status: "would-run", key: row.key!, previousKey: previous.key, reasons: [`its last entry ${previous.key.slice(0, 12)} was removed from the store (gc or tampering)`] } };
  const reasons = diffFingerprints(await project.store.fingerprint(prevEntry), row.fingerprint!);
  return {
    ok: true,
    explanation: { step: stepName, status: "would-run", key: row.key!, previousKey: previous.key, reasons: reasons.length ? reasons : ["the fingerprint is unchanged but its entry is missing"] },
  };
}

export interface EntrySummary {
  readonly stepId: string;
  readonly name: string;
  readonly key: string;
  readonly bytes: number;
  readonly created: string;
  readonly seconds: number;
  readonly executor: string;
}

export async function listEntries(project: Project): Promise<EntrySummary[]> {
  const out: EntrySummary[] = [];
  for (const e of await project.store.entries()) out.push(summarize(e, await dirSize(e.dir)));
  return out;
}

function summarize(e: Entry, bytes: number): EntrySummary {
  return {
    stepId: e.stepId,
    name: e.manifest.step.name,
    key: e.key,
    bytes,
    created: e.manifest.timings.finished,
    seconds: e.manifest.timings.seconds,
    executor: e.manifest.executor,
  };
}

/** Entries matching a key prefix, or the entry a step name last resolved to. */
export async function showEntry(project: Project, query: string): Promise<Entry[]> {
  if (/^[0-9a-f]{4,64}$/.test(query)) {
    const byKey = await project.store.findByKeyPrefix(query);
    if (byKey.length > 0) return byKey;
  }
  const runs = await project.store.runs();
  for (let i = runs.length - 1; i >= 0; i--) {
    const ref = runs[i]!.steps[query];
    if (ref) {
      const e = await project.store.lookup(ref.stepId, ref.key);
      return e ? [e] : [];
    }
  }
  return (await project.store.entries()).filter((e) => e.stepId === query || e.manifest.step.name === query);
}

export async function pinTarget(project: Project, name: string, target: string): Promise<{ ok: true; pin: Pin } | { ok: false; failures: AnalysisFailure[]; missing?: string[] }> {
  const plan = await planTargets(project, [target]);
  if (!plan.ok) return plan;
  const missing = plan.rows.filter((r) => r.status !== "cached").map((r) => r.step);
  if (missing.length > 0) return { ok: false, failures: [], missing };
  const pin: Pin = { name, target, time: new Date().toISOString(), keys: plan.rows.map((r) => r.key!).sort() };
  await project.store.setPin(pin);
  return { ok: true, pin };
}

/** `gc` (engine/gc.ts): what it keeps and why is described there. */
export async function collectGarbage(project: Project, options: GcOptions = {}) {
  const res = await collectStoreGarbage(project.store, options);
  return { ...res, host: hostname() };
}
