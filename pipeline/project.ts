/**
 * A project: the checkout (root), its store, datasets.lock and targets, with what every command
 * asks of them (the targets' graph under overrides, key contexts, executors, estimates). The
 * operations over a project are in session.ts.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AnyStep, OutputRef, RunSettings } from "./engine/step.ts";
import { checkExportName, type DataSource, type OverrideValue, type Overrides, type Target, type TargetContext, type TargetRegistry } from "./engine/targets.ts";
import { analyze, type Graph } from "./engine/graph.ts";
import { readLockFile, type LockFile } from "./engine/datasets-lock.ts";
import { Store } from "./engine/store.ts";
import { SourceScanner } from "./engine/sources.ts";
import type { AnalysisFailure } from "./engine/failures.ts";
import type { KeyContext } from "./engine/keys.ts";
import type { Executor } from "./engine/executor.ts";
import type { Estimates } from "./engine/schedule.ts";
import { LocalExecutor } from "./executors/local.ts";
import { probeCacheDir } from "./executors/numerics/probe.ts";
import { nativeNumerics } from "./engine/native-numerics.ts";
import { effectiveRuntime } from "./engine/resources.ts";
import type { Json } from "./engine/canonical.ts";


export interface ProjectOptions {
  readonly root: string;
  readonly store?: string;
  readonly lockPath?: string;
  readonly targets: TargetRegistry;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Data the targets are built on (default: $CSPIPE_DATA, else "mini"). */
  readonly data?: DataSource;
  /** A source scanner for this root that already hashed some files (it caches per module). */
  readonly scanner?: SourceScanner;
  /** How an in-process step's native numerics are found (default: native-numerics.ts, which looks on disk). */
  readonly nativeNumerics?: (packages: readonly string[]) => Json;
}

export class Project {
  readonly root: string;
  readonly store: Store;
  readonly lock: LockFile;
  readonly targets: TargetRegistry;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly scanner: SourceScanner;
  readonly data: DataSource;
  private local: LocalExecutor | undefined;
  private readonly native = new Map<string, Json>();
  private readonly findNative: (packages: readonly string[]) => Json;

  constructor(options: ProjectOptions) {
    this.root = options.root;
    this.env = options.env ?? process.env;
    const storeDir = options.store ?? this.env.CSPIPE_STORE ?? join(this.root, "artifacts");
    this.store = new Store(resolve(storeDir));
    this.lock = readLockFile(options.lockPath ?? join(this.root, "datasets.lock"));
    this.targets = options.targets;
    this.scanner = options.scanner ?? new SourceScanner(this.root);
    this.findNative = options.nativeNumerics ?? ((packages) => nativeNumerics(packages));
    const data = options.data ?? this.env.CSPIPE_DATA ?? "mini";
    if (data !== "mini" && data !== "real") throw new Error(`CSPIPE_DATA must be 'mini' or 'real', got '${data}'`);
    this.data = data;
  }

  /**
   * The key context of a run. With an executor, each step's numerics identity enters its key:
   * the executor's for a program step, the native packages' for an in-process one; without one
   * (a view that never runs anything, e.g. `show`), the local executor's.
   */
  keyContext(executor: Executor | string, datasets?: KeyContext["datasets"], settings: RunSettings = {}): KeyContext {
    const exec = typeof executor === "string" ? undefined : executor;
    const numerics = (step: AnyStep, packages: readonly string[]): Json => {
      const rt = step.def.runtime;
      return rt.type === "container" ? (exec ?? this.localExecutor()).numerics(effectiveRuntime({ ...step, def: { ...step.def, runtime: rt } }), settings) : this.nativeNumerics(packages);
    };
    return { scanner: this.scanner, lock: this.lock, env: this.env, executor: exec?.name ?? (executor as string), numerics, ...(datasets !== undefined ? { datasets } : {}) };
  }

  /**
   * nativeNumerics by package list, asked once per command: it looks for onnxruntime's CUDA
   * provider and an NVIDIA device on disk, and the default target has 230 steps that load onnxruntime.
   */
  private nativeNumerics(packages: readonly string[]): Json {
    const asked = packages.join("\0");
    let answer = this.native.get(asked);
    if (answer === undefined) {
      answer = this.findNative(packages);
      this.native.set(asked, answer);
    }
    return answer;
  }

  /** The local executor of this project (its interpreter answers remembered under .cspipe/probes). */
  localExecutor(): LocalExecutor {
    this.local ??= new LocalExecutor({ env: this.env, probeCacheDir: probeCacheDir(this.root) });
    return this.local;
  }

