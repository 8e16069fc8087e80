/** Content digests of step outputs: a file hashes its bytes; a directory hashes the sorted list of (relative path, file digest). */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { canonicalHash } from "./canonical.ts";

export async function fileDigest(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest("hex");
}

export interface OutputDigest {
  readonly digest: string;
  readonly size: number;
  readonly files: number;
}

async function listFiles(root: string, dir: string, out: string[]): Promise<void> {
  const names = (await readdir(dir)).sort();
  for (const name of names) {
    const p = join(dir, name);
    const s = await stat(p);
    if (s.isDirectory()) await listFiles(root, p, out);
    else if (s.isFile()) out.push(relative(root, p).split(sep).join("/"));
  }
}

export async function outputDigest(path: string, isDir: boolean): Promise<OutputDigest> {
  if (!isDir) {
    const s = await stat(path);
    return { digest: await fileDigest(path), size: s.size, files: 1 };
  }
  const files: string[] = [];
  await listFiles(path, path, files);
  const entries: Record<string, string> = {};
  let size = 0;
  for (const f of files) {
    entries[f] = await fileDigest(join(path, f));
    size += (await stat(join(path, f))).size;
  }
  return { digest: canonicalHash({ dir: entries }), size, files: files.length };
}
