import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { transfer, classifyNetworkError } from "../../../steps/data/fetch/transfer.ts";
import { FileSink, HashSink } from "../../../steps/data/fetch/sinks.ts";
import { startFixture, closedPort, bytes, noSleep, sha256Of as sha, type Fixture } from "./http-fixture.ts";
import { tempDir } from "../../tmp.ts";

let fx: Fixture;
before(async () => {
  fx = await startFixture();
});
after(async () => {
  await fx.close();
});

const tmp = (): string => tempDir("cspipe-transfer-");

test("a transfer cut midway resumes with a Range request and yields the exact bytes", async () => {
  const body = bytes(100_000, 7);
  fx.routes.set("/cut.bin", { body, cut: { bytes: 30_000, times: 2 } });
  fx.log.length = 0;
  const partial = join(tmp(), ".partial", "cut.bin");
  const sink = await FileSink.open(partial);
  const r = await transfer([`${fx.base}/cut.bin`], sink, { sleep: noSleep });
  assert.equal(r.ok, true);
  const d = await sink.finish();
  assert.equal(d.size, 100_000);
  assert.equal(d.sha256, sha(body));
  assert.deepEqual(readFileSync(partial), body);
  // first request without Range, then a resume from byte 30000 (cut again there), then the rest
  assert.deepEqual(
    fx.log.map((l) => l.range),
    [undefined, "bytes=30000-", "bytes=30000-"],
  );
});

test("a partial file left by an earlier process is continued, not restarted", async () => {
  const body = bytes(50_000, 3);
  fx.routes.set("/resume.bin", { body });
  fx.log.length = 0;
  const partial = join(tmp(), ".partial", "resume.bin");
  mkdirSync(dirname(partial), { recursive: true });
  writeFileSync(partial, body.subarray(0, 12_345));
  const sink = await FileSink.open(partial);
  assert.equal(sink.offset, 12_345);
  const r = await transfer([`${fx.base}/resume.bin`], sink, { sleep: noSleep });
  assert.equal(r.ok, true);
  const d = await sink.finish();
  assert.equal(d.sha256, sha(body));
  assert.deepEqual(fx.log.map((l) => l.range), ["bytes=12345-"]);
});

test("a server that ignores Range (200) restarts the sink from zero", async () => {
  const body = bytes(20_000, 5);
  fx.routes.set("/norange.bin", { body, ignoreRange: true });
  const partial = join(tmp(), ".partial", "norange.bin");
  mkdirSync(dirname(partial), { recursive: true });
  writeFileSync(partial, Buffer.from("garbage prefix that must be dropped"));
  const sink = await FileSink.open(partial);
  const r = await transfer([`${fx.base}/norange.bin`], sink, { sleep: noSleep });
  assert.equal(r.ok, true);
  const d = await sink.finish();
  assert.equal(d.size, 20_000);
  assert.equal(d.sha256, sha(body));
});

test("a cut without Content-Length is detected through the expected size and resumed", async () => {
  const body = bytes(40_000, 9);
  fx.routes.set("/chunked.bin", { body, noLength: true, cut: { bytes: 10_000, times: 1 } });
  const sink = new HashSink();
  const r = await transfer([`${fx.base}/chunked.bin`], sink, { sleep: noSleep, expectedSize: 40_000 });
  assert.equal(r.ok, true);
  const d = await sink.finish();
  assert.equal(d.sha256, sha(body));
});

test("a stalled transfer is aborted by the idle timeout and resumed", async () => {
  const body = bytes(8_000, 15);
  fx.routes.set("/stall.bin", { body, stall: { bytes: 3_000, times: 1 } });
  fx.log.length = 0;
  const sink = new HashSink();
  const r = await transfer([`${fx.base}/stall.bin`], sink, { sleep: noSleep, idleTimeoutMs: 150 });
  assert.equal(r.ok, true);
  assert.equal((await sink.finish()).sha256, sha(body));
  assert.deepEqual(fx.log.map((l) => l.range), [undefined, "bytes=3000-"]);
});

test("redirects are followed and 5xx is retried with backoff", async () => {
  const body = bytes(1000, 11);
  fx.routes.set("/real.bin", { body, failFirst: { status: 503, times: 2 } });
  fx.redirects.set("/moved.bin", "/real.bin");
  const delays: number[] = [];
  const sink = new HashSink();
  const r = await transfer([`${fx.base}/moved.bin`], sink, { backoffMs: 10, sleep: async (ms) => void delays.push(ms) });
  assert.equal(r.ok, true);
  assert.deepEqual(delays, [10, 20]);
  assert.equal((await sink.finish()).sha256, sha(body));
});

test("404 is not retried; the next URL is tried", async () => {
  const body = bytes(500, 13);
  fx.routes.set("/mirror.bin", { body });
  fx.log.length = 0;
  const sink = new HashSink();
  const r = await transfer([`${fx.base}/missing.bin`, `${fx.base}/mirror.bin`], sink, { sleep: noSleep });
  assert.equal(r.ok, true);
  assert.equal(r.ok && r.url, `${fx.base}/mirror.bin`);
  assert.deepEqual(fx.log.map((l) => l.path), ["/missing.bin", "/mirror.bin"]);
});

test("unreachable hosts fail fast without retries and are classified as such", async () => {
  const port = await closedPort();
  let sleeps = 0;
  const sink = new HashSink();
  const r = await transfer([`http://127.0.0.1:${port}/x.bin`, "https://cspipe-test.invalid/x.bin"], sink, {
    sleep: async () => void sleeps++,
    connectTimeoutMs: 5000,
  });
  assert.equal(r.ok, false);
  assert.equal(sleeps, 0);
  if (!r.ok) {
    assert.deepEqual(r.failures.map((f) => f.kind), ["unreachable", "unreachable"]);
    assert.match(r.failures[0]?.detail ?? "", /ECONNREFUSED/);
  }
});

test("classifyNetworkError reads codes through cause chains and AggregateErrors", () => {
  const dns = new TypeError("fetch failed", { cause: Object.assign(new Error("getaddrinfo"), { code: "ENOTFOUND" }) });
  const agg = new TypeError("fetch failed", { cause: new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })]) });
  const reset = new TypeError("terminated", { cause: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }) });
  assert.equal(classifyNetworkError(dns), "unreachable");
  assert.equal(classifyNetworkError(agg), "unreachable");
  assert.equal(classifyNetworkError(reset), "interrupted");
});
