/**
 * Live logs for container steps under Dagger. The SDK has no per-exec output stream when
 * it is connected to an existing session, so the container sends its output to us: the
 * program runs under `log_tee.py` (next to this file), which copies every chunk of its
 * merged stdout/stderr to its own stdout *and* to a TCP connection. That connection
 * reaches this process through a Dagger host service bound into the container
 * (`host().service([{ backend: port }])` + `withServiceBinding`).
 *
 * Here: the line splitter (pure), the reconciliation of the streamed lines with the exec's
 * full output at the end (pure), and a small TCP receiver (the only I/O).
 *
 * Exactly-once: the receiver records every line it emitted. When the exec finishes, the
 * executor waits briefly for the streams to end, freezes the receiver (nothing is emitted
 * after that) and emits only the lines of the exec's full output that were *not*
 * streamed. Nothing streamed (no connection, Dagger replayed a cached exec) means the
 * whole output is emitted then, as without streaming. Never a loss; a duplicate only if
 * the two copies disagree.
 */
import { createServer, type Server, type Socket } from "node:net";

/** First line a stream must send: `CSPIPE-LOG-STREAM 1 <token>`. */
export const HANDSHAKE = "CSPIPE-LOG-STREAM 1 ";
/** Env var carrying the token into the container (log_tee.py removes it from the program's env). */
export const TOKEN_ENV = "CSPIPE_LOG_STREAM_TOKEN";
/** Longer lines are cut (memory stays bounded whatever the program prints). */
export const DEFAULT_MAX_LINE_BYTES = 64 * 1024;
export const TRUNCATION_MARK = " …[line truncated by the cspipe log stream]";

export interface StreamedLine {
  readonly text: string;
  /** The line was longer than the limit; `text` is its beginning. */
  readonly truncated: boolean;
}

/** Largest cut <= max that does not split a UTF-8 sequence. */
function utf8Cut(buf: Buffer, max: number): number {
  if (buf.length <= max) return buf.length;
  let cut = max;
  while (cut > 0 && (buf[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/**
 * Bytes in, lines out: `\n` ends a line, a `\r` before it is dropped, a final line without
 * `\n` comes out at `end()`. A line longer than `maxBytes` comes out once, cut at a
 * character boundary and marked truncated; the rest of it is skipped without being kept.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (line: StreamedLine) => void,
    private readonly maxBytes = DEFAULT_MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      this.take(chunk.subarray(start, end));
      if (nl === -1) return;
      this.finish();
      start = nl + 1;
    }
  }

  end(): void {
    if (this.size > 0 || this.skipping) this.finish();
  }

  private take(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return;
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // Keep one byte more than allowed so a trailing `\r` or a UTF-8 boundary can be judged.
    const room = this.maxBytes + 1 - this.size;
    if (room > 0) this.parts.push(piece.subarray(0, room));
    this.size += Math.max(room, 0);
    this.skipping = true;
  }

  private finish(): void {
    let buf = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    const truncated = this.skipping;
    this.skipping = false;
    if (truncated) buf = buf.subarray(0, utf8Cut(buf, this.maxBytes));
    else if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    this.onLine({ text: buf.toString("utf8"), truncated });
  }
}

/**
 * A streamed line as it goes into the log: secrets redacted; a truncated line also loses a
 * trailing fragment that could be the beginning of a secret cut in half, and is marked.
 */
export function displayLine(line: StreamedLine, redact: (text: string) => string, secrets: readonly string[]): string {
  let text = redact(line.text);
  if (!line.truncated) return text;
  for (const s of secrets) {
    for (let k = Math.min(s.length - 1, text.length); k > 0; k--) {
      if (text.endsWith(s.slice(0, k))) {
        text = text.slice(0, text.length - k) + "***";
        break;
      }
    }
  }
  return text + TRUNCATION_MARK;
}

/**
 * The lines of `all` (the exec's full output, in order) that were not streamed. `streamed`
 * is matched in order against `all`; a truncated line matches a line it begins. A streamed
 * line that cannot be matched stops the matching, so the remainder of `all` is emitted:
 * lines are never lost, at worst repeated.
 */
export function unstreamedLines(all: readonly string[], streamed: readonly StreamedLine[]): string[] {
  const out: string[] = [];
  let j = 0;
  for (const line of all) {
    const s = streamed[j];
    if (s !== undefined && (s.truncated ? line.startsWith(s.text) : line === s.text)) j++;
    else out.push(line);
  }
  return out;
}

export interface LogReceiver {
  readonly port: number;
  readonly token: string;
  /** Wait until every accepted connection has ended, or `ms` passed. */
  settle(ms: number): Promise<void>;
  /** Stop emitting and return every line emitted so far, in order. Idempotent. */
  freeze(): readonly StreamedLine[];
  close(): Promise<void>;
}

export interface LogReceiverOptions {
  readonly token: string;
  /** Called for each line as it arrives (until `freeze`). */
  onLine(line: StreamedLine): void;
  readonly maxLineBytes?: number;
  /** Interface to listen on (default 127.0.0.1, port chosen by the system). */
  readonly host?: string;
}

/** A receiver's connections: all of them (destroyed on close) and those still open (`settle` waits for them). */
class Connections {
  readonly all = new Set<Socket>();
  private readonly open = new Set<Socket>();
  private waiters: (() => void)[] = [];

  add(socket: Socket): void {
    this.all.add(socket);
    this.open.add(socket);
  }

  /** The socket sends no more lines; the last one to end wakes the waiters. */
  ended(socket: Socket): void {
    if (!this.open.delete(socket)) return;
    if (this.open.size === 0) {
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    }
  }

  closed(socket: Socket): void {
    this.all.delete(socket);
    this.ended(socket);
  }

  /** Resolves when every open connection has ended, or after `ms`. */
  settle(ms: number): Promise<void> {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** One connection: the first line must be `expected` (else it is dropped unread), every later line goes to `onLine`. */
function acceptConnection(socket: Socket, connections: Connections, expected: string, max: number, onLine: (line: StreamedLine) => void): void {
  connections.add(socket);
  let authenticated = false;
  const splitter = new LineSplitter((line) => {
    if (authenticated) return onLine(line);
    if (line.truncated || line.text !== expected) {
      socket.destroy();
      connections.ended(socket);
      return;
    }
    authenticated = true;
  }, max);
  socket.on("data", (chunk: Buffer) => splitter.push(chunk));
  socket.on("end", () => {
    splitter.end();
    connections.ended(socket);
  });
  socket.on("error", () => connections.ended(socket));
  socket.on("close", () => connections.closed(socket));
}

/** Listen on `host` at a port the system chooses; returns the port. */
async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the log receiver has no TCP port");
  return address.port;
}

/**
 * A TCP server for one step's log. A connection must begin with the handshake line carrying
 * the token; anything else is dropped unread, so another local process cannot write into
 * the step's log.
 */
export async function startLogReceiver(options: LogReceiverOptions): Promise<LogReceiver> {
  const emitted: StreamedLine[] = [];
  const connections = new Connections();
  let frozen = false;
  const onLine = (line: StreamedLine): void => {
    if (frozen) return;
    emitted.push(line);
    options.onLine(line);
  };
  const expected = HANDSHAKE + options.token;
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const server = createServer((socket) => acceptConnection(socket, connections, expected, max, onLine));
  const port = await listen(server, options.host ?? "127.0.0.1");
  return {
    port,
    token: options.token,
    settle: (ms) => connections.settle(ms),
    freeze: () => {
      frozen = true;
      return emitted;
    },
    close: () => {
      frozen = true;
      for (const s of connections.all) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
