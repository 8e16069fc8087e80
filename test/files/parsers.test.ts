import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parseCollection, passageFromJson, type Passage } from "../../steps/files/collection.ts";
import { readHashedLines, type LineBatch } from "../../steps/files/hashed-lines.ts";
import { parseTopics } from "../../steps/files/topics.ts";
import { digestFiles } from "../../steps/files/digest-cache.ts";
import { tempDir } from "../tmp.ts";

const dir = tempDir("cspipe-files-");
const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

async function* batches(text: string): AsyncGenerator<LineBatch> {
  yield { lines: text.split("\n"), firstLine: 1 };
}
async function passagesOf(text: string, format: "jsonl" | "tsv" | undefined): Promise<Passage[]> {
  const out: Passage[] = [];
  for await (const b of parseCollection(batches(text), format, "c")) out.push(...b);
  return out;
}

test("JSONL records: contents wins, title and text join with a newline, numeric and BEIR ids", () => {
  assert.deepEqual(passageFromJson({ id: "a", contents: "C", title: "T", text: "X" }, "f", 1), { id: "a", text: "C", title: null, body: "C" });
  assert.deepEqual(passageFromJson({ id: 12, title: "T", text: "X" }, "f", 1), { id: "12", text: "T\nX", title: "T", body: "X" });
  assert.deepEqual(passageFromJson({ _id: "b", text: "X" }, "f", 1), { id: "b", text: "X", title: null, body: "X" });
  assert.throws(() => passageFromJson({ id: "a", contents: 5 }, "f", 3), /f:3: field 'contents': passage 'a': 'contents' is number/);
  assert.throws(() => passageFromJson({ id: "a", title: "T" }, "f", 3), /field 'contents': passage 'a' has no text/);
  assert.throws(() => passageFromJson([1], "f", 3), /must be one JSON object/);
});

test("TSV: headerless id<TAB>text verbatim, DPR header with quoting across lines, sniffing", async () => {
  assert.deepEqual(await passagesOf('p1\t"quoted" start, kept as is\np2\tsecond\n', "tsv"), [
    { id: "p1", text: '"quoted" start, kept as is', title: null, body: '"quoted" start, kept as is' },
    { id: "p2", text: "second", title: null, body: "second" },
  ]);
  assert.deepEqual(await passagesOf('id\ttext\ttitle\n1\t"two\nlines, ""q"""\tT\n', "tsv"), [{ id: "1", text: 'T\ntwo\nlines, "q"', title: "T", body: 'two\nlines, "q"' }]);
  assert.deepEqual(await passagesOf('{"id": "j", "contents": "x"}\n', undefined), [{ id: "j", text: "x", title: null, body: "x" }]);
  await assert.rejects(passagesOf("p1 no tab\n", "tsv"), /c:1: expected 'id<TAB>text', found no tab/);
  await assert.rejects(passagesOf('id\ttext\ttitle\n1\t"open\n', "tsv"), /c:2: unterminated quoted field/);
});

test("hashed lines: gzip, CRLF and BOM handled; a digest mismatch fails after reading", async () => {
  const raw = gzipSync("\ufeffq1\tfirst\r\nq2\tsecond\r\n");
  const path = join(dir, "t.tsv.gz");
  writeFileSync(path, raw);
  const topics = await parseTopics(readHashedLines(path, { sha256: sha(raw) }), path);
  assert.deepEqual(topics, [{ qid: "q1", text: "first" }, { qid: "q2", text: "second" }]);
  await assert.rejects(parseTopics(readHashedLines(path, { sha256: "0".repeat(64) }), path), /t\.tsv\.gz: changed after it was hashed/);
});

test("topics: JSONL field choice, sorting by qid, errors with lines", async () => {
  const j = (o: object) => JSON.stringify(o);
  const text = [j({ qid: "b", question: "Q?", answers: ["x"] }), j({ id: 3, title: "T", query: "preferred" })].join("\n");
  const path = "topics.jsonl";
  assert.deepEqual(await parseTopics(batches(text), path), [{ qid: "3", text: "preferred" }, { qid: "b", text: "Q?" }]);
  assert.deepEqual(await parseTopics(batches(text.split("\n")[1]!), path, "title"), [{ qid: "3", text: "T" }]);
  await assert.rejects(parseTopics(batches(j({ qid: "a", body: "x" })), path), /topics\.jsonl:1: field 'query': topic 'a' has none of the fields/);
  await assert.rejects(parseTopics(batches("q 1\tx"), "t.tsv"), /qid 'q 1' contains whitespace|expected 'qid<TAB>text'/);
  await assert.rejects(parseTopics(batches(""), "t.tsv"), /no topics/);
});

test("digest cache: a remembered digest is reused only while the file is unchanged", async () => {
  const f = join(dir, "c.tsv");
  const cache = join(dir, "cache");
  writeFileSync(f, "p1\tone\n");
  const [a] = await digestFiles([f], cache);
  assert.equal(a!.sha256, sha("p1\tone\n"));
  writeFileSync(f, "p1\ttwo\n"); // same size, new content: ctime changes
  const [b] = await digestFiles([f], cache);
  assert.equal(b!.sha256, sha("p1\ttwo\n"));
});
