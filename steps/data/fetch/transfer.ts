/**
 * Resumable HTTP transfer into a sink, with Node's global fetch (or an injected one).
 *
 * - Resume: when the sink already holds bytes, ask for `Range: bytes=<offset>-`. A 206 whose
 *   Content-Range starts at the offset is appended; a 200 means the server ignored the range,
 *   so the sink is reset and the whole body is taken; a 416 with the sink already at the
 *   full size means there is nothing left to fetch.
 * - Failures are classified (see `classifyNetworkError`): a host that cannot be resolved or
 *   connected to is *unreachable* and is not retried (so an offline machine fails in
 *   about one connect timeout); a transfer cut midway, a stall, or a 5xx/429 is retried with
 *   exponential backoff, resuming where it stopped; other HTTP statuses move to the next URL.
 * - Redirects are followed by fetch itself.
 */
import type { TransferSink } from "./sinks.ts";

export type FetchLike = typeof fetch;

export interface TransferOptions {
  fetchImpl?: FetchLike;
  /** Abort when response headers do not arrive in time (DNS + connect + TLS + first byte). Default 10 s. */
  connectTimeoutMs?: number;
  /** Abort (and retry) when no body bytes arrive for this long. Default 60 s. */
  idleTimeoutMs?: number;
  /** Attempts per URL for retriable failures; an attempt that received bytes does not count. Default 5. */
  maxAttempts?: number;
  /** First backoff; doubles each retry. Default 1000 ms. */
  backoffMs?: number;
  /** Expected total size when known (lets a cut connection without Content-Length be detected). */
  expectedSize?: number | null;
  onProgress?: (done: number, total?: number) => void;
  /** Injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
}

export type FailureKind = "unreachable" | "http" | "interrupted" | "protocol";

export interface UrlFailure {
  readonly url: string;
  readonly kind: FailureKind;
  readonly detail: string;
}

export type TransferResult =
  | { readonly ok: true; readonly url: string; readonly total: number }
  | { readonly ok: false; readonly failures: readonly UrlFailure[] };

const UNREACHABLE_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "UND_ERR_CONNECT_TIMEOUT", "CONNECT_TIMEOUT"]);

/** Collect `code`s from an error, its `cause` chain and AggregateError members. */
function errorCodes(err: unknown, depth = 0): string[] {
  if (depth > 5 || err === null || typeof err !== "object") return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown; name?: unknown };
  const out: string[] = [];
  if (typeof e.code === "string") out.push(e.code);
  if (e.name === "ConnectTimeoutError") out.push("CONNECT_TIMEOUT");
  out.push(...errorCodes(e.cause, depth + 1));
  if (Array.isArray(e.errors)) for (const inner of e.errors) out.push(...errorCodes(inner, depth + 1));
  return out;
}

function errorText(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 4 && cur && typeof cur === "object"; i++) {
    const e = cur as { message?: unknown; code?: unknown; cause?: unknown };
    if (typeof e.message === "string" && e.message && !parts.includes(e.message)) parts.push(e.message);
    else if (typeof e.code === "string") parts.push(e.code);
    cur = e.cause;
  }
  return parts.join(": ") || String(err);
}

/** Classify a thrown fetch/stream error: unreachable hosts fail fast, everything else is retried. */
export function classifyNetworkError(err: unknown): "unreachable" | "interrupted" {
  if (errorCodes(err).some((c) => UNREACHABLE_CODES.has(c))) return "unreachable";
  // fetch refuses some URLs outright (e.g. "bad port"): retrying cannot help.
  return /\bbad port\b|invalid url|unsupported protocol/i.test(errorText(err)) ? "unreachable" : "interrupted";
}

class TimeoutSignal extends Error {
  constructor(readonly phase: "connect" | "idle", ms: number) {
    super(phase === "connect" ? `no response within ${ms} ms (connect timeout)` : `no data for ${ms} ms (stalled)`);
  }
}

const RETRIABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

function parseContentRangeStart(header: string | null): { start: number; total: number | undefined } | undefined {
  if (!header) return undefined;
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!m) return undefined;
  return { start: Number(m[1]), total: m[3] === "*" ? undefined : Number(m[3]) };
}

type AttemptOutcome =
  | { readonly status: "done"; readonly total: number }
  | { readonly status: "fail"; readonly kind: FailureKind; readonly retriable: boolean; readonly detail: string; readonly progressed: boolean };

type AttemptOptions = Required<Pick<TransferOptions, "connectTimeoutMs" | "idleTimeoutMs">> & TransferOptions;

/** The abort of one attempt: armed for the connect phase, then re-armed for each wait on the body (idle). */
class Watchdog {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  arm(phase: "connect" | "idle", ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new TimeoutSignal(phase, ms)), ms);
  }
  clear(): void {
    clearTimeout(this.timer);
  }
  /** The timeout that aborted the attempt, if one did. */
  timeout(): TimeoutSignal | undefined {
    const reason: unknown = this.controller.signal.reason;
    return reason instanceof TimeoutSignal ? reason : undefined;
  }
}

/** A fetch that threw before the headers: a connect timeout or an unreachable host is final, anything else is retried. */
function connectFailure(err: unknown, w: Watchdog): AttemptOutcome {
  const timeout = w.timeout();
  if (timeout !== undefined) return { status: "fail", kind: "unreachable", retriable: false, detail: timeout.message, progressed: false };
  const kind = classifyNetworkError(err);
  return { status: "fail", kind, retriable: kind !== "unreachable", detail: errorText(err), progressed: false };
}

