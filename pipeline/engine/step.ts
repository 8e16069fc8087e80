/**
 * Steps are plain typed values. A `StepDef` is the code (id, version, params schema,
 * input and output kinds, runtime); a `Step` is one use of it in the graph: a def plus
 * validated-later params and wired inputs. Two `Step`s with the same def, params and
 * input bytes share one cache key, so targets and variants that share a prefix run it once.
 *
 * Wiring is checked by the compiler: an input declared with kind "parquet:turns" only
 * accepts an `OutputRef<"parquet:turns">`.
 */
import type { z } from "zod";
import type { LockEntry } from "./datasets-lock.ts";
import { programSources } from "./programs.ts";

/** An output of a step: a single file or a directory, with a kind that wiring checks. */
export interface OutputDecl<K extends string = string> {
  readonly kind: K;
  /** Path inside the entry's `outputs/` directory. */
  readonly path: string;
  readonly dir: boolean;
}

export function file<K extends string>(kind: K, path: string): OutputDecl<K> {
  return { kind, path, dir: false };
}
export function dir<K extends string>(kind: K, path: string): OutputDecl<K> {
  return { kind, path, dir: true };
}

export type OutputDecls = { readonly [name: string]: OutputDecl };

/**
 * An input slot: one output of a kind (the kind itself, e.g. "parquet:turns"), or one of the
 * slots below. engine/wiring.ts flattens a wiring into one element per output wired, which is
 * what keys, plans and executors see; the body sees the slot's shape (StepContext).
 */
export type InputSlot = string | ListSlot | RecordSlot | OptionalSlot;
/** Outputs of one kind in order, wired with an array: `{ shards: [a.out.index, b.out.index] }`. */
export type ListSlot<K extends string = string> = { readonly list: K };
/** Named outputs of one kind, wired with a record: `{ metrics: { dpr: a.out.metrics } }`. */
export type RecordSlot<K extends string = string> = { readonly record: K };
/** One output of a kind, or none: the slot is left out of `use`'s inputs. */
export type OptionalSlot<K extends string = string> = { readonly optional: K };
export const list = <const K extends string>(kind: K): ListSlot<K> => ({ list: kind });
export const record = <const K extends string>(kind: K): RecordSlot<K> => ({ record: kind });
export const optional = <const K extends string>(kind: K): OptionalSlot<K> => ({ optional: kind });
/** A record of outputs of any kinds (a page per documented step): the key records each element's kind. */
export const ANY_KIND = "*";
export const anyRecord = (): RecordSlot<string> => ({ record: ANY_KIND });

export type InputKinds = { readonly [name: string]: InputSlot };

/** A reference to one output of one step; `kind` makes mismatched wiring a type error. */
export interface OutputRef<K extends string = string> {
  readonly step: AnyStep;
  readonly output: string;
  readonly kind: K;
}

export type OutputRefs<O extends OutputDecls> = { readonly [N in keyof O]: OutputRef<O[N]["kind"]> };

/** What a slot holds: `V` per output wired (a ref at `use`, a path or a key in the body), in the slot's shape. */
export type SlotShaped<S, V> = S extends ListSlot ? readonly V[] : S extends RecordSlot ? Readonly<Record<string, V>> : S extends OptionalSlot ? V | undefined : V;
type SlotRef<S> = S extends ListSlot<infer K> ? OutputRef<K> : S extends RecordSlot<infer K> ? OutputRef<K> : S extends OptionalSlot<infer K> ? OutputRef<K> : S extends string ? OutputRef<S> : never;
type OptionalNames<I extends InputKinds> = { [N in keyof I]: I[N] extends OptionalSlot ? N : never }[keyof I];
export type InputRefs<I extends InputKinds> = { readonly [N in Exclude<keyof I, OptionalNames<I>>]: SlotShaped<I[N], SlotRef<I[N]>> } & {
  readonly [N in OptionalNames<I>]?: SlotRef<I[N]>;
};

export interface ProgressSink {
  (done: number, total?: number, label?: string): void;
}

/** Where an input came from: the producing entry, and the kind of the output wired (a record of any kind holds several). */
export interface InputKey {
  readonly key: string;
  readonly stepId: string;
  readonly kind: string;
}

/**
 * An input's InputKey as a step sees it: its producer's key readable only by a step that declares
 * `provenanceKeys` (the key is then in its own key); any other step reading it is a bug that
 * would make its bytes depend on something its key does not hold.
 */
