/**
 * Live logs under Dagger: the line splitter, the end-of-step reconciliation, the TCP
 * receiver, and log_tee.py run for real with /usr/bin/python3 against the receiver.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { displayLine, HANDSHAKE, LineSplitter, startLogReceiver, TRUNCATION_MARK, unstreamedLines, type StreamedLine } from "../../pipeline/executors/dagger/log-stream.ts";
import { parseProgressLine } from "../../pipeline/engine/executor.ts";
import { redactor } from "../../pipeline/executors/dagger/run.ts";
import { tempDir } from "../tmp.ts";

const LOG_TEE = fileURLToPath(new URL("../../pipeline/executors/dagger/log_tee.py", import.meta.url));
const PYTHON = "/usr/bin/python3";

function split(chunks: readonly (string | Buffer)[], max?: number): StreamedLine[] {
  const lines: StreamedLine[] = [];
  const s = new LineSplitter((l) => lines.push(l), max);
  for (const c of chunks) s.push(typeof c === "string" ? Buffer.from(c) : c);
  s.end();
  return lines;
}
const plain = (...texts: string[]): StreamedLine[] => texts.map((text) => ({ text, truncated: false }));

/** Poll until `pred` holds (a wait, not a timing assertion). */
async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`gave up waiting for ${what}`);
}

// ---- the splitter ------------------------------------------------------------------------

test("splitter: lines split across chunks, CRLF, empty lines, a final line without newline", () => {
  assert.deepEqual(split(["PROG", "RESS 1 ", "2\r", "\nab\n\nc\r\nlast"]), plain("PROGRESS 1 2", "ab", "", "c", "last"));
  assert.deepEqual(split(["one\n"]), plain("one"));
  assert.deepEqual(split([]), []);
  // A lone \r inside a line stays (progress bars redraw with it); only the one before \n goes.
  assert.deepEqual(split(["50%\r100%\n"]), plain("50%\r100%"));
});

test("splitter: an over-long line comes out once, cut at a character boundary, and the next line is intact", () => {
  assert.deepEqual(split(["abcdefghij", "klmno\nnext\n"], 8), [{ text: "abcdefgh", truncated: true }, { text: "next", truncated: false }]);
  // "é" is two bytes (c3 a9); a cut after 5 bytes of "aaaaéé" would split the second é.
  assert.deepEqual(split(["aaaaéé\n"], 5), [{ text: "aaaa", truncated: true }]);
  assert.deepEqual(split(["aaaaé", "x\n"], 6), [{ text: "aaaaé", truncated: true }]);
  // Exactly the limit is not truncated; a truncated final line without newline still comes out.
  assert.deepEqual(split(["12345678\n123456789"], 8), [{ text: "12345678", truncated: false }, { text: "12345678", truncated: true }]);
  // Multi-byte characters split across chunks decode correctly.
  const e = Buffer.from("é");
  assert.deepEqual(split([Buffer.from([0x41, e[0]!]), Buffer.from([e[1]!, 0x0a])]), plain("Aé"));
});

// ---- what goes into the log ----------------------------------------------------------------

test("display: secrets are redacted; a truncated line also loses a half secret at its end and is marked", () => {
  const secret = "hf_SECRET123";
  const redact = redactor({ HF_TOKEN: secret });
  assert.equal(displayLine({ text: `token ${secret} ok`, truncated: false }, redact, [secret]), "token *** ok");
  assert.equal(displayLine({ text: "token hf_SEC", truncated: true }, redact, [secret]), `token ***${TRUNCATION_MARK}`);
  assert.equal(displayLine({ text: "plain text", truncated: true }, redact, [secret]), `plain text${TRUNCATION_MARK}`);
  // PROGRESS lines survive untouched, so the engine turns them into progress events.
  assert.deepEqual(parseProgressLine(displayLine({ text: "PROGRESS 3 10", truncated: false }, redact, [secret])), { done: 3, total: 10 });
});

test("reconcile: only the lines that were not streamed are added at the end, never one twice, never one lost", () => {
  const all = ["a", "PROGRESS 1 2", "b", "a", "c"];
  assert.deepEqual(unstreamedLines(all, plain(...all)), []);
  assert.deepEqual(unstreamedLines(all, plain("a", "PROGRESS 1 2")), ["b", "a", "c"]);
  assert.deepEqual(unstreamedLines(all, []), all);
  // The wrapper's own note on stderr (not streamed) comes after the program's output.
  assert.deepEqual(unstreamedLines([...all, "# cspipe log stream: the connection broke"], plain(...all)), ["# cspipe log stream: the connection broke"]);
  // A truncated streamed line stands for the full line it begins.
  assert.deepEqual(unstreamedLines(["xxxxyyyy", "z"], [{ text: "xxxx", truncated: true }]), ["z"]);
  // A streamed line the full output does not have: the rest is emitted (a repeat, not a loss).
  assert.deepEqual(unstreamedLines(["a", "b"], plain("a", "zz")), ["b"]);
});

// ---- the receiver over real TCP --------------------------------------------------------------

