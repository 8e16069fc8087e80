/**
 * Per-key leases so that two `run` processes on one store never compute the same key
 * twice. A lease is a file created with O_EXCL holding the holder's identity {pid, host,
 * start, boot} (proc.ts); its holder touches it every `heartbeatMs`.
 *
 * Whether a lease is live:
 * - same host: while its holder lives (pid + start time), whatever the file's age, so a
 *   run paused by SIGSTOP or a suspended laptop keeps its leases;
 * - another host: while its heartbeat is younger than `staleMs`.
 * A waiter steals a lease that is not live (holder dead, or silent on another host): it
 * renames the file aside first, so exactly one of several waiters wins the steal.
 *
 * Every lease this process holds is also registered in `heldLeases`, so an interrupted run
 * can remove them on its way out even when a step never returns (interrupt.ts).
 */
import { unlinkSync } from "node:fs";
import { link, open, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { processState, selfIdentity, pidAlive } from "./proc.ts";

export { pidAlive };

export interface LeaseOptions {
  readonly heartbeatMs?: number;
  readonly staleMs?: number;
  readonly pollMs?: number;
  /** Called once when the lease is held by someone else and we start waiting. */
  readonly onWait?: (holder: LeaseHolder | undefined) => void;
  readonly signal?: AbortSignal;
}

export interface LeaseHolder {
  readonly pid: number;
  readonly host: string;
  readonly since: string;
  /** The holder's start time and boot id (proc.ts); absent in leases of older versions or without /proc. */
  readonly start?: string;
  readonly boot?: string;
}

export interface Lease {
  readonly path: string;
  release(): Promise<void>;
}

/** Lease files held by this process (removed synchronously by a hard stop). */
const held = new Set<string>();
export function heldLeases(): readonly string[] {
  return [...held];
}
/** Remove every lease this process holds, synchronously (the second Ctrl-C: no time for promises). */
export function dropHeldLeasesSync(): void {
  for (const p of held) {
    try {
      unlinkSync(p);
    } catch {
      /* already gone */
    }
  }
  held.clear();
}

async function readHolder(path: string): Promise<LeaseHolder | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as LeaseHolder;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Default heartbeat age after which a lease of another host counts as abandoned. */
export const STALE_MS = 15_000;

/**
 * "live" (its holder may still be computing), "stale" (holder dead, or silent on another
 * host), or "gone". A file that does not parse (a holder killed while writing it) is judged
 * by its age: its writer had just created it.
 */
export async function leaseState(path: string, holder: LeaseHolder | undefined, staleMs = STALE_MS): Promise<"live" | "stale" | "gone"> {
  if (holder && typeof holder.pid === "number" && typeof holder.host === "string") {
    const state = processState(holder);
    if (state === "alive") return "live";
    if (state === "dead") return "stale";
  }
  try {
    const s = await stat(path);
    return Date.now() - s.mtimeMs > staleMs ? "stale" : "live";
  } catch {
    return "gone";
  }
}

/** The holders of the live leases among `paths` (a run on this store is computing their keys). */
export async function liveLeaseHolders(paths: readonly string[], staleMs = STALE_MS): Promise<LeaseHolder[]> {
  const out: LeaseHolder[] = [];
  for (const p of paths) {
    const holder = await readHolder(p);
    if ((await leaseState(p, holder, staleMs)) === "live") out.push(holder ?? { pid: 0, host: "unknown", since: "" });
  }
  return out;
}

export { readHolder as readLeaseHolder };

export async function acquireLease(path: string, options: LeaseOptions = {}): Promise<Lease> {
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const staleMs = options.staleMs ?? STALE_MS;
  const pollMs = options.pollMs ?? 100;
  let waited = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const fh = await open(path, "wx");
      try {
        await fh.writeFile(JSON.stringify({ ...selfIdentity(), since: new Date().toISOString() }));
      } finally {
        await fh.close();
      }
      held.add(path);
      const timer = setInterval(() => {
        const now = new Date();
        utimes(path, now, now).catch(() => undefined);
      }, heartbeatMs);
      timer.unref();
      return {
        path,
        async release() {
          clearInterval(timer);
          if (!held.delete(path)) return; // already dropped by a hard stop
          await rm(path, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = await readHolder(path);
    const state = await leaseState(path, holder, staleMs);
    if (state === "gone") continue; // released meanwhile
    if (state === "stale") {
      const aside = `${path}.stale-${randomBytes(4).toString("hex")}`;
      try {
        await rename(path, aside);
      } catch {
        continue; // another waiter stole it first
      }
      // Between our check and the rename, another waiter may have stolen the stale lease and
      // taken a fresh one, which we just moved aside: put a lease that is not the one we judged back.
      const moved = await readHolder(aside);
      if (holder && moved && (moved.pid !== holder.pid || moved.since !== holder.since)) {
        await link(aside, path).catch(() => undefined);
      }
      await rm(aside, { force: true });
      continue;
    }
    if (!waited) {
      waited = true;
      options.onWait?.(holder);
    }
    await sleep(pollMs);
  }
}
