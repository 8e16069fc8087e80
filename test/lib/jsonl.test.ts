import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readJsonl, readLineChunks, readLines, readTsvChunks, splitTsvRecord } from "../../steps/lib/jsonl.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-jsonl-");

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

test("readLines: line numbers count blank lines, strip CRLF and BOM, last line without newline", async () => {
  const f = join(dir, "a.txt");
  writeFileSync(f, "\uFEFFone\r\n\r\nthree\n  \nfive");
  const lines = await collect(readLines(f));
  assert.deepEqual(lines, [
    { text: "one", line: 1 },
    { text: "three", line: 3 },
    { text: "five", line: 5 },
  ]);
});

test("readLineChunks: tiny read size splits lines across chunks without losing or renumbering them", async () => {
  const f = join(dir, "b.txt");
  const text = Array.from({ length: 50 }, (_, i) => `line-${i + 1}-é`).join("\n") + "\n";
  writeFileSync(f, text);
  const seen: [string, number][] = [];
  for await (const c of readLineChunks(f, { chunkBytes: 7 })) c.lines.forEach((l, i) => seen.push([l, c.firstLine + i]));
  assert.equal(seen.length, 50);
  assert.deepEqual(seen[0], ["line-1-é", 1]);
  assert.deepEqual(seen[49], ["line-50-é", 50]);
  assert.ok(seen.every(([l, n]) => l === `line-${n}-é`));
});

test("readLines reads .gz transparently", async () => {
  const f = join(dir, "c.jsonl.gz");
  writeFileSync(f, gzipSync('{"a":1}\n{"a":2}\n'));
  const values = (await collect(readJsonl(f))).map((r) => r.value);
  assert.deepEqual(values, [{ a: 1 }, { a: 2 }]);
});

test("readJsonl: malformed line is an InputError naming file and line", async () => {
  const f = join(dir, "d.jsonl");
  writeFileSync(f, '{"a":1}\n\n{"a":\n');
  await assert.rejects(collect(readJsonl(f)), (err: unknown) => {
    assert.ok(err instanceof InputError);
    assert.equal(err.file, f);
    assert.equal(err.line, 3);
    assert.match(err.message, /d\.jsonl:3: malformed JSON/);
    return true;
  });
});

test("readLines: a missing file is an InputError", async () => {
  await assert.rejects(collect(readLines(join(dir, "nope.jsonl"))), InputError);
});

test("splitTsvRecord: plain, quoted with tab and doubled quotes, empty last field, open quote", () => {
  assert.deepEqual(splitTsvRecord("1\ttext\ttitle"), ["1", "text", "title"]);
  assert.deepEqual(splitTsvRecord('3\t"He said ""hi""\tand left."\tQ'), ["3", 'He said "hi"\tand left.', "Q"]);
  assert.deepEqual(splitTsvRecord("a\t"), ["a", ""]);
  assert.deepEqual(splitTsvRecord('a\t"b""'), undefined);
  assert.deepEqual(splitTsvRecord('a\tsay "x" now'), ["a", 'say "x" now']);
});

test("readTsvChunks: a quoted field may span lines; the record keeps its first line", async () => {
  const f = join(dir, "e.tsv");
  writeFileSync(f, 'id\ttext\ttitle\n1\t"two\nlines"\tT\n2\tplain\tU\n');
  const recs = (await collect(readTsvChunks(f))).flat();
  assert.deepEqual(recs, [
    { fields: ["id", "text", "title"], line: 1 },
    { fields: ["1", "two\nlines", "T"], line: 2 },
    { fields: ["2", "plain", "U"], line: 4 },
  ]);
});

test("readTsvChunks: an unterminated quote is an InputError at the line where it began", async () => {
  const f = join(dir, "f.tsv");
  writeFileSync(f, '1\tok\tT\n2\t"never closed\tU\n3\tx\tV\n');
  await assert.rejects(collect(readTsvChunks(f)), (err: unknown) => err instanceof InputError && err.line === 2);
});
