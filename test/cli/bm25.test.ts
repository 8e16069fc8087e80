import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Command } from "commander";
import { registerBm25Command } from "../../pipeline/commands/bm25.ts";
import { readTrecRun } from "../../steps/eval/trec-run.ts";
import { luceneClasspath, luceneSearch } from "../peers/lucene/peer.ts";
import { tempDir } from "../tmp.ts";

/*
 * `bm25 index` / `bm25 search` through the command line, on a collection in every accepted format,
 * against the Lucene 8 peer (test/peers/lucene, Debian's liblucene8-java: CI installs it).
 */
const dir = tempDir("cspipe-bm25-cli-");
const store = join(dir, "store");
const coll = join(dir, "collection");
mkdirSync(join(coll, "sub"), { recursive: true });
writeFileSync(join(coll, "a.jsonl"), [
  JSON.stringify({ id: "a1", contents: "The Beatles' album Abbey Road was recorded in London in 1969." }),
  "",
  JSON.stringify({ id: "a2", contents: "London is the capital of England; the city's population is large.", extra: "not indexed" }),
].join("\n") + "\n");
writeFileSync(join(coll, "b.jsonl.gz"), gzipSync([JSON.stringify({ _id: "b1", title: "Abbey Road", text: "A street in London, famous for the album cover." }), JSON.stringify({ id: 7, title: "Paris", text: "Paris is the capital of France." })].join("\n") + "\n"));
writeFileSync(join(coll, "c.tsv"), "c1\tRecording studios in London: Abbey Road Studios.\r\nc2\tThe album sold millions of copies worldwide\n");
writeFileSync(join(coll, "sub", "d.tsv"), 'id\ttext\ttitle\nd1\t"He said ""Come together"",\nthen left."\tCome Together\nd2\tA song on the album.\tSomething\n');
writeFileSync(join(coll, "README.md"), "not a collection file\n");
// What Anserini indexes for each record: contents, or title + "\n" + text.
const DOCS = [
  { id: "a1", text: "The Beatles' album Abbey Road was recorded in London in 1969." },
  { id: "a2", text: "London is the capital of England; the city's population is large." },
  { id: "b1", text: "Abbey Road\nA street in London, famous for the album cover." },
  { id: "7", text: "Paris\nParis is the capital of France." },
  { id: "c1", text: "Recording studios in London: Abbey Road Studios." },
  { id: "c2", text: "The album sold millions of copies worldwide" },
  { id: "d1", text: 'Come Together\nHe said "Come together",\nthen left.' },
  { id: "d2", text: "Something\nA song on the album." },
];
const TOPICS = [
  { qid: "1", text: "Abbey Road album" },
  { qid: "2", text: "capital of France" },
  { qid: "3", text: "London London studios" },
  { qid: "4", text: "come together song" },
  { qid: "5", text: "the of" },
];
writeFileSync(join(dir, "topics.tsv"), TOPICS.map((t) => `${t.qid}\t${t.text}`).join("\n") + "\n");
writeFileSync(join(dir, "topics.jsonl"), TOPICS.map((t) => JSON.stringify({ qid: t.qid, query: t.text, answers: ["x"] })).join("\n") + "\n");

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  let code = 0;
  const program = new Command("cspipe").exitOverride().configureOutput({ writeOut: (s) => (stdout += s), writeErr: (s) => (stderr += s) });
  registerBm25Command(program, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) }, env: {} }, (c) => (code = c));
  await program.parseAsync(args, { from: "user" });
  return { code, stdout, stderr };
}

const index = join(dir, "index");

test("index a mixed-format directory, search it, and match Lucene 8 hit for hit", async () => {
  const peer = luceneClasspath();
  assert.ok("classpath" in peer, `the Lucene peer is required: ${"missing" in peer ? peer.missing : ""}`);
  const i = await cli(["bm25", "index", "--collection", coll, "--index", index, "--store", store]);
  assert.equal(i.code, 0, i.stderr);
  assert.match(i.stdout, /^indexed 8 passages \(\d+ terms\) from 4 file\(s\)/);
  assert.match(i.stderr, /skipped 1 file\(s\) that are not \.jsonl\/\.json\/\.tsv\(\.gz\): README\.md/);
  const out = join(dir, "run.trec");
  const s = await cli(["bm25", "search", "--index", index, "--topics", join(dir, "topics.tsv"), "--output", out, "--hits", "5", "--k1", "0.82", "--b", "0.68", "--store", store]);
  assert.equal(s.code, 0, s.stderr);
  const lines = readFileSync(out, "utf8").trim().split("\n");
  for (const l of lines) assert.match(l, /^\S+ Q0 \S+ \d+ \d+\.\d{6} Anserini$/);
  const ours = await readTrecRun(out);
  const lucene = luceneSearch(peer.classpath, DOCS, TOPICS, { k1: 0.82, b: 0.68, k: 5 });
  assert.equal(lucene.stats.docCount, 8);
  for (const t of TOPICS) {
    const expected = lucene.hits.get(t.qid) ?? [];
    const got = ours.get(t.qid) ?? [];
    assert.deepEqual(got.map((h) => h.docid), expected.map(([id]) => id), `ranking of topic ${t.qid}`);
    got.forEach((h, k) => assert.equal(h.score.toFixed(6), expected[k]![1].toFixed(6), `score of ${h.docid} for topic ${t.qid}`));
  }
  assert.equal(ours.has("5"), false); // stop words only: no hits, no lines (as Anserini)
  // JSONL topics give the same run.
  const out2 = join(dir, "run-jsonl.trec");
  assert.equal((await cli(["bm25", "search", "--index", index, "--topics", join(dir, "topics.jsonl"), "--output", out2, "--hits", "5", "--k1", "0.82", "--b", "0.68", "--store", store])).code, 0);
  assert.equal(readFileSync(out2, "utf8"), readFileSync(out, "utf8"));
});

