/**
 * `--data-dir <dir>`: files a user placed by hand (e.g. downloaded in a browser behind a
 * login, or copied from another machine). Looked up by the lock entry's `file` name in the
 * directory itself and one level of subfolders, and accepted only when its digest matches.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

/** Existing candidate paths for `file`, the top level first, then subfolders in name order. */
export async function findInDataDir(dataDir: string, file: string): Promise<string[]> {
  const out: string[] = [];
  const isFile = async (p: string): Promise<boolean> => {
    try {
      return (await stat(p)).isFile();
    } catch {
      return false;
    }
  };
  const top = join(dataDir, file);
  if (await isFile(top)) out.push(top);
  let names: string[];
  try {
    names = (await readdir(dataDir, { withFileTypes: true })).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => d.name);
  } catch {
    return out;
  }
  names.sort();
  for (const name of names) {
    const p = join(dataDir, name, file);
    if (await isFile(p)) out.push(p);
  }
  return out;
}
