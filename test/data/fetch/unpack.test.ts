import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { unpackFile } from "../../../steps/data/fetch/unpack.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { tempDir } from "../../tmp.ts";

const tmp = (): string => tempDir("cspipe-unpack-");

/** A source tree: a.txt and sub/b.txt. */
function tree(): string {
  const dir = tmp();
  mkdirSync(join(dir, "src", "sub"), { recursive: true });
  writeFileSync(join(dir, "src", "a.txt"), "alpha\n");
  writeFileSync(join(dir, "src", "sub", "b.txt"), "beta\n");
  return dir;
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const byte of buf) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A stored (uncompressed) zip built by hand, so the test does not need the `zip` command. */
function storedZip(files: Record<string, string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const nameBuf = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    locals.push(local, nameBuf, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBuf);
    offset += 30 + nameBuf.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

function assertTree(out: string): void {
  assert.equal(readFileSync(join(out, "src", "a.txt"), "utf8"), "alpha\n");
  assert.equal(readFileSync(join(out, "src", "sub", "b.txt"), "utf8"), "beta\n");
}

test("none: nothing is unpacked", async () => {
  const dir = tmp();
  const f = join(dir, "plain.json");
  writeFileSync(f, "{}");
  assert.deepEqual(await unpackFile(f, "none", join(dir, "out")), []);
  assert.equal(existsSync(join(dir, "out")), false);
});

test("gz: zlib gunzip to the name without .gz", async () => {
  const dir = tmp();
  const f = join(dir, "qrels.txt.gz");
  writeFileSync(f, gzipSync(Buffer.from("q1 0 p1 1\n")));
  const out = join(dir, "out");
  assert.deepEqual(await unpackFile(f, "gz", out), ["qrels.txt"]);
  assert.equal(readFileSync(join(out, "qrels.txt"), "utf8"), "q1 0 p1 1\n");
});

test("bz2: bzip2 -dc to the name without .bz2", async () => {
  const dir = tmp();
  writeFileSync(join(dir, "x.tsv"), "id\ttext\n1\thello\n");
  execFileSync("bzip2", [join(dir, "x.tsv")]);
  const out = join(dir, "out");
  assert.deepEqual(await unpackFile(join(dir, "x.tsv.bz2"), "bz2", out), ["x.tsv"]);
  assert.equal(readFileSync(join(out, "x.tsv"), "utf8"), "id\ttext\n1\thello\n");
});

for (const [kind, flag, ext] of [
  ["tar", "-cf", "tar"],
  ["tar.gz", "-czf", "tar.gz"],
  ["tar.bz2", "-cjf", "tar.bz2"],
] as const) {
  test(`${kind}: system tar extracts the tree`, async () => {
    const dir = tree();
    const archive = join(dir, `t.${ext}`);
    execFileSync("tar", [flag, archive, "-C", dir, "src"]);
    const out = join(dir, "out");
    assert.deepEqual(await unpackFile(archive, kind, out), ["src"]);
    assertTree(out);
  });
}

test("zip: system unzip extracts a stored zip", async () => {
  const dir = tmp();
  const archive = join(dir, "passages.zip");
  writeFileSync(archive, storedZip({ "src/a.txt": "alpha\n", "src/sub/b.txt": "beta\n" }));
  const out = join(dir, "out");
  assert.deepEqual(await unpackFile(archive, "zip", out), ["src"]);
  assertTree(out);
});

test("unpacking replaces an earlier output and leaves no .partial directory", async () => {
  const dir = tmp();
  const f = join(dir, "a.gz");
  writeFileSync(f, gzipSync(Buffer.from("new")));
  const out = join(dir, "out");
  mkdirSync(out);
  writeFileSync(join(out, "stale.txt"), "old");
  assert.deepEqual(await unpackFile(f, "gz", out), ["a"]);
  assert.equal(existsSync(`${out}.partial`), false);
});

test("a corrupt archive is an InputError naming the archive; no output directory appears", async () => {
  const dir = tmp();
  const cases = [
    ["bad.gz", "gz"],
    ["bad.zip", "zip"],
    ["bad.tar.gz", "tar.gz"],
  ] as const;
  for (const [name, kind] of cases) {
    const f = join(dir, name);
    writeFileSync(f, "this is not an archive");
    const out = join(dir, `out-${name}`);
    await assert.rejects(unpackFile(f, kind, out), (err: unknown) => {
      assert.ok(err instanceof InputError, `${kind}: ${String(err)}`);
      assert.equal(err.file, f);
      assert.match(err.message, new RegExp(`cannot unpack as ${kind.replace(".", "\\.")}`));
      return true;
    });
    assert.equal(existsSync(out), false);
    assert.equal(existsSync(`${out}.partial`), false);
  }
});

test("a missing tool is an InputError with the apt-get command", async () => {
  const dir = tmp();
  const archive = join(dir, "p.zip");
  writeFileSync(archive, storedZip({ "a.txt": "a" }));
  const saved = process.env["PATH"];
  process.env["PATH"] = join(dir, "no-such-bin");
  try {
    await assert.rejects(unpackFile(archive, "zip", join(dir, "out")), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, /'unzip' command is not installed/);
      assert.match(err.message, /apt-get install -y unzip/);
      return true;
    });
  } finally {
    process.env["PATH"] = saved;
  }
});
