/**
 * What the source scanner learned from a file (its digest, the imports it names), remembered
 * across processes by the file's stat stamp, so a command whose sources did not change reads
 * none of them again (`.cspipe/source-memo.json`, written by the CLI's scanner).
 *
 * The stamp is the one the store trusts for its outputs (stamps.ts): size, mtime, ctime, inode
 * and device, all in nanoseconds. Any write changes mtime and ctime, and nothing but the kernel
 * sets ctime, so an edit that keeps the size and puts the mtime back is still seen; a file
 * replaced by another (a checkout, a rename over it) has another inode or ctime. A file that
 * changed less than RACY_MS before it was read is not remembered: a write in the same clock tick
 * as the read would not move its stamp. What is remembered is only what the file says (its
 * digest and the specifiers it imports); resolving those to files is done afresh every time.
 * The memo is a cache: absent, unreadable or of another format, every file is read.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";

/** A file that changed less than this before it was read is not remembered. */
export const RACY_MS = 100;

interface Remembered {
  readonly stamp: string;
  /** Per kind of answer (e.g. "module", "bytes", "python"): what the file said. */
  readonly answers: Record<string, unknown>;
}

const FORMAT = 1;

export class SourceMemo {
  private files = new Map<string, Remembered>();
  private dirty = false;
  private loaded = false;

  constructor(
    /** Where the memo is kept; undefined: in this process only. */
    private readonly file: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    if (this.file === undefined) return;
    try {
      const v = JSON.parse(readFileSync(this.file, "utf8")) as { format?: unknown; files?: unknown };
      if (v.format === FORMAT && typeof v.files === "object" && v.files !== null) this.files = new Map(Object.entries(v.files as Record<string, Remembered>));
    } catch {
      // absent or damaged: every file is read
    }
  }

  /**
   * `compute(bytes)`'s answer for `path`, from memory while the file's stamp is the one it had
   * when the answer was computed.
   */
  answer<T>(path: string, kind: string, compute: (bytes: Buffer) => T): T {
    this.load();
    const s = statSync(path, { bigint: true });
    const stamp = `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}`;
    const known = this.files.get(path);
    if (known !== undefined && known.stamp === stamp && kind in known.answers) return known.answers[kind] as T;
    const value = compute(readFileSync(path));
    const changedMs = Number((s.mtimeNs > s.ctimeNs ? s.mtimeNs : s.ctimeNs) / 1_000_000n);
    if (this.now() - changedMs >= RACY_MS) {
      this.files.set(path, { stamp, answers: { ...(known?.stamp === stamp ? known.answers : {}), [kind]: value } });
      this.dirty = true;
    }
    return value;
  }

  /** Write what was learned (when anything was), atomically; a read-only checkout just keeps no memo. */
  save(): void {
    if (!this.dirty || this.file === undefined) return;
    this.dirty = false;
    const tmp = `${this.file}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(tmp, JSON.stringify({ format: FORMAT, files: Object.fromEntries(this.files) }));
      renameSync(tmp, this.file);
    } catch {
      rmSync(tmp, { force: true });
    }
  }
}
