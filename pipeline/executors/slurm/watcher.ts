/**
 * One batched poll per interval for every job of the run: `squeue -j <all ids>` (finished jobs
 * stay in it for MinJobAge), and for the jobs squeue no longer lists, one `sacct -j <those ids>`.
 * Each watched job hears its state whenever it changes and is settled once with its final
 * state, or as vanished when neither client knows it for `vanishMs` (accounting off and
 * purged from the queue, or a controller that lost it).
 */
import type { SlurmClients } from "./commands.ts";
import { isFinal, type JobState } from "./queue.ts";

export type FinalState = JobState | { readonly id: string; readonly state: "VANISHED"; readonly reason: string; readonly nodes: string };

interface Watched {
  readonly name: string;
  last?: JobState;
  /** When neither squeue nor sacct last knew it (ms), or undefined while they do. */
  missingSince?: number | undefined;
  onState(s: JobState): void;
  settle(s: FinalState): void;
}

export interface WatcherOptions {
  readonly pollMs: number;
  readonly vanishMs: number;
  /** A poll that failed (the controller is down, say): told once per run of failures. */
  readonly warn: (message: string) => void;
  readonly now?: () => number;
}

export class JobWatcher {
  private readonly jobs = new Map<string, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  private polls = 0;

  constructor(
    private readonly clients: SlurmClients,
    private readonly options: WatcherOptions,
  ) {}

  /** Resolves with the job's final state; `onState` hears each new state before that. */
  watch(id: string, name: string, onState: (s: JobState) => void): Promise<FinalState> {
    return new Promise((settle) => {
      this.jobs.set(id, { name, onState, settle });
      this.schedule(0);
    });
  }

  /** Stop watching (a cancelled job that is waited for no more). */
  forget(id: string): void {
    this.jobs.delete(id);
  }

  /** Ids of the jobs still watched. */
  ids(): string[] {
    return [...this.jobs.keys()];
  }

  /** Polls made so far (one squeue each). */
  get pollCount(): number {
    return this.polls;
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined || this.jobs.size === 0) return;
    this.timer = setTimeout(() => {
      void this.poll().finally(() => {
        this.timer = undefined;
        this.schedule(this.options.pollMs);
      });
    }, ms);
  }

  private async poll(): Promise<void> {
    const ids = this.ids();
    if (ids.length === 0) return;
    this.polls++;
    const queue = await this.clients.queue(ids);
    if ("error" in queue) return this.failed(queue.error);
    const seen = new Map(queue.map((s) => [s.id, s]));
    const missing = ids.filter((id) => !seen.has(id));
    if (missing.length > 0) {
      const acct = await this.clients.accounting(missing);
      // sacct keeps older clusters' jobs under the same ids: only this run's job name counts.
      if (!("error" in acct)) for (const s of acct) if (s.name === this.jobs.get(s.id)?.name) seen.set(s.id, s);
    }
    this.failing = false;
    const now = (this.options.now ?? Date.now)();
    for (const id of ids) this.update(id, seen.get(id), now);
  }

  private update(id: string, s: JobState | undefined, now: number): void {
    const w = this.jobs.get(id);
    if (!w) return;
    if (s === undefined) {
      w.missingSince ??= now;
      if (now - w.missingSince < this.options.vanishMs) return;
      this.jobs.delete(id);
      w.settle({ id, state: "VANISHED", reason: `neither squeue nor sacct has known it for ${Math.round((now - w.missingSince) / 1000)} s`, nodes: w.last?.nodes ?? "" });
      return;
    }
    w.missingSince = undefined;
    const changed = w.last?.state !== s.state || w.last.reason !== s.reason || w.last.nodes !== s.nodes;
    w.last = s;
    if (changed) w.onState(s);
    if (isFinal(s.state)) {
      this.jobs.delete(id);
      w.settle(s);
    }
  }

  private failed(message: string): void {
    if (!this.failing) this.options.warn(`${message}; polling again every ${this.options.pollMs / 1000} s`);
    this.failing = true;
  }
}
