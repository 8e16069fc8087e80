/** Named targets: a target is a set of sink steps; its graph is everything they need. */
import type { AnyStep } from "./step.ts";

/** Which data a target's graph is built on: the seeded mini benchmark or the real releases in datasets.lock. */
export type DataSource = "mini" | "real";
export const DATA_SOURCES: readonly DataSource[] = ["mini", "real"];

/** What a target may depend on when it builds its graph (never part of a key by itself: it changes the steps). */
export interface TargetContext {
  readonly data: DataSource;
}

export interface Target {
  readonly name: string;
  readonly description: string;
  /** Built lazily so that defining many targets costs nothing until one is used. */
  steps(ctx: TargetContext): readonly AnyStep[];
}

export class TargetRegistry {
  private readonly targets = new Map<string, Target>();
  private defaultName: string | undefined;

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
