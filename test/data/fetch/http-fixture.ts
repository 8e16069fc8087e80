/**
 * A tiny HTTP server on 127.0.0.1 for fetch tests: serves in-memory files with Range
 * support, can cut a connection midway, ignore Range, redirect, or fail with a status.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import type { LockEntry } from "../../../pipeline/engine/datasets-lock.ts";

export interface Route {
  body: Buffer;
  /** For the first `times` requests, send the headers then only `bytes` body bytes, then destroy the socket. */
  cut?: { bytes: number; times: number };
  /** Answer 200 with the whole body even when a Range is asked for. */
  ignoreRange?: boolean;
  /** Fail the first `times` requests with `status`. */
  failFirst?: { status: number; times: number };
  /** For the first `times` requests, send `bytes` body bytes and then nothing (the socket stays open). */
  stall?: { bytes: number; times: number };
  /** Omit Content-Length (chunked transfer). */
  noLength?: boolean;
}

export interface RequestLog {
  path: string;
  range: string | undefined;
}

export interface Fixture {
  base: string;
  server: Server;
  routes: Map<string, Route>;
  redirects: Map<string, string>;
  log: RequestLog[];
  close(): Promise<void>;
}

function handle(fx: Omit<Fixture, "base" | "server" | "close">, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? "/").split("?")[0] ?? "/";
  const range = req.headers.range;
  fx.log.push({ path, range });
  const target = fx.redirects.get(path);
  if (target !== undefined) {
    res.writeHead(302, { location: target });
    res.end();
    return;
  }
  const route = fx.routes.get(path);
  if (!route) {
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
    return;
  }
  if (route.failFirst && route.failFirst.times > 0) {
    route.failFirst.times--;
    res.writeHead(route.failFirst.status);
    res.end();
    return;
  }
  const total = route.body.length;
  let start = 0;
  let status = 200;
  const headers: Record<string, string | number> = { "accept-ranges": "bytes", "content-type": "application/octet-stream" };
  const m = range && !route.ignoreRange ? /^bytes=(\d+)-$/.exec(range) : null;
  if (m) {
    start = Number(m[1]);
    if (start >= total) {
      res.writeHead(416, { "content-range": `bytes */${total}` });
      res.end();
      return;
    }
    status = 206;
    headers["content-range"] = `bytes ${start}-${total - 1}/${total}`;
  }
  const slice = route.body.subarray(start);
  if (!route.noLength) headers["content-length"] = slice.length;
  res.writeHead(status, headers);
  if (route.stall && route.stall.times > 0) {
    route.stall.times--;
    res.write(slice.subarray(0, Math.max(0, route.stall.bytes - start)));
    return;
  }
  if (route.cut && route.cut.times > 0) {
    route.cut.times--;
    const n = Math.max(0, route.cut.bytes - start);
    res.write(slice.subarray(0, n), () => {
      setTimeout(() => req.socket.destroy(), 20);
    });
    return;
  }
  res.end(slice);
}

export async function startFixture(): Promise<Fixture> {
  const state = { routes: new Map<string, Route>(), redirects: new Map<string, string>(), log: [] as RequestLog[] };
  const server = createServer((req, res) => handle(state, req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...state,
    base: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Deterministic bytes (not all zeros, so a wrong offset changes the digest). */
export function bytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
}

export const noSleep = async (): Promise<void> => {};

/** sha256 hex of bytes (what datasets.lock records). */
export const sha256Of = (b: Buffer): string => createHash("sha256").update(b).digest("hex");

/** A lock entry for tests: no digest, CC0, no unpacking, unless overridden. */
export function lockEntry(over: Partial<LockEntry> & Pick<LockEntry, "urls" | "file">): LockEntry {
  return { description: "test", sha256: null, size: null, license: "CC0-1.0", unpack: "none", ...over };
}
