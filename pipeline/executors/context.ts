/**
 * What an executor factory is given besides the environment (index.ts's registry): below both the
 * registry and the factories it loads lazily (slurm/create.ts), so neither imports the other's module.
 */
import type { LocalExecutor } from "./local.ts";
import type { SlurmFlags } from "./slurm/config.ts";

/** The run an executor is made for, as a batch executor needs it to rebuild the graph on a node. */
export interface RunRef {
  readonly root: string;
  readonly storeRoot: string;
  readonly data: string;
  readonly targets: readonly string[];
  readonly sets: readonly string[];
}

/** What a factory may reuse: the project's local executor (its interpreter answers are remembered), the run, the --slurm-* flags. */
export interface ExecutorContext {
  readonly local?: () => LocalExecutor;
  readonly run?: RunRef;
  readonly slurm?: SlurmFlags;
}