export function inputKeyOf(def: { readonly id: string; readonly provenanceKeys?: boolean }, input: string, key: string, stepId: string, kind: string): InputKey {
  if (def.provenanceKeys === true) return { key, stepId, kind };
  return {
    get key(): string {
      throw new Error(`step ${def.id} reads the producer key of input '${input}' without declaring provenanceKeys: true (pipeline/engine/step.ts), so that key is not in its own`);
    },
    stepId,
    kind,
  };
}

/** What an in-process step sees while it runs. Paths are absolute. */
export interface StepContext<P, I extends InputKinds, O extends OutputDecls> {
  readonly params: P;
  /** Per slot: its path, or its paths in the slot's shape (an array for a list, a record, undefined for an absent optional). */
  readonly inputs: { readonly [N in keyof I]: SlotShaped<I[N], string> };
  /** For each input (in its slot's shape), the cache key and step id of the entry that produced it (provenance for tables), and the kind of its output. */
  readonly inputKeys: { readonly [N in keyof I]: SlotShaped<I[N], InputKey> };
  readonly outputs: { readonly [N in keyof O]: string };
  /** Scratch directory, deleted after the step. */
  readonly workDir: string;
  /** Persistent per-step-def scratch (e.g. partial downloads that survive a crash). Never part of an entry. */
  readonly scratchDir: string;
  /** Lock entries this step declared, by name. */
  readonly datasets: { readonly [name: string]: LockEntry };
  /** Run-level settings that never enter a key (e.g. `dataDir`). */
  readonly settings: RunSettings;
  readonly signal: AbortSignal;
  log(line: string): void;
  progress: ProgressSink;
  /** The GPU slots an in-process step with `runtime.gpu` holds (devices.ts); absent when the run has none. */
  readonly devices?: readonly number[];
}

export interface RunSettings {
  /** Directory where the user placed downloaded files by hand (`--data-dir`). */
  readonly dataDir?: string;
  /** Allow container steps that request a GPU to run on CPU (`--allow-cpu`). */
  readonly allowCpu?: boolean;
  /**
   * Never touch the network (`--offline`): `fetch` steps use only files already fetched or
   * placed with `--data-dir`, and otherwise fail at once with the URL, the expected sha256
   * and how to place the file by hand.
   */
  readonly offline?: boolean;
  /**
   * Let `fetch` steps accept datasets.lock entries whose sha256 is still null
   * (`--allow-unpinned`): the bytes are unverified, the digest they had is logged, and
   * `lock --update <name>` pins it. Without it such an entry fails when its step starts.
   */
  readonly allowUnpinned?: boolean;
}

/**
 * What a step asks of the machine that runs it. Never part of a key: the same step computes the
 * same bytes with more or fewer of them. The local executor sizes numeric libraries' threads by
 * `cpus`; a batch system turns each into a request (Slurm: `--cpus-per-task`, `--mem`, `--time`).
 * Defaults and how a step's own declaration overrides its runtime's: engine/resources.ts.
 */
export interface StepResources {
  /** CPU cores. */
  readonly cpus?: number;
  /** Peak memory, GiB. */
  readonly memoryGiB?: number;
  /** Expected wall time, minutes, on the hardware the values are sized for; a batch system's time limit is a multiple of it. */
  readonly expectedMinutes?: number;
}

export interface InProcessRuntime<P, I extends InputKinds, O extends OutputDecls> {
  readonly type: "in-process";
  run(ctx: StepContext<P, I, O>): Promise<void>;
  /** Resources beyond the in-process default (engine/resources.ts), e.g. a BM25 index build. */
  readonly resources?: StepResources;
  /**
   * GPUs the body can use when the run has GPU slots (ctx.devices names them; without slots it
   * runs in a CPU slot with none). Never part of a key: such a step must write the same bytes
   * with or without them (e.g. search-dense-shard's torch backend, proven exact).
   */
  readonly gpu?: { readonly count: number };
}

/**
 * A container step: a program run with an argv inside a pinned image (Dagger) or on the
 * host (local executor). The argv is data with placeholders, so it enters the cache key
 * and the executors map it to their own paths:
 *   {in:<name>}  path of an input     {out:<name>}  path of an output
 *   {src}        the project's source root        {params}  a JSON file with the params
 *   {work}       a scratch directory
 */
export interface ContainerRuntime {
  readonly type: "container";
  /** Image reference pinned by digest: `name@sha256:<64 hex>`. */
  readonly image: string;
  readonly argv: readonly string[];
  /** Python modules the program imports; the local executor checks them before running. */
  readonly pythonModules?: readonly string[];
  /** Pinned pip requirements installed in a cached layer under Dagger (e.g. "numpy==1.26.4"). */
  readonly pip?: readonly string[];
  readonly gpu?: { readonly count: number | "all"; readonly required: boolean };
  /** GPUs are `gpu.count`. */
  readonly resources?: StepResources;
  /** Env vars passed to the program (values enter the key unless listed in `secrets`). */
  readonly secrets?: readonly string[];
}