/**
 * What the response's status says: the total size it announces (a 206 continuing at the offset,
 * or a 200, which restarts the sink), or the attempt's outcome when there is no body to read (a
 * 416 for a complete partial, a 206 elsewhere, another status).
 */
async function responseTotal(res: Response, sink: TransferSink, startOffset: number, expected: number | undefined): Promise<{ total: number | undefined } | AttemptOutcome> {
  if (res.status === 206) {
    const cr = parseContentRangeStart(res.headers.get("content-range"));
    if (cr && cr.start === startOffset) return { total: cr.total };
    await res.body?.cancel();
    await sink.reset();
    return { status: "fail", kind: "protocol", retriable: true, detail: `206 with Content-Range '${res.headers.get("content-range")}' does not continue at byte ${startOffset}`, progressed: false };
  }
  if (res.status === 200) {
    if (startOffset > 0) await sink.reset();
    const len = res.headers.get("content-length");
    return { total: len !== null && /^\d+$/.test(len) ? Number(len) : undefined };
  }
  await res.body?.cancel();
  if (res.status === 416 && startOffset > 0) {
    const cr = /\/(\d+)$/.exec(res.headers.get("content-range") ?? "");
    const full = cr ? Number(cr[1]) : expected;
    if (full !== undefined && full === startOffset) return { status: "done", total: full };
    await sink.reset();
    return { status: "fail", kind: "protocol", retriable: true, detail: `416 for a partial of ${startOffset} bytes; restarting from 0`, progressed: false };
  }
  return { status: "fail", kind: "http", retriable: RETRIABLE_STATUS.has(res.status), detail: `HTTP ${res.status} ${res.statusText}`.trim(), progressed: false };
}

/** Appends the body to the sink, each chunk within the idle timeout; a body cut before `total` is retried. */
async function readBody(res: Response, sink: TransferSink, total: number | undefined, opts: AttemptOptions, w: Watchdog): Promise<AttemptOutcome> {
  let progressed = false;
  w.arm("idle", opts.idleTimeoutMs);
  opts.onProgress?.(sink.offset, total);
  try {
    if (res.body) {
      for await (const chunk of res.body) {
        w.arm("idle", opts.idleTimeoutMs);
        await sink.append(chunk);
        progressed = true;
        opts.onProgress?.(sink.offset, total);
      }
    }
  } catch (err) {
    const detail = w.timeout()?.message ?? errorText(err);
    return { status: "fail", kind: "interrupted", retriable: true, detail: `transfer interrupted at byte ${sink.offset}: ${detail}`, progressed };
  }
  if (total !== undefined && sink.offset < total) {
    return { status: "fail", kind: "interrupted", retriable: true, detail: `connection closed at byte ${sink.offset} of ${total}`, progressed };
  }
  return { status: "done", total: sink.offset };
}

/** One request for the rest of the file (a range when the sink holds a partial): connect, check the response, read the body. */
async function attempt(url: string, sink: TransferSink, opts: AttemptOptions, fetchImpl: FetchLike): Promise<AttemptOutcome> {
  const expected = opts.expectedSize ?? undefined;
  if (expected !== undefined && sink.offset > expected) await sink.reset();
  const startOffset = sink.offset;
  const headers: Record<string, string> = { "accept-encoding": "identity" };
  if (startOffset > 0) headers["range"] = `bytes=${startOffset}-`;
  const w = new Watchdog();
  w.arm("connect", opts.connectTimeoutMs);
  try {
    let res: Response;
    try {
      res = await fetchImpl(url, { headers, redirect: "follow", signal: w.controller.signal });
    } catch (err) {
      return connectFailure(err, w);
    }
    const head = await responseTotal(res, sink, startOffset, expected);
    if ("status" in head) return head;
    const total = head.total ?? expected;
    if (expected !== undefined && total !== undefined && total !== expected) {
      await res.body?.cancel();
      return { status: "fail", kind: "protocol", retriable: false, detail: `server reports ${total} bytes, datasets.lock expects ${expected}`, progressed: false };
    }
    return await readBody(res, sink, total, opts, w);
  } finally {
    w.clear();
  }
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fetch the first URL that works into `sink`. Never throws for network/HTTP failures:
 * returns every URL's failure so the caller can build one message (offline, 404, ...).
 */
export async function transfer(urls: readonly string[], sink: TransferSink, options: TransferOptions = {}): Promise<TransferResult> {
  const fetchImpl = options.fetchImpl ?? fetch;
  const opts = { ...options, connectTimeoutMs: options.connectTimeoutMs ?? 10_000, idleTimeoutMs: options.idleTimeoutMs ?? 60_000 };
  const maxAttempts = options.maxAttempts ?? 5;
  const backoffMs = options.backoffMs ?? 1000;
  const sleep = options.sleep ?? defaultSleep;
  const failures: UrlFailure[] = [];
  for (const url of urls) {
    let failedAttempts = 0;
    let delay = backoffMs;
    for (;;) {
      const out = await attempt(url, sink, opts, fetchImpl);
      if (out.status === "done") return { ok: true, url, total: out.total };
      if (!out.retriable) {
        failures.push({ url, kind: out.kind, detail: out.detail });
        break;
      }
      if (out.progressed) {
        failedAttempts = 0;
        delay = backoffMs;
      } else failedAttempts++;
      if (failedAttempts >= maxAttempts) {
        failures.push({ url, kind: out.kind, detail: `${out.detail} (gave up after ${maxAttempts} attempts)` });
        break;
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 60_000);
    }
  }
  return { ok: false, failures };
}
