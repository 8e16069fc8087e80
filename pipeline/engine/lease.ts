/**
 * Per-key leases so that two `run` processes on one store never compute the same key
 * twice. A lease is a file created with O_EXCL holding {pid, host}; its holder touches it
 * every `heartbeatMs`. A waiter steals a lease whose holder is dead (same host, pid gone)
 * or whose heartbeat is older than `staleMs` (another host crashed): it renames the file
 * aside first, so exactly one of several waiters wins the steal.
 */
import { link, open, readFile, rename, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";

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
}

export interface Lease {
  readonly path: string;
  release(): Promise<void>;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
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

/** "live" (its holder may still be computing), "stale" (holder dead or silent), or "gone". */
async function leaseState(path: string, holder: LeaseHolder | undefined, host: string, staleMs: number): Promise<"live" | "stale" | "gone"> {
  if (holder && holder.host === host && !pidAlive(holder.pid)) return "stale";
  try {
    const s = await stat(path);
    return Date.now() - s.mtimeMs > staleMs ? "stale" : "live";
  } catch {
    return "gone";
  }
}

/** The holders of the live leases among `paths` (a run on this store is computing their keys). */
export async function liveLeaseHolders(paths: readonly string[], staleMs = STALE_MS): Promise<LeaseHolder[]> {
  const host = hostname();
  const out: LeaseHolder[] = [];
  for (const p of paths) {
    const holder = await readHolder(p);
    if ((await leaseState(p, holder, host, staleMs)) === "live") out.push(holder ?? { pid: 0, host: "unknown", since: "" });
  }
  return out;
}

export async function acquireLease(path: string, options: LeaseOptions = {}): Promise<Lease> {
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const staleMs = options.staleMs ?? STALE_MS;
  const pollMs = options.pollMs ?? 100;
  const host = hostname();
  let waited = false;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const fh = await open(path, "wx");
      try {
        await fh.writeFile(JSON.stringify({ pid: process.pid, host, since: new Date().toISOString() }));
      } finally {
        await fh.close();
      }
      const timer = setInterval(() => {
        const now = new Date();
        utimes(path, now, now).catch(() => undefined);
      }, heartbeatMs);
      timer.unref();
      return {
        path,
        async release() {
          clearInterval(timer);
          await rm(path, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const holder = await readHolder(path);
    const state = await leaseState(path, holder, host, staleMs);
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
