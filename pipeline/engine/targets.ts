/**
 * Named targets: a target is a set of sink steps; its graph is everything they need.
 * A target may also export outputs: after a successful run each exported output is copied
 * out of the store to `<export root>/<name>` (e.g. `./report/`). The store stays the
 * source of truth; the copy is replaced whole (written beside it, then renamed over).
 */
import { cp, mkdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { AnyStep, OutputRef } from "./step.ts";

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
  /**
   * Outputs to copy out of the store after a successful run, by export name (a plain file
   * or directory name under the export root, e.g. `report`). Their steps join the graph.
   */
  exports?(ctx: TargetContext): Readonly<Record<string, OutputRef>>;
}

/** An export name is one path segment: letters, digits, '.', '_', '-', not starting with '.'. */
export const EXPORT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function checkExportName(target: string, name: string): void {
  if (!EXPORT_NAME.test(name)) throw new Error(`target '${target}' exports '${name}', which is not a plain file name (letters, digits, '.', '_', '-')`);
}

/**
 * Copy `from` (a file or a directory) to `<root>/<name>`, replacing what is there. The copy
 * is written to a temporary sibling first and renamed into place, so readers never see a
 * half-written export; a previous directory is moved aside and deleted after the rename.
 */
export async function publishExport(from: string, root: string, name: string): Promise<string> {
  if (!EXPORT_NAME.test(name)) throw new Error(`export name '${name}' is not a plain file name`);
  await mkdir(root, { recursive: true });
  const dest = join(root, name);
  const suffix = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = join(root, `.${name}.tmp-${suffix}`);
  const old = join(root, `.${name}.old-${suffix}`);
  try {
    await cp(from, tmp, { recursive: true, errorOnExist: true, force: false });
    const isDir = (await stat(tmp)).isDirectory();
    const existing = await stat(dest).catch(() => undefined);
    // rename(2) replaces a file atomically but cannot replace a non-empty directory: move it aside first.
    if (existing !== undefined && (isDir || existing.isDirectory())) await rename(dest, old);
    await rename(tmp, dest);
  } finally {
    await rm(tmp, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
  return dest;
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
