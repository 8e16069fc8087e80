/** Files found by name under a raw directory, for readers of a release whose files may sit anywhere in it. */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every file under `root` (recursively, in sorted order) whose name is one of `names`; `root` itself if it is a file. */
export function filesNamed(root: string, names: readonly string[]): string[] {
  if (statSync(root).isFile()) return [root];
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (names.includes(name)) hits.push(p);
    }
  };
  walk(root);
  return hits;
}