export type Runtime<P, I extends InputKinds, O extends OutputDecls> = InProcessRuntime<P, I, O> | ContainerRuntime;

export type ParamsSchema = z.ZodType;

export interface StepDef<S extends ParamsSchema = ParamsSchema, I extends InputKinds = InputKinds, O extends OutputDecls = OutputDecls> {
  /** kebab-case verb-object, e.g. `build-bm25-index`; part of the cache key. */
  readonly id: string;
  /** Bump to invalidate every entry of this step without touching its source. */
  readonly version: number;
  /** `import.meta.url` of the defining module: its import closure enters the key. */
  readonly source: string;
  /**
   * Extra sources (relative to the project root) that enter the key: files or directories, or
   * `python:<root>:<module>` (a Python module's import closure). defineStep adds the program a
   * container runtime's argv runs (programs.ts), so no step lists its program by hand.
   */
  readonly extraSources?: readonly string[];
  readonly params: S;
  readonly inputs: I;
  readonly outputs: O;
  /** datasets.lock entries read. */
  readonly datasets?: readonly string[];
  /** Environment variables whose values enter the key. */
  readonly env?: readonly string[];
  /**
   * The step writes its inputs' producer keys into its outputs (`ctx.inputKeys[..].key`: the
   * report's provenance links). Those keys then enter its own key (keys.ts), so a producer re-keyed
   * with identical bytes reruns it instead of leaving an entry whose bytes name the old keys under
   * the same key. A step without it that reads a producer key fails (inputKeyOf).
   */
  readonly provenanceKeys?: boolean;
  readonly runtime: Runtime<z.output<S>, I, O>;
  readonly description?: string;
  /**
   * Expected cost in rough seconds on one core, for scheduling only (never part of a key):
   * when more steps are ready than there are slots, the longest chain of cost goes first.
   * Default 1 for in-process steps and 10 for container steps (pipeline/engine/schedule.ts).
   */
  readonly cost?: number | ((params: z.output<S>) => number);
}

export interface Step<S extends ParamsSchema = ParamsSchema, I extends InputKinds = InputKinds, O extends OutputDecls = OutputDecls> {
  /** Unique name in the graph, used on the command line (`--force`, `explain`). */
  readonly name: string;
  readonly def: StepDef<S, I, O>;
  /** Raw params; validated by the def's schema during analysis. */
  readonly params: unknown;
  readonly inputs: InputRefs<I>;
  readonly out: OutputRefs<O>;
  /** This use's resources where they differ from its runtime's (a real-data profile's paper-scale values); never part of a key. */
  readonly resources?: StepResources;
}

export type AnyStep = Step<ParamsSchema, InputKinds, OutputDecls>;

/** A step definition, with the sources of the program its runtime runs added to its extraSources. */
export function defineStep<S extends ParamsSchema, const I extends InputKinds, O extends OutputDecls>(def: StepDef<S, I, O>): StepDef<S, I, O> {
  const program = programSources(def.runtime).filter((s) => !(def.extraSources ?? []).includes(s));
  return program.length === 0 ? def : { ...def, extraSources: [...(def.extraSources ?? []), ...program] };
}

/**
 * Create a step from a def. Inputs must be wired with refs of matching kinds:
 *   use(buildIndex, { params: { k1: 0.9 }, inputs: { passages: prep.out.passages } })
 */
export function use<S extends ParamsSchema, I extends InputKinds, O extends OutputDecls>(
  def: StepDef<S, I, O>,
  options: { readonly name?: string; readonly params?: NoInfer<z.input<S>>; readonly inputs: NoInfer<InputRefs<I>>; readonly resources?: StepResources },
): Step<S, I, O> {
  const name = options.name ?? def.id;
  const step: { name: string; def: StepDef<S, I, O>; params: unknown; inputs: InputRefs<I>; out: OutputRefs<O>; resources?: StepResources } = {
    name,
    def,
    params: options.params ?? {},
    inputs: options.inputs,
    out: {} as OutputRefs<O>,
    ...(options.resources !== undefined ? { resources: options.resources } : {}),
  };
  const out: Record<string, OutputRef> = {};
  for (const [outName, decl] of Object.entries(def.outputs)) {
    out[outName] = Object.freeze({ step, output: outName, kind: decl.kind });
  }
  step.out = Object.freeze(out) as OutputRefs<O>;
  return Object.freeze(step);
}

