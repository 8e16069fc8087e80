/**
 * Content checks of published entries, made cheap by stat stamps.
 *
 * A consumer's key takes its inputs' digests from the producers' manifests, so those
 * digests must be the bytes on disk: every entry a run resolves is checked before it is
 * used (and a consumer's inputs again right before it runs). Re-hashing every output on
 * every run would cost as much as reading the whole store, so each file's stat stamp
 * (size, mtime, ctime, inode, device: any write changes mtime and ctime) is recorded with
 * its digest when it is hashed, in `<store>/stamps/<key>.json` (a cache beside the entries,
 * never part of them). A file whose stamp is unchanged is not re-hashed; one whose stamp
 * changed, or whose cached digest disagrees with the manifest, is re-hashed, and only the
 * bytes decide.
 *
 * Racy stamps: file times have the kernel's clock-tick granularity, so a write in the same
 * tick as the stamp would not show. A stamp a check took less than RACY_MS after the file's
 * last change is not trusted (the next check re-hashes once). Stamps taken when an entry is
 * published are trusted: the step has returned and the entry is renamed into place after
 * hashing, so only a program still writing into its outputs after it finished could change
 * them unseen, within one clock tick of its last write (and --verify would still see it).
 *
 * Seals: the stamp file also records each output's digest and file count as composed from the
 * recorded digests (at publish, or by a check that found the entry intact). A directory output whose
 * files are exactly those, each unchanged under a trusted stamp, has that digest: its canonical list
 * of file digests is not hashed again on every check (`dirOutput`).
 *
 * `full` (--verify, `doctor --content`) ignores stamps and re-hashes everything.
 */
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, type BigIntStats } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { dirDigest, fileDigest, sameStamp, statStamp, type StampedDigest, type StatStamp } from "./digest.ts";
import type { Entry } from "./entry.ts";

export { hashStats } from "./digest.ts";

/** A stamp younger than this relative to the file's last change is not trusted. */
export const RACY_MS = 100;

interface FileStamp extends StatStamp {
  readonly digest: string;
  /** Date.now() when the stamp was taken. */
  readonly at: number;
  /** Taken when the entry was published (trusted whatever its age). */
  readonly published?: boolean;
}

/** An output's digest and the number of its files, as composed from the digests recorded in `files`. */
interface OutputSeal {
  readonly digest: string;
  readonly files: number;
}

interface StampFile {
  readonly schema: 1;
  /** "<output>" for a file output, "<output>/<relative path>" for the files of a directory output. */
  readonly files: Record<string, FileStamp>;
  /**
   * Per output, the digest its files' recorded digests were found to compose (when the entry was
   * published, or by a check that found it intact) and how many files it had. While each of those
   * files is still there under its stamp and there are no others, a directory's digest is that one:
   * not recomputed from the list of its files (see `check`). Absent in stamp files of older versions.
   */
  readonly outputs?: Record<string, OutputSeal>;
}

const stampKey = (output: string, rel: string) => (rel === "" ? output : `${output}/${rel}`);

/**
 * The files of a directory output as digest.ts's listOutputFiles lists them when an entry is
 * published (following symlinks, sorted by relative path), read synchronously: a no-op rerun
 * checks every file of every entry it resolves (the default target: ~2,900 files in ~570
 * folders), and one asynchronous stat or readdir is a thread-pool round trip each. A folder is
 * known from its directory entry, so only files (and links, to follow them) are stat'ed; paths
 * are joined by hand (`dir` is already normal, a name has no separator). (digest.ts is in every
 * step's source closure: changing it there would re-key every step.)
 */
export function listFilesSync(dir: string, prefix = "", out: { rel: string; path: string; stat: BigIntStats }[] = []): { rel: string; path: string; stat: BigIntStats }[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const d of entries) {
    const path = `${dir}/${d.name}`;
    const rel = prefix ? `${prefix}/${d.name}` : d.name;
    if (d.isDirectory()) {
      listFilesSync(path, rel, out);
      continue;
    }
    const s = statSync(path, { bigint: true });
    if (s.isDirectory()) listFilesSync(path, rel, out);
    else if (s.isFile()) out.push({ rel, path, stat: s });
  }
  return out;
}

function trusted(s: FileStamp): boolean {
  if (s.published === true) return true;
  const changed = Math.max(Number(BigInt(s.mtimeNs) / 1_000_000n), Number(BigInt(s.ctimeNs) / 1_000_000n));
  return s.at - changed >= RACY_MS;
}

export interface CheckOptions {
  /** Re-hash every file, whatever its stamp says. */
  readonly full?: boolean;
}

export class ContentChecker {
  /** Stamps this process took or checked, by key (saves re-reading them from disk). */
  private readonly own = new Map<string, StampFile>();

  constructor(private readonly root: string) {}

  private path(key: string): string {
    return join(this.root, "stamps", `${key}.json`);
  }

  private load(key: string): StampFile | undefined {
    try {
      const v = JSON.parse(readFileSync(this.path(key), "utf8")) as StampFile;
      return v && v.schema === 1 && typeof v.files === "object" && v.files !== null ? v : undefined;
    } catch {
      return undefined; // absent or damaged: a cache, rebuilt by re-hashing
    }
  }

