/**
 * Host side of the output export: the container's /cspipe/out arrives as one tar file;
 * unpack it with the system `tar` into a scratch directory, then move each declared
 * output into the path the engine expects in its staging directory. Undeclared files are
 * left behind in scratch (deleted with the job's work directory), so an entry holds only
 * what the step declares. The engine then hashes and publishes atomically as usual.
 */
import { spawn } from "node:child_process";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { OutputMapping } from "./plan.ts";

async function exists(p: string): Promise<boolean> {
  try {
    await stat(p);
    return true;
  } catch {
    return false;
  }
}

/** `tar -xf <tarPath> -C <dest>` with the system tar (no owner or permission games). */
export function untar(tarPath: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("tar", ["-xf", tarPath, "-C", dest, "--no-same-owner", "--no-same-permissions"], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", (e) => reject(new Error(`cannot run the system tar to unpack ${tarPath}: ${e.message}. Install tar (apt-get install tar).`)));
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`tar -xf ${tarPath} exited with ${code}: ${err.trim()}`))));
  });
}

/**
 * Unpack `tarPath` into `scratch` and move every declared output to its host path.
 * A declared output missing from the archive is left absent (or, for a directory the
 * engine pre-created, empty): the engine reports it as a missing output.
 */
export async function extractOutputs(tarPath: string, outputs: readonly OutputMapping[], scratch: string): Promise<void> {
  await rm(scratch, { recursive: true, force: true });
  await mkdir(scratch, { recursive: true });
  await untar(tarPath, scratch);
  for (const o of outputs) {
    const from = join(scratch, ...o.rel.split("/"));
    if (!(await exists(from))) continue;
    const isDir = (await stat(from)).isDirectory();
    if (isDir !== o.dir) throw new Error(`output ${o.name}: the container produced a ${isDir ? "directory" : "file"} at ${o.rel}, the step declares a ${o.dir ? "directory" : "file"}`);
    await rm(o.host, { recursive: true, force: true });
    await mkdir(dirname(o.host), { recursive: true });
    await rename(from, o.host);
  }
  await rm(scratch, { recursive: true, force: true });
  await rm(tarPath, { force: true });
}
