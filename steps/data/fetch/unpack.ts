/**
 * Unpack a fetched file into a directory, one unpacker per lock-file `unpack` kind.
 *
 * - gz: Node's zlib (streaming; the output is the file name without `.gz`).
 * - bz2, tar, tar.gz, tar.bz2: the system `bzip2` / `tar` (GNU tar strips leading `/` and
 *   refuses `..` members by default).
 * - zip: the system `unzip` (Info-ZIP 6 handles zip64, which the ~27 GB QReCC passages.zip
 *   needs; a hand-written central-directory reader would have to handle zip64 extra fields,
 *   data descriptors and multi-GB streams too). `unzip` is not in every minimal image: a
 *   missing tool is reported with the apt-get command that installs it.
 *
 * Output is written into `<outDir>.partial` and renamed into place, so an interrupted
 * unpack never leaves a directory that looks complete.
 */
import { spawn } from "node:child_process";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, readdir } from "node:fs/promises";
import { basename, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { UnpackKind } from "../../../pipeline/engine/datasets-lock.ts";

type Unpacker = (archive: string, outDir: string) => Promise<void>;

const TOOL_PACKAGES: Record<string, string> = { unzip: "unzip", tar: "tar", bzip2: "bzip2" };

function stripSuffix(name: string, suffixes: readonly string[]): string {
  for (const s of suffixes) if (name.toLowerCase().endsWith(s) && name.length > s.length) return name.slice(0, -s.length);
  return `${name}.out`;
}

/** Run a tool; stdout optionally into a file. Rejects with an InputError naming the archive. */
function runTool(tool: string, args: readonly string[], archive: string, kind: UnpackKind, stdoutFile?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ["ignore", stdoutFile ? "pipe" : "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-2000);
    });
    let writeDone: Promise<void> = Promise.resolve();
    if (stdoutFile && child.stdout) writeDone = pipeline(child.stdout, createWriteStream(stdoutFile));
    child.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") {
        const pkg = TOOL_PACKAGES[tool] ?? tool;
        reject(new InputError(`cannot unpack ${kind} archive: the '${tool}' command is not installed`, { file: archive, fix: `install it (Debian/Ubuntu: apt-get install -y ${pkg}) and run again` }));
      } else reject(err);
    });
    child.on("close", (code, signal) => {
      writeDone.then(
        () => {
          if (code === 0) resolve();
          else {
            const why = signal ? `killed by ${signal}` : `exit status ${code}`;
            reject(new InputError(`cannot unpack as ${kind}: ${tool} failed (${why}): ${stderr.trim() || "no message"}`, { file: archive, fix: "the file may be truncated or not of this kind: delete it and fetch again, or correct the entry's 'unpack' in datasets.lock" }));
          }
        },
        (err: unknown) => reject(err),
      );
    });
  });
}

const gunzipTo: Unpacker = async (archive, outDir) => {
  const out = join(outDir, stripSuffix(basename(archive), [".gz", ".gzip"]));
  try {
    await pipeline(createReadStream(archive), createGunzip(), createWriteStream(out));
  } catch (err) {
    throw new InputError(`cannot unpack as gz: ${(err as Error).message}`, { file: archive, fix: "the file may be truncated or not gzip: delete it and fetch again, or correct the entry's 'unpack' in datasets.lock" });
  }
};

export const unpackers: Record<UnpackKind, Unpacker> = {
  none: async () => {},
  gz: gunzipTo,
  bz2: (archive, outDir) => runTool("bzip2", ["-dc", archive], archive, "bz2", join(outDir, stripSuffix(basename(archive), [".bz2", ".bzip2"]))),
  zip: (archive, outDir) => runTool("unzip", ["-q", "-o", archive, "-d", outDir], archive, "zip"),
  tar: (archive, outDir) => runTool("tar", ["-xf", archive, "-C", outDir, "--no-same-owner"], archive, "tar"),
  "tar.gz": (archive, outDir) => runTool("tar", ["-xzf", archive, "-C", outDir, "--no-same-owner"], archive, "tar.gz"),
  "tar.bz2": (archive, outDir) => runTool("tar", ["-xjf", archive, "-C", outDir, "--no-same-owner"], archive, "tar.bz2"),
};

/**
 * Unpack `archive` (of `kind`) into `outDir`, replacing what was there. Returns the sorted
 * list of top-level names created. Kind `none` does nothing and returns [].
 */
export async function unpackFile(archive: string, kind: UnpackKind, outDir: string): Promise<string[]> {
  if (kind === "none") return [];
  const tmp = `${outDir}.partial`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(tmp, { recursive: true });
  try {
    await unpackers[kind](archive, tmp);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  await rm(outDir, { recursive: true, force: true });
  await rename(tmp, outDir);
  return (await readdir(outDir)).sort();
}