  /** Written synchronously: a small file per computed entry, cheaper than async round trips. */
  private async save(key: string, stamps: StampFile): Promise<void> {
    const p = this.path(key);
    const tmp = `${p}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    try {
      mkdirSync(join(this.root, "stamps"), { recursive: true });
      writeFileSync(tmp, JSON.stringify(stamps));
      renameSync(tmp, p);
    } catch {
      rmSync(tmp, { force: true }); // a read-only or full store: no cache, still correct
    }
  }

  /** Stamps taken while publishing `key` (execute.ts), trusted in this process. */
  async recordPublished(key: string, outputs: Readonly<Record<string, StampedDigest>>): Promise<void> {
    const at = Date.now();
    const files: Record<string, FileStamp> = {};
    const seals: Record<string, OutputSeal> = {};
    for (const [name, d] of Object.entries(outputs)) {
      for (const [rel, s] of Object.entries(d.stamps)) files[stampKey(name, rel)] = { ...s, at, published: true };
      seals[name] = { digest: d.digest, files: d.files };
    }
    const stamps: StampFile = { schema: 1, files, outputs: seals };
    this.own.set(key, stamps);
    await this.save(key, stamps);
  }

  /** Forget the stamps of a key (its entry was moved aside or removed). */
  async forget(key: string): Promise<void> {
    this.own.delete(key);
    await rm(this.path(key), { force: true });
  }

  /**
   * The names of `entry`'s outputs whose bytes do not match its manifest (missing files
   * included), sorted; [] when intact. Stamps are refreshed for files it had to re-hash.
   */
  async check(entry: Entry, options: CheckOptions = {}): Promise<string[]> {
    const own = this.own.get(entry.key);
    const cached = options.full ? undefined : (own ?? this.load(entry.key));
    const next: Record<string, FileStamp> = {};
    const seals: Record<string, OutputSeal> = {};
    const state = { rehashed: false };
    const bad: string[] = [];
    for (const [name, rec] of Object.entries(entry.manifest.outputs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const path = join(entry.dir, "outputs", rec.path);
      try {
        const seal = rec.dir ? await this.dirOutput(name, path, rec.digest, cached, next, state) : await this.fileOutput(name, path, rec.digest, cached, next, state);
        if (seal.digest !== rec.digest) bad.push(name);
        else seals[name] = seal;
      } catch {
        bad.push(name);
      }
    }
    if (bad.length === 0) {
      const stamps: StampFile = { schema: 1, files: next, outputs: seals };
      this.own.set(entry.key, stamps);
      if (state.rehashed || cached === undefined || !sameSeals(cached.outputs, seals)) await this.save(entry.key, stamps);
    }
    return bad;
  }

  /** A file's digest: the recorded one while its stamp is unchanged and trusted, else its bytes'. */
  private async digestOf(k: string, path: string, st: StatStamp, cached: StampFile | undefined, next: Record<string, FileStamp>, state: { rehashed: boolean }): Promise<string> {
    const s = cached?.files[k];
    if (s && sameStamp(s, st) && trusted(s)) {
      next[k] = s;
      return s.digest;
    }
    state.rehashed = true;
    return this.rehash(k, path, next);
  }

  /** A file output's digest; a recorded digest that disagrees with the manifest is a damaged cache until the bytes say otherwise. */
  private async fileOutput(name: string, path: string, expected: string, cached: StampFile | undefined, next: Record<string, FileStamp>, state: { rehashed: boolean }): Promise<OutputSeal> {
    const st = statSync(path, { bigint: true }); // small and frequent: no thread-pool round trip
    if (!st.isFile()) throw new Error("not a file");
    let digest = await this.digestOf(name, path, statStamp(st), cached, next, state);
    if (digest !== expected && next[name] === cached?.files[name]) {
      digest = await this.rehash(name, path, next);
      state.rehashed = true;
    }
    return { digest, files: 1 };
  }

  /**
   * A directory output's digest. When the stamp file seals the manifest's digest, every file the
   * directory holds now is one it recorded, unchanged under a trusted stamp, and the seal counts
   * exactly that many, the files are the ones whose digests composed the sealed digest: that is
   * the directory's digest (the trust each file's stamp already carries, without hashing the list
   * of digests again; a seal that names another digest is not used). A
   * digest composed from recorded digests that disagrees with the manifest is a damaged cache
   * until the bytes say otherwise: every file is then re-hashed.
   */
  private async dirOutput(name: string, path: string, expected: string, cached: StampFile | undefined, next: Record<string, FileStamp>, state: { rehashed: boolean }): Promise<OutputSeal> {
    const files = listFilesSync(path);
    const digests: Record<string, string> = {};
    let unchanged = 0;
    for (const f of files) {
      const k = stampKey(name, f.rel);
      digests[f.rel] = await this.digestOf(k, f.path, statStamp(f.stat), cached, next, state);
      if (next[k] === cached?.files[k]) unchanged++;
    }
    const seal = cached?.outputs?.[name];
    if (seal !== undefined && seal.digest === expected && seal.files === files.length && unchanged === files.length) return seal;
    let digest = dirDigest(digests);
    if (digest !== expected && unchanged > 0) {
      for (const f of files) digests[f.rel] = await this.rehash(stampKey(name, f.rel), f.path, next);
      state.rehashed = true;
      digest = dirDigest(digests);
    }
    return { digest, files: files.length };
  }

  private async rehash(k: string, path: string, next: Record<string, FileStamp>): Promise<string> {
    const digest = await fileDigest(path);
    next[k] = { ...statStamp(await stat(path, { bigint: true })), digest, at: Date.now() };
    return digest;
  }
}

/** Do two stamp files seal the same outputs alike? */
function sameSeals(a: Readonly<Record<string, OutputSeal>> | undefined, b: Readonly<Record<string, OutputSeal>>): boolean {
  if (a === undefined || Object.keys(a).length !== Object.keys(b).length) return false;
  return Object.entries(b).every(([name, s]) => a[name]?.digest === s.digest && a[name]?.files === s.files);
}
