/**
 * In-progress run records: what a running `run` holds, produced or may still read, so that
 * `gc` never removes it (gc.ts).
 *
 *   <store>/runs/live/<id>.keys   line 1: JSON header {pid, host, start, boot, time, targets}
 *                                 then one key per line, appended *before* the run looks the
 *                                 key up (a claim), so a key is claimed before it is read
 *
 * A run writes the header at start, claims every key it resolves (hit or computed) and
 * removes the file when it writes its final run record. A file whose process is dead (a
 * crash, `kill -9`, a power cut) belongs to an interrupted run: gc keeps its keys for the
 * grace period, counted from the file's last change (the last claim).
 *
 * gc reads these records before the final run records: a run writes its final record before
 * it removes this one, so gc sees its keys in one or the other.
 *
 * The protocol with gc (which holds `<store>/gc.lock` while it decides and moves entries
 * aside): claim, then wait while a gc is active, then look up. Either gc read the claim
 * before deciding (the entry stays), or gc was already active when the claim was made
 * (the run waits until it is done, then finds the entry or recomputes it).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir, readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { processState, selfIdentity, type ProcessIdentity } from "./proc.ts";

export interface LiveRunHeader extends ProcessIdentity {
  readonly time: string;
  readonly targets: readonly string[];
}

const HEX64 = /^[0-9a-f]{64}$/;

export function liveDir(storeRoot: string): string {
  return join(storeRoot, "runs", "live");
}

export class LiveRun {
  private readonly claimed = new Set<string>();
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static async start(storeRoot: string, targets: readonly string[]): Promise<LiveRun> {
    const time = new Date().toISOString();
    const header: LiveRunHeader = { ...selfIdentity(), time, targets: [...targets] };
    await mkdir(liveDir(storeRoot), { recursive: true });
    const path = join(liveDir(storeRoot), `${time.replace(/[:.]/g, "-")}-${process.pid}-${randomBytes(3).toString("hex")}.keys`);
    const fd = openSync(path, "a");
    writeSync(fd, `${JSON.stringify(header)}\n`);
    return new LiveRun(path, fd);
  }

  /**
   * Record that this run holds `key`. Written synchronously (one small append, cheaper than
   * a thread-pool round trip): the claim is visible to gc before the caller looks the key up.
   */
  claim(key: string): void {
    if (this.claimed.has(key) || this.fd === undefined) return;
    writeSync(this.fd, `${key}\n`);
    this.claimed.add(key);
  }

  /** The run is over (its final record is written): the claims go. */
  async close(): Promise<void> {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    await rm(this.path, { force: true });
  }
}

export interface LiveRunState {
  readonly path: string;
  readonly header: LiveRunHeader | undefined;
  readonly keys: ReadonlySet<string>;
  /** "running" (its process lives, or another host's file changed recently), else "interrupted". */
  readonly state: "running" | "interrupted";
  /** Last change of the file (the last claim). */
  readonly mtimeMs: number;
}

/** How long another host's run record may stay unchanged and still count as running. */
export const OTHER_HOST_SILENCE_MS = 24 * 3600 * 1000;

/** Every in-progress record on the store, with its state. Lines that do not parse (a claim cut by a crash) are skipped. */
export async function readLiveRuns(storeRoot: string): Promise<LiveRunState[]> {
  const dir = liveDir(storeRoot);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".keys")).sort();
  } catch {
    return [];
  }
  const out: LiveRunState[] = [];
  for (const name of names) {
    const path = join(dir, name);
    let text: string;
    let mtimeMs: number;
    try {
      text = await readFile(path, "utf8");
      mtimeMs = (await stat(path)).mtimeMs;
    } catch {
      continue; // finished meanwhile
    }
    const lines = text.split("\n");
    let header: LiveRunHeader | undefined;
    try {
      header = JSON.parse(lines[0] ?? "") as LiveRunHeader;
    } catch {
      header = undefined;
    }
    const keys = new Set(lines.slice(1).filter((l) => HEX64.test(l)));
    let state: LiveRunState["state"];
    if (!header || typeof header.pid !== "number") state = Date.now() - mtimeMs < 60_000 ? "running" : "interrupted"; // its header is being written
    else {
      const p = processState(header);
      state = p === "alive" ? "running" : p === "dead" ? "interrupted" : Date.now() - mtimeMs < OTHER_HOST_SILENCE_MS ? "running" : "interrupted";
    }
    out.push({ path, header, keys, state, mtimeMs });
  }
  return out;
}

/** `<store>/gc.lock`: present (and live) while a gc decides what to remove. */
export function gcLockPath(storeRoot: string): string {
  return join(storeRoot, "gc.lock");
}