test("reruns on unchanged files are cache hits; a changed file (same size) is re-read", async () => {
  const i = await cli(["bm25", "index", "--collection", coll, "--index", index, "--store", store]);
  assert.equal(i.code, 0, i.stderr);
  assert.match(i.stderr, /ok: 0 executed, 1 cached/);
  const s = await cli(["bm25", "search", "--index", index, "--topics", join(dir, "topics.tsv"), "--output", join(dir, "again.trec"), "--store", store]);
  assert.match(s.stderr, /ok: 1 executed, 2 cached/); // new --hits/--k1/--b: only the search reruns
  const c = readFileSync(join(coll, "c.tsv"), "utf8");
  writeFileSync(join(coll, "c.tsv"), c.replace("London", "Berlin"));
  const again = await cli(["bm25", "index", "--collection", coll, "--index", index, "--store", store]);
  assert.match(again.stderr, /ok: 1 executed, 0 cached/);
  writeFileSync(join(coll, "c.tsv"), c);
});

test("bad input names the file, the line and the field; exit code 2", async () => {
  const bad = join(dir, "bad.jsonl");
  writeFileSync(bad, `${JSON.stringify({ id: "x", contents: "fine" })}\n{"id": "y", "contents": }\n`);
  const r = await cli(["bm25", "index", "--collection", bad, "--index", join(dir, "bad-index"), "--store", store]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.jsonl:2: malformed JSON/);
  writeFileSync(bad, `${JSON.stringify({ contents: "no id" })}\n`);
  assert.match((await cli(["bm25", "index", "--collection", bad, "--index", join(dir, "bad-index"), "--store", store])).stderr, /bad\.jsonl:1: field 'id': passage has no usable id/);
  const tsv = join(dir, "bad.tsv");
  writeFileSync(tsv, "p1\tone\tthree fields\n");
  assert.match((await cli(["bm25", "index", "--collection", tsv, "--index", join(dir, "bad-index"), "--store", store])).stderr, /bad\.tsv:1: expected 2 tab-separated fields/);
  const dup = join(dir, "dup.tsv");
  writeFileSync(dup, "p1\tone\np1\ttwo\n");
  assert.match((await cli(["bm25", "index", "--collection", dup, "--index", join(dir, "bad-index"), "--store", store])).stderr, /duplicate passage id 'p1'/);
  const topics = join(dir, "dup-topics.tsv");
  writeFileSync(topics, "1\ta\n1\tb\n");
  const t = await cli(["bm25", "search", "--index", index, "--topics", topics, "--output", join(dir, "x.trec"), "--store", store]);
  assert.equal(t.code, 2);
  assert.match(t.stderr, /dup-topics\.tsv:2: field 'qid': qid '1' appears twice \(first at line 1\)/);
});

test("an index directory is replaced only when it is empty or an earlier cspipe index", async () => {
  const other = join(dir, "not-an-index");
  mkdirSync(other);
  writeFileSync(join(other, "notes.txt"), "mine");
  const r = await cli(["bm25", "index", "--collection", coll, "--index", other, "--store", store]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /not-an-index: field '--index': is not empty and holds no cspipe-index\.json/);
  const m = JSON.parse(readFileSync(join(index, "cspipe-index.json"), "utf8"));
  assert.equal(m.format, "cspipe-bm25-index/1");
  assert.deepEqual(m.collection.map((f: { name: string }) => f.name), ["a.jsonl", "b.jsonl.gz", "c.tsv", "sub/d.tsv"]);
  const s = await cli(["bm25", "search", "--index", other, "--topics", join(dir, "topics.tsv"), "--output", join(dir, "y.trec"), "--store", store]);
  assert.equal(s.code, 2);
  assert.match(s.stderr, /not a cspipe BM25 index \(no bm25\.idx\)/);
});
