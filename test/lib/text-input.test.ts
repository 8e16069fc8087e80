/**
 * Input checks without blind spots: strict UTF-8 (the byte offset of the first bad byte),
 * long lines read in linear time up to a limit with a true message, and turn files in the
 * wrong format told which format was expected and what the file looks like.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { InputError } from "../../pipeline/engine/errors.ts";
import { readLines, readTsvChunks } from "../../steps/lib/jsonl.ts";
import { describeTextFormat, firstInvalidUtf8 } from "../../steps/lib/text.ts";
import { loadRecords, readJsonFile } from "../../steps/data/formats/records.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-text-");

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

function isInputError(pattern: RegExp, file?: string, line?: number) {
  return (e: unknown) => {
    assert.ok(e instanceof InputError, String(e));
    assert.match(e.message, pattern);
    if (file !== undefined) assert.equal(e.file, file);
    if (line !== undefined) assert.equal(e.line, line);
    return true;
  };
}

// "caf\xe9" (Latin-1 é) on line 2, at byte offset 13 of the file.
const latin1 = Buffer.concat([Buffer.from('{"a": 1}\n"caf'), Buffer.from([0xe9]), Buffer.from('"\n')]);

test("firstInvalidUtf8: offsets of bad bytes, truncated and overlong sequences, surrogates; valid text passes", () => {
  assert.equal(firstInvalidUtf8(Buffer.from("plain ascii, ü, €, 𝄞")), -1);
  assert.equal(firstInvalidUtf8(latin1), 13);
  assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0xc3])), 1, "truncated at the end");
  assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0xc0, 0xaf])), 1, "overlong '/'");
  assert.equal(firstInvalidUtf8(Buffer.from([0x61, 0x62, 0xed, 0xa0, 0x80])), 2, "UTF-16 surrogate");
  assert.equal(firstInvalidUtf8(Buffer.from([0xf4, 0x90, 0x80, 0x80])), 0, "beyond U+10FFFF");
});

test("readLines: a non-UTF-8 byte is an error with its line and byte offset, in plain and gzipped files", async () => {
  const plain = join(dir, "latin1.jsonl");
  writeFileSync(plain, latin1);
  await assert.rejects(collect(readLines(plain)), isInputError(/not valid UTF-8 at byte offset 13/, plain, 2));
  const gz = join(dir, "latin1.jsonl.gz");
  writeFileSync(gz, gzipSync(latin1));
  await assert.rejects(collect(readLines(gz)), isInputError(/not valid UTF-8 at byte offset 13 \(of the decompressed data\)/, gz, 2));
  // Split across reads at every position: still found, still the same offset.
  await assert.rejects(collect(readLines(plain, { chunkBytes: 3 })), isInputError(/byte offset 13/, plain, 2));
  await assert.rejects(collect(readTsvChunks(plain, { chunkBytes: 5 })), isInputError(/byte offset 13/, plain, 2));
});

test("the whole-file text reader is strict too (turn files, JSON files)", () => {
  const f = join(dir, "turns.json");
  writeFileSync(f, Buffer.concat([Buffer.from('[{"Question": "caf'), Buffer.from([0xe9]), Buffer.from('"}]')]));
  assert.throws(() => loadRecords(f), isInputError(/not valid UTF-8 at byte offset 18/, f, 1));
  assert.throws(() => readJsonFile(f), isInputError(/byte offset 18/, f));
});

test("a long line is read whole across many reads, in time linear in its length", async () => {
  const f = join(dir, "long.jsonl");
  const long = JSON.stringify({ text: "x".repeat(3 << 20) });
  writeFileSync(f, `{"a": 1}\n${long}\n{"b": 2}\n`);
  const lines = await collect(readLines(f, { chunkBytes: 4096 }));
  assert.deepEqual(lines.map((l) => [l.line, l.text.length]), [[1, 8], [2, long.length], [3, 8]]);
  assert.equal(lines[1]!.text, long);
});

test("a line over the size limit is an error saying so (with the limit and how to raise it), not 'truncated gzip'", async () => {
  const f = join(dir, "huge-line.jsonl.gz");
  writeFileSync(f, gzipSync(Buffer.from(`{"a": 1}\n${"y".repeat(300_000)}\n`)));
  await assert.rejects(
    collect(readLines(f, { chunkBytes: 8192, maxLineBytes: 100_000 })),
    (e: unknown) => {
      assert.ok(e instanceof InputError);
      assert.equal(e.line, 2);
      assert.match(e.message, /line 2 is longer than 100000 bytes/);
      assert.doesNotMatch(e.message, /re-download|truncated|gzip/);
      assert.match(e.fix ?? "", /not a line-oriented file|maxLineBytes/);
      return true;
    },
  );
});

test("describeTextFormat names what a file looks like", () => {
  assert.equal(describeTextFormat(Buffer.from("qid\tquestion\tanswer\n1\tq\ta\n")).kind, "tsv");
  assert.equal(describeTextFormat(Buffer.from('[{"a": 1}]')).kind, "json-array");
  assert.equal(describeTextFormat(Buffer.from('{"a": 1}\n{"a": 2}\n')).kind, "jsonl");
  assert.equal(describeTextFormat(Buffer.from('{"a": {\n "b": 1}}')).kind, "json-object");
  assert.equal(describeTextFormat(gzipSync(Buffer.from("x"))).kind, "gzip");
  assert.equal(describeTextFormat(Buffer.from("PK\x03\x04rest")).kind, "zip");
  assert.equal(describeTextFormat(Buffer.from("<!DOCTYPE html><html>")).kind, "html");
  assert.equal(describeTextFormat(Buffer.from("")).kind, "empty");
});

test("a TSV given where a JSON array (or JSONL) of turns is expected names the expected format and what it got", () => {
  const f = join(dir, "scai-qrecc21-test-turns.json");
  writeFileSync(f, "Conversation_no\tTurn_no\tQuestion\n1\t1\twhat is a qubit\n");
  assert.throws(() => loadRecords(f), (e: unknown) => {
    assert.ok(e instanceof InputError);
    assert.equal(e.file, f);
    assert.match(e.message, /expected a JSON array of records or JSONL/);
    assert.match(e.message, /looks like TSV/);
    assert.doesNotMatch(e.message, /each line must be one complete JSON value/);
    return true;
  });
  const html = join(dir, "login-page.json");
  writeFileSync(html, "<!DOCTYPE html><html><body>Sign in</body></html>\n");
  assert.throws(() => loadRecords(html), isInputError(/looks like an HTML page/, html));
});

test("a TSV given for a JSONL collection or a JSON qrels file: the line or file is told the expected format", async () => {
  const { parseJsonLine } = await import("../../steps/lib/jsonl.ts");
  assert.throws(() => parseJsonLine("123\tsome passage\tsome title", "collection.jsonl", 1), isInputError(/expected JSONL \(one JSON value per line\), but line 1 looks like TSV/, "collection.jsonl", 1));
  assert.throws(() => parseJsonLine('{"id": "p1", "contents": "cut', "collection.jsonl", 7), isInputError(/malformed JSON/, "collection.jsonl", 7));
  const f = join(dir, "qrels.txt");
  writeFileSync(f, "10_1\t0\thttp://f.com/qubit_p0\t1\n");
  assert.throws(() => readJsonFile(f), isInputError(/expected a JSON file, but the file looks like TSV/, f));
});
