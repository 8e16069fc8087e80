/**
 * Exports (engine/exports.ts): a rerun whose export is already in place is not copied again,
 * and any change to the copy (an edit that keeps size and mtime, an added, removed or replaced
 * file) or another source makes it a copy again, restoring exactly the store's bytes. The edits
 * wait a few clock ticks after the copy, as a person's would (engine/exports.ts: a write within
 * the copy's own tick is the one thing the stamps cannot see).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isRecordedCopy, publishExport, treeStamps, type ExportSource } from "../../pipeline/engine/exports.ts";
import { tempDir } from "../tmp.ts";

function fixture() {
  const dir = tempDir("cspipe-exports-");
  const from = join(dir, "store-output");
  mkdirSync(join(from, "tables"), { recursive: true });
  writeFileSync(join(from, "index.md"), "# report\n");
  writeFileSync(join(from, "tables", "t1.csv"), "a,b\n1,2\n");
  const root = join(dir, "checkout");
  const recorded = { recordsDir: join(dir, "store", "exports"), source: { key: "k1", output: "report", digest: "d1" } as ExportSource };
  return { from, root, recorded, dest: join(root, "report") };
}

/** File times move in clock ticks (a few ms): a person's edit comes later than that after the copy. */
const laterTick = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);

const files = (dir: string): Record<string, string> => Object.fromEntries(readdirSync(dir, { recursive: true, encoding: "utf8" }).sort().filter((r) => statSync(join(dir, r)).isFile()).map((r) => [r, readFileSync(join(dir, r), "utf8")]));

test("an export already in place is not copied again; an edit that keeps size and mtime is copied over", async () => {
  const f = fixture();
  assert.deepEqual(await publishExport(f.from, f.root, "report", f.recorded), { path: f.dest, copied: true });
  assert.deepEqual(files(f.dest), { "index.md": "# report\n", "tables/t1.csv": "a,b\n1,2\n" });
  assert.deepEqual(readdirSync(f.recorded.recordsDir).length, 1);
  assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, false);

  // An edit that keeps the size is copied over.
  const md = join(f.dest, "index.md");
  laterTick();
  writeFileSync(md, "# rEport\n");
  assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, true);
  assert.equal(readFileSync(md, "utf8"), "# report\n");
  assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, false);

  // One that also puts the mtime back changes the stamps all the same (ctime).
  utimesSync(md, 1_000_000, 1_000_000);
  const stamped = treeStamps(f.dest)!;
  laterTick();
  writeFileSync(md, "# REport\n");
  utimesSync(md, 1_000_000, 1_000_000);
  const edited = treeStamps(f.dest)!;
  assert.deepEqual([statSync(md).size, statSync(md).mtimeMs], [9, 1_000_000_000]);
  assert.equal((stamped["index.md"] as { mtimeNs: string }).mtimeNs, (edited["index.md"] as { mtimeNs: string }).mtimeNs);
  assert.notDeepEqual(stamped["index.md"], edited["index.md"]);
});

test("an added, removed or replaced path, a symlink, or another source is copied over", async () => {
  const f = fixture();
  await publishExport(f.from, f.root, "report", f.recorded);
  const changes: [string, () => void][] = [
    ["added file", () => writeFileSync(join(f.dest, "notes.txt"), "mine\n")],
    ["added folder", () => mkdirSync(join(f.dest, "empty"))],
    ["removed file", () => rmSync(join(f.dest, "tables", "t1.csv"))],
    ["replaced file", () => {
      rmSync(join(f.dest, "index.md"));
      writeFileSync(join(f.dest, "index.md"), "# report\n");
    }],
    ["symlink", () => symlinkSync(join(f.from, "index.md"), join(f.dest, "link.md"))],
    ["removed export", () => rmSync(f.dest, { recursive: true })],
  ];
  for (const [what, change] of changes) {
    laterTick();
    change();
    assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, true, what);
    assert.deepEqual(files(f.dest), { "index.md": "# report\n", "tables/t1.csv": "a,b\n1,2\n" }, what);
    assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, false, what);
  }
  const other = { ...f.recorded, source: { ...f.recorded.source, key: "k2" } };
  assert.equal((await publishExport(f.from, f.root, "report", other)).copied, true);
  assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, true);
  // Without a record (none asked for, or an unreadable one) it copies.
  assert.equal((await publishExport(f.from, f.root, "report")).copied, true);
  for (const name of readdirSync(f.recorded.recordsDir)) writeFileSync(join(f.recorded.recordsDir, name), "{");
  assert.equal((await publishExport(f.from, f.root, "report", f.recorded)).copied, true);
  assert.equal(existsSync(f.dest), true);
});

test("isRecordedCopy: the destination, the source and every stamp must match", () => {
  const f = fixture();
  const tree = treeStamps(f.from)!;
  assert.deepEqual(Object.keys(tree), ["", "index.md", "tables", "tables/t1.csv"]);
  const record = { schema: 1, dest: f.dest, source: f.recorded.source, tree };
  assert.equal(isRecordedCopy(record, f.dest, f.recorded.source, tree), true);
  assert.equal(isRecordedCopy(record, `${f.dest}2`, f.recorded.source, tree), false);
  assert.equal(isRecordedCopy(record, f.dest, { ...f.recorded.source, digest: "d2" }, tree), false);
  assert.equal(isRecordedCopy(record, f.dest, f.recorded.source, { ...tree, "tables/t2.csv": tree["tables/t1.csv"]! }), false);
  assert.equal(isRecordedCopy(record, f.dest, f.recorded.source, undefined), false);
  assert.equal(isRecordedCopy({ ...record, schema: 2 }, f.dest, f.recorded.source, tree), false);
});
