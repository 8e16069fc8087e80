/**
 * Named targets: a target is a set of sink steps; its graph is everything they need.
 * A target may also export outputs: after a successful run each exported output is copied
 * out of the store to `<export root>/<name>` (e.g. `./report/`; exports.ts). The store stays
 * the source of truth.
 */
import type { AnyStep, OutputRef } from "./step.ts";
import type { InputError } from "./errors.ts";
import { canonicalHash } from "./canonical.ts";
import type { ReferenceCost } from "./schedule.ts";

/** Which data a target's graph is built on: the seeded mini benchmark or the real releases in datasets.lock. */
export type DataSource = "mini" | "real";
export const DATA_SOURCES: readonly DataSource[] = ["mini", "real"];

/** A hyperparameter's value as `run --set <path>=<value>` gives it, after parsing and validation. */
export type OverrideValue = number | boolean | readonly number[];

/** Validated overrides by dotted path (`schedule.qrecc.lr`): plain data, so memoisation and keys see them by structure. */
export type Overrides = Readonly<Record<string, OverrideValue>>;

/** Where an overridden run's exports go by default, under the project root: `experiments/<id>/report/`. */
export const EXPERIMENTS_DIR = "experiments";

/** A stable name for a set of overrides (the same overrides, the same directory): `exp-` and 10 hex digits of their canonical hash. */
export function experimentId(overrides: Overrides): string {
  return `exp-${canonicalHash(overrides).slice(0, 10)}`;
}

/** What a target may depend on when it builds its graph (never part of a key by itself: it changes the steps). */
export interface TargetContext {
  readonly data: DataSource;
  /** Hyperparameters overridden with `--set` (absent or empty: the code's values). */
  readonly overrides?: Overrides;
}

/** One overridable hyperparameter as `params <target>` lists it. */
export interface ParameterInfo {
  readonly path: string;
  /** Its type and range in words, e.g. "number in (0, 1]", "integer >= 1", "comma-separated distinct integers >= 0". */
  readonly type: string;
  /** The value the target's graph uses now (for this data source and the target's profile). */
  readonly value: OverrideValue;
  readonly description: string;
}

/**
 * The typed hyperparameters a target's graph reads, overridable from the command line. A
 * space describes itself (`params`) and turns `--set` arguments into overrides, reporting
 * every bad argument (an InputError each: the argument, the path, the expected type and the fix).
 */
export interface ParameterSpace {
  /** What the parameters are, e.g. "the dense setup (mini, paper profile)". */
  readonly name: string;
  describe(ctx: TargetContext): readonly ParameterInfo[];
  parse(sets: readonly string[], ctx: TargetContext): { readonly ok: true; readonly overrides: Overrides } | { readonly ok: false; readonly errors: readonly InputError[] };
}

export interface Target {
  readonly name: string;
  readonly description: string;
  /** Built lazily so that defining many targets costs nothing until one is used. */
  steps(ctx: TargetContext): readonly AnyStep[];
  /**
   * Outputs to copy out of the store after a successful run, by export name (a plain file
   * or directory name under the export root, e.g. `report`). Their steps join the graph.
   */
  exports?(ctx: TargetContext): Readonly<Record<string, OutputRef>>;
  /** The hyperparameters `run <target> --set` may override (absent: the target takes no overrides). */
  readonly parameters?: ParameterSpace;
}

/** An export name is a relative path of plain segments (letters, digits, '.', '_', '-', none starting with '.'), e.g. `report` or `results/table2-bm25`. */
export const EXPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export function checkExportName(target: string, name: string): void {
  if (!EXPORT_NAME.test(name)) throw new Error(`target '${target}' exports '${name}', which is not a relative path of plain names (letters, digits, '.', '_', '-')`);
}

export class TargetRegistry {
  private readonly targets = new Map<string, Target>();
  private defaultName: string | undefined;
  private readonly references = new Map<DataSource, ReferenceCost>();

  /** Step durations of a reference run on this data source (expected times for steps this store never ran). */
  setReferenceCost(data: DataSource, cost: ReferenceCost): this {
    this.references.set(data, cost);
    return this;
  }
  referenceCost(data: DataSource): ReferenceCost | undefined {
    return this.references.get(data);
  }

  register(target: Target, options: { default?: boolean } = {}): this {
    if (this.targets.has(target.name)) throw new Error(`target '${target.name}' registered twice`);
    this.targets.set(target.name, target);
    if (options.default) this.defaultName = target.name;
    return this;
  }
  get(name: string): Target | undefined {
    return this.targets.get(name);
  }
  names(): string[] {
    return [...this.targets.keys()].sort();
  }
  list(): Target[] {
    return this.names().map((n) => this.targets.get(n)!);
  }
  get default(): string | undefined {
    return this.defaultName;
  }
}