test("receiver: lines arrive as they are written; a connection without the token is ignored; freeze stops it", async () => {
  const got: string[] = [];
  const r = await startLogReceiver({ token: "t0k", onLine: (l) => got.push(l.text) });
  try {
    const intruder = connect(r.port, "127.0.0.1");
    await once(intruder, "connect");
    intruder.write("CSPIPE-LOG-STREAM 1 wrong\nPROGRESS 9 9\n");
    await once(intruder, "close");

    const s = connect(r.port, "127.0.0.1");
    await once(s, "connect");
    s.write(`${HANDSHAKE}t0`);
    s.write("k\nfirst li");
    s.write("ne\r\nPROGRESS 1 2\n");
    await until(() => got.length === 2, "two lines");
    assert.deepEqual(got, ["first line", "PROGRESS 1 2"]);
    s.end("tail without newline");
    await r.settle(60_000);
    assert.deepEqual(got, ["first line", "PROGRESS 1 2", "tail without newline"]);
    assert.deepEqual(r.freeze().map((l) => l.text), got);

    const late = connect(r.port, "127.0.0.1");
    await once(late, "connect");
    late.end(`${HANDSHAKE}t0k\nafter the freeze\n`);
    await once(late, "close");
    await r.settle(60_000);
    assert.equal(got.length, 3, "nothing is emitted after freeze");
  } finally {
    await r.close();
  }
});

test("receiver: settle returns at once when nothing connected", async () => {
  const r = await startLogReceiver({ token: "t", onLine: () => assert.fail("no line expected") });
  await r.settle(60_000);
  assert.deepEqual(r.freeze(), []);
  await r.close();
});

// ---- log_tee.py for real ---------------------------------------------------------------------

interface TeeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runTee(port: number, token: string, program: readonly string[], onSpawn?: (pid: number) => void): Promise<TeeRun> {
  const child = spawn(PYTHON, [LOG_TEE, "--host", "127.0.0.1", "--port", String(port), "--", ...program], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CSPIPE_LOG_STREAM_TOKEN: token, PYTHONUNBUFFERED: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (child.pid !== undefined) onSpawn?.(child.pid);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A Python child that prints on stdout and stderr, then waits for `gate` before finishing. */
function gatedChild(gate: string, exit: string): string[] {
  const code = [
    "import os, sys, time",
    "print('first on stdout')",
    "print('PROGRESS 1 2', file=sys.stderr)",
    "print('token in env:', os.environ.get('CSPIPE_LOG_STREAM_TOKEN'))",
    // Gives up (status 99) rather than hang the test when no line ever crosses the socket.
    `deadline = time.time() + 60`,
    `while not os.path.exists(${JSON.stringify(gate)}):`,
    "    if time.time() > deadline: print('the gate never opened'); sys.exit(99)",
    "    time.sleep(0.01)",
    "print('after the gate')",
    exit,
  ].join("\n");
  return [PYTHON, "-c", code];
}

for (const [name, exit, status] of [
  ["exit 0", "sys.exit(0)", 0],
  ["exit 3", "sys.exit(3)", 3],
  ["killed by SIGTERM", "import signal; os.kill(os.getpid(), signal.SIGTERM)", 128 + 15],
] as const) {
  test(`log_tee.py: lines reach the receiver while the program runs; ${name} gives status ${status}`, async () => {
    const gate = join(tempDir("cspipe-tee-"), "gate");
    const got: string[] = [];
    const r = await startLogReceiver({
      token: "s3cret-token",
      onLine: (l) => {
        got.push(l.text);
        // The child cannot go on until a line has crossed the socket: streaming, not a replay.
        if (got.length === 1) writeFileSync(gate, "");
      },
    });
    try {
      const run = await runTee(r.port, "s3cret-token", gatedChild(gate, exit));
      await r.settle(60_000);
      const expected = ["first on stdout", "PROGRESS 1 2", "token in env: None", "after the gate"];
      assert.equal(run.code, status, run.stderr);
      assert.deepEqual(got, expected);
      assert.deepEqual(run.stdout.split("\n").filter((l) => l !== ""), expected, "stdout still holds everything");
      assert.equal(run.stderr, "");
    } finally {
      await r.close();
    }
  });
}

test("log_tee.py: SIGTERM to the wrapper reaches the program, and the status says so", async () => {
  const got: string[] = [];
  let teePid = 0;
  const r = await startLogReceiver({
    token: "t",
    onLine: (l) => {
      got.push(l.text);
      if (l.text === "ready") process.kill(teePid, "SIGTERM");
    },
  });
  try {
    const program = [PYTHON, "-c", "import time\nprint('ready')\nwhile True: time.sleep(0.05)"];
    const run = await runTee(r.port, "t", program, (pid) => (teePid = pid));
    assert.equal(run.code, 128 + 15, run.stderr);
    assert.deepEqual(got, ["ready"]);
  } finally {
    await r.close();
  }
});

test("log_tee.py: with nobody listening the program still runs, prints everything and keeps its exit code", async () => {
  // A port that was just free: bind, note it, close.
  const probe = createServer();
  await new Promise<void>((res) => probe.listen(0, "127.0.0.1", res));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((res) => probe.close(() => res()));
  const run = await runTee(port, "t", [PYTHON, "-c", "import sys\nprint('one')\nprint('two', file=sys.stderr)\nsys.exit(5)"]);
  assert.equal(run.code, 5);
  assert.equal(run.stdout, "one\ntwo\n");
  assert.match(run.stderr, /^# cspipe log stream: cannot connect to 127\.0\.0\.1:\d+ .*the log arrives when the step ends\n$/);
});

test("log_tee.py: a program that cannot start exits 127 with a note", async () => {
  const run = await runTee(1, "t", ["/nonexistent/program"]);
  assert.equal(run.code, 127);
  assert.match(run.stderr, /cannot start \/nonexistent\/program/);
});

test("log_tee.py: the program's own arguments pass untouched, even '--' and '--port'", async () => {
  const run = await runTee(1, "t", [PYTHON, "-c", "import sys\nprint(sys.argv[1:])", "--", "--port", "9", "--host"]);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, "['--', '--port', '9', '--host']\n");
});