  /** What a plan's expected durations come from: this store's run records, else the definitions' reference run for this data source. */
  async estimates(): Promise<Estimates> {
    const reference = this.targets.referenceCost(this.data);
    return { recorded: await this.store.measuredSeconds(), ...(reference !== undefined ? { reference } : {}) };
  }

  tools(): Record<string, string> {
    let version = "unknown";
    try {
      version = (JSON.parse(readFileSync(join(this.root, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      /* keep unknown */
    }
    return { node: process.version, cspipe: version };
  }

  /**
   * Resolve target names to their sink steps (unknown names are failures); exported outputs' steps
   * are sinks too. `sets` (`--set <path>=<value>`) are parsed by each target's parameter space and
   * enter its context as overrides; a bad argument, or a target that takes none, is a failure.
   */
  sinks(targetNames: readonly string[], sets: readonly string[] = []): { steps: AnyStep[]; failures: AnalysisFailure[]; names: string[]; exports: TargetExport[]; overrides: Overrides; sinksOf: Map<string, string[]> } {
    const names = targetNames.length > 0 ? [...targetNames] : this.targets.default ? [this.targets.default] : [];
    const failures: AnalysisFailure[] = [];
    const steps: AnyStep[] = [];
    const exports: TargetExport[] = [];
    const overrides: Record<string, OverrideValue> = {};
    const refused = new Map<string, string[]>(); // message -> targets, so targets sharing a space report an argument once
    const sinksOf = new Map<string, string[]>(); // target -> its sink steps' names
    for (const n of names) {
      const t = this.targets.get(n);
      if (!t) failures.push({ reason: "unknown-target", target: n, known: this.targets.names() });
      else {
        const parsed = sets.length === 0 ? { ok: true as const, overrides: {} } : this.parseSets(t, sets);
        if (!parsed.ok) {
          for (const m of parsed.messages) refused.set(m, [...(refused.get(m) ?? []), n]);
          continue;
        }
        Object.assign(overrides, parsed.overrides);
        const ctx: TargetContext = Object.keys(parsed.overrides).length > 0 ? { data: this.data, overrides: parsed.overrides } : { data: this.data };
        const own = t.steps(ctx);
        sinksOf.set(n, own.map((s) => s.name));
        steps.push(...own);
        for (const [name, ref] of Object.entries(t.exports?.(ctx) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
          checkExportName(t.name, name);
          if (exports.some((e) => e.name === name)) throw new Error(`two targets export '${name}'`);
          exports.push({ target: t.name, name, ref });
          steps.push(ref.step);
        }
      }
    }
    if (names.length === 0) failures.push({ reason: "unknown-target", target: "(default)", known: this.targets.names() });
    for (const [message, targets] of refused) failures.push({ reason: "invalid-override", targets, message });
    return { steps, failures, names, exports, overrides, sinksOf };
  }

  /** A target's `--set` arguments as overrides, or every message about them. */
  private parseSets(t: Target, sets: readonly string[]): { ok: true; overrides: Overrides } | { ok: false; messages: string[] } {
    if (t.parameters === undefined) {
      const takers = this.targets.list().filter((x) => x.parameters !== undefined).map((x) => x.name);
      return { ok: false, messages: [`target '${t.name}' takes no --set overrides (its steps read no typed setup). Fix: drop --set, or use a target that takes them (${takers.join(", ") || "none"}); 'params <target>' lists them`] };
    }
    const r = t.parameters.parse(sets, { data: this.data });
    return r.ok ? r : { ok: false, messages: r.errors.map((e) => e.message) };
  }

  graph(targetNames: readonly string[], sets: readonly string[] = []): { ok: true; graph: Graph; names: string[]; exports: TargetExport[]; overrides: Overrides; sinksOf: Map<string, string[]> } | { ok: false; failures: AnalysisFailure[] } {
    const s = this.sinks(targetNames, sets);
    if (s.failures.length > 0) return { ok: false, failures: s.failures };
    const a = analyze(s.steps, this.lock);
    if (!a.ok) return a;
    return { ok: true, graph: a.graph, names: s.names, exports: s.exports, overrides: s.overrides, sinksOf: s.sinksOf };
  }
}

/** One output a requested target exports (see `Target.exports`). */
export interface TargetExport {
  readonly target: string;
  readonly name: string;
  readonly ref: OutputRef;
}
