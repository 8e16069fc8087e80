/**
 * GPU slots: a run with `--gpus N` has devices 0..N-1, and a step whose container runtime asks
 * for GPUs (or whose in-process runtime can use them) takes that many of them (`count: "all"`: every one) for as long as it runs, instead
 * of one of the `--concurrency` slots. Steps waiting for devices are served like the CPU slots
 * (schedule.ts): highest priority first, then by name, and grants pause while steps are on
 * their way to the queue. The head of the queue is never overtaken by a smaller request that
 * would fit (no backfilling), so a step that needs every GPU is not starved by single-GPU steps.
 * Free devices are handed out lowest index first.
 */
import type { AnyStep } from "./step.ts";

/** Devices a step takes from a pool of `pool` (0: none, it runs in a CPU slot). */
export function devicesWanted(step: AnyStep, pool: number): number {
  const rt = step.def.runtime;
  if (pool === 0 || rt.gpu === undefined) return 0;
  // An in-process step's GPUs are optional: it takes what the run has, up to its count.
  if (rt.type === "in-process") return Math.min(rt.gpu.count, pool);
  return rt.gpu.count === "all" ? pool : rt.gpu.count;
}

/** Steps asking for more GPUs than the run has (a planning failure). */
export function oversizedGpuRequests(steps: readonly AnyStep[], pool: number): { step: string; wanted: number }[] {
  if (pool === 0) return [];
  return steps.map((s) => ({ step: s.name, wanted: devicesWanted(s, pool) })).filter((r) => r.wanted > pool);
}

export class DevicePool {
  private readonly free: boolean[];
  private holds = 0;
  private scheduled = false;
  private readonly waiting: { count: number; priority: number; name: string; grant: (devices: number[]) => void }[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 0) throw new Error(`GPU count must be an integer >= 0, got ${size}`);
    this.free = Array.from({ length: size }, () => true);
  }

  acquire(count: number, priority: number, name: string): Promise<number[]> {
    if (!Number.isInteger(count) || count < 1 || count > this.size) {
      return Promise.reject(new Error(`step ${name} asks for ${count} GPU(s) of ${this.size}`));
    }
    return new Promise<number[]>((grant) => {
      this.waiting.push({ count, priority, name, grant });
      this.schedule();
    });
  }

  release(devices: readonly number[]): void {
    for (const d of devices) {
      if (this.free[d] !== false) throw new Error(`GPU slot ${d} released twice`);
      this.free[d] = true;
    }
    this.schedule();
  }

  hold(): void {
    this.holds++;
  }

  unhold(): void {
    if (this.holds === 0) throw new Error("DevicePool.unhold without a hold");
    this.holds--;
    if (this.holds === 0) this.schedule();
  }

  /** Devices free now (for tests and logs). */
  available(): number {
    return this.free.filter(Boolean).length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  private drain(): void {
    while (this.holds === 0 && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        const w = this.waiting[i]!;
        const b = this.waiting[best]!;
        if (w.priority > b.priority || (w.priority === b.priority && w.name < b.name)) best = i;
      }
      const head = this.waiting[best]!;
      if (head.count > this.available()) return;
      this.waiting.splice(best, 1);
      const devices: number[] = [];
      for (let d = 0; d < this.size && devices.length < head.count; d++) {
        if (this.free[d]) {
          this.free[d] = false;
          devices.push(d);
        }
      }
      head.grant(devices);
    }
  }
}
