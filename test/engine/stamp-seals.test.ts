/**
 * Stamp seals (engine/stamps.ts): a directory output whose files are all unchanged under their
 * stamps takes the digest its stamp file sealed, without composing the list of digests again.
 * The seal never hides a change the stamps show, and a seal that disagrees with the manifest
 * is not believed (no false alarm either).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stampedOutputDigest } from "../../pipeline/engine/digest.ts";
import { ContentChecker } from "../../pipeline/engine/stamps.ts";
import type { Entry } from "../../pipeline/engine/entry.ts";
import { tempDir } from "./helpers.ts";

const KEY = "a".repeat(64);

/** A published entry with one directory output `d` holding a and b/c. */
async function published(): Promise<{ root: string; entry: Entry; dir: string }> {
  const root = tempDir();
  const entryDir = join(root, "entries", "make-dir", KEY);
  const dir = join(entryDir, "outputs", "d");
  mkdirSync(join(dir, "b"), { recursive: true });
  writeFileSync(join(dir, "a"), "first\n");
  writeFileSync(join(dir, "b", "c"), "second\n");
  const stamped = await stampedOutputDigest(dir, true);
  const entry: Entry = {
    stepId: "make-dir",
    key: KEY,
    dir: entryDir,
    manifest: {
      schema: 1,
      key: KEY,
      step: { id: "make-dir", version: 1, name: "make-dir" },
      outputs: { d: { path: "d", kind: "dir:test", dir: true, digest: stamped.digest, size: stamped.size, files: stamped.files } },
      timings: { started: "", finished: "", seconds: 0 },
      host: { hostname: "", platform: "", arch: "", cpus: 1 },
      tools: {},
      executor: "local",
      log: "log.txt",
    },
  };
  await new ContentChecker(root).recordPublished(KEY, { d: stamped });
  return { root, entry, dir };
}

const stampFile = (root: string) => join(root, "stamps", `${KEY}.json`);
type Stamps = { files: Record<string, unknown>; outputs?: Record<string, { digest: string; files: number }> };

test("publishing seals each output's digest and file count; a fresh checker finds the entry intact", async () => {
  const { root, entry } = await published();
  const s = JSON.parse(readFileSync(stampFile(root), "utf8")) as Stamps;
  assert.deepEqual(s.outputs, { d: { digest: entry.manifest.outputs.d!.digest, files: 2 } });
  assert.deepEqual(Object.keys(s.files).sort(), ["d/a", "d/b/c"]);
  assert.deepEqual(await new ContentChecker(root).check(entry), []);
});

test("a file added to a sealed directory, or one rewritten, is seen: the seal covers only the files it counted, under their stamps", async () => {
  const added = await published();
  writeFileSync(join(added.dir, "b", "extra"), "x\n");
  assert.deepEqual(await new ContentChecker(added.root).check(added.entry), ["d"]);

  const rewritten = await published();
  writeFileSync(join(rewritten.dir, "a"), "FIRST\n");
  assert.deepEqual(await new ContentChecker(rewritten.root).check(rewritten.entry), ["d"]);
});

test("a seal that names another digest is not believed: the files decide (no false alarm), and the check reseals", async () => {
  const { root, entry } = await published();
  const s = JSON.parse(readFileSync(stampFile(root), "utf8")) as Stamps;
  writeFileSync(stampFile(root), JSON.stringify({ ...s, outputs: { d: { digest: "0".repeat(64), files: 2 } } }));
  assert.deepEqual(await new ContentChecker(root).check(entry), []);
  const after = JSON.parse(readFileSync(stampFile(root), "utf8")) as Stamps;
  assert.deepEqual(after.outputs, { d: { digest: entry.manifest.outputs.d!.digest, files: 2 } });
});

test("a stamp file of an older version (no seals) is checked by composing the digests, then sealed", async () => {
  const { root, entry } = await published();
  const s = JSON.parse(readFileSync(stampFile(root), "utf8")) as Stamps;
  writeFileSync(stampFile(root), JSON.stringify({ schema: 1, files: s.files }));
  assert.deepEqual(await new ContentChecker(root).check(entry), []);
  assert.deepEqual((JSON.parse(readFileSync(stampFile(root), "utf8")) as Stamps).outputs, { d: { digest: entry.manifest.outputs.d!.digest, files: 2 } });
});
