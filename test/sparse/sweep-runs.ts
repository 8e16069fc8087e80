/**
 * cspipe's side of the Lucene code-point sweeps (test/peers/lucene, `sweep` and `parity` modes): the
 * same texts (each code point, surrogates as lone code units, in every template, the filled templates
 * joined by a space), tokenized by steps/sparse/wordbreak.ts and summarised as the same runs.
 */
import { analyzeEach } from "../../steps/sparse/analyzer.ts";
import { scanTokens } from "../../steps/sparse/wordbreak.ts";
import type { SweepRun } from "../peers/lucene/peer.ts";
import { SWEEP_PLACEHOLDER, termsHash } from "../peers/lucene/peer.ts";

/** The code point (or lone surrogate) cp as a string. */
const unit = (cp: number): string => (cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp));

/** Fills every template with x and joins them with a space. */
function filler(templates: readonly string[]): (x: string) => string {
  const pieces = templates.map((t) => t.split(SWEEP_PLACEHOLDER));
  return (x) => {
    let s = "";
    for (let t = 0; t < pieces.length; t++) {
      const p = pieces[t]!;
      s += (t > 0 ? " " : "") + p[0]!;
      for (let k = 1; k < p.length; k++) s += x + p[k]!;
    }
    return s;
  };
}

/** Typed token signature of one text: "start-end:type" joined by "," (code point offsets). */
export function signatureOf(text: string): string {
  let sig = "";
  let unitPos = 0;
  let cps = 0;
  const cpOffset = (to: number): number => {
    for (; unitPos < to; unitPos++) {
      const u = text.charCodeAt(unitPos);
      // a low surrogate right after a high one continues the same code point
      if (!(u >= 0xdc00 && u <= 0xdfff && unitPos > 0 && isHigh(text.charCodeAt(unitPos - 1)))) cps++;
    }
    return cps;
  };
  scanTokens(text, (s, e, type) => {
    const a = cpOffset(s);
    const b = cpOffset(e);
    sig += `${sig ? "," : ""}${a}-${b}:${type}`;
  });
  return sig;
}

const isHigh = (u: number): boolean => u >= 0xd800 && u <= 0xdbff;

/**
 * Runs of equal signatures over [first, last], as the peer's sweep reports them. Like the peer, it
 * scans 2048 code points' texts at once (separated by spaces, so no token spans two of them) and
 * builds a signature string only where a run starts.
 */
export function ourSweep(templates: readonly string[], first = 0, last = 0x10ffff): SweepRun[] {
  // templates as UTF-16 units, 0 where the code point goes (U+0000 is the placeholder)
  const pieces = templates.map((t) => Array.from({ length: t.length }, (_, i) => t.charCodeAt(i)));
  const perCp = pieces.reduce((a, p) => a + 2 * p.length + 1, 0);
  let units = new Uint16Array(1 << 16);
  const out: SweepRun[] = [];
  let prev: number[] = [];
  let cur: number[] = [];
  let started = false;
  let runStart = first;
  const CHUNK = 2048;
  const segStart = new Int32Array(CHUNK + 1);
  const segTok = new Int32Array(CHUNK + 1); // index in `toks` of each segment's first token
  let toks = new Int32Array(3 * 64 * CHUNK);
  for (let lo = first; lo <= last; lo += CHUNK) {
    const hi = Math.min(last, lo + CHUNK - 1);
    // The chunk's text is written as UTF-16 units and decoded once (string concatenation of this
    // many pieces costs seconds; Buffer's utf16le decoding keeps lone surrogates).
    let len = 0;
    for (let cp = lo; cp <= hi; cp++) {
      if (units.length - len < perCp) {
        const grown = new Uint16Array(units.length * 2);
        grown.set(units);
        units = grown;
      }
      segStart[cp - lo] = len;
      const wide = cp > 0xffff;
      const high = wide ? 0xd800 + ((cp - 0x10000) >> 10) : cp;
      const low = wide ? 0xdc00 + ((cp - 0x10000) & 0x3ff) : 0;
      for (let t = 0; t < pieces.length; t++) {
        const p = pieces[t]!;
        if (t > 0) units[len++] = 0x20;
        for (let k = 0; k < p.length; k++) {
          const u = p[k]!;
          if (u !== 0) units[len++] = u;
          else {
            units[len++] = high;
            if (wide) units[len++] = low;
          }
        }
      }
      units[len++] = 0x20;
    }
    const segments = hi - lo + 1;
    segStart[segments] = len;
    const text = Buffer.from(units.buffer, 0, 2 * len).toString("utf16le");
    // Tokens as (start, end, type) in code points from the segment's start.
    let seg = 0;
    let n = 0;
    let unitPos = 0;
    let cps = 0;
    let segCp = 0;
    const cpAt = (to: number): number => {
      for (; unitPos < to; unitPos++) {
        const u = text.charCodeAt(unitPos);
        if (!(u >= 0xdc00 && u <= 0xdfff && unitPos > 0 && isHigh(text.charCodeAt(unitPos - 1)))) cps++;
      }
      return cps;
    };
    segTok[0] = 0;
    scanTokens(text, (s, e, type) => {
      while (segStart[seg + 1]! <= s) {
        seg++;
        segTok[seg] = n;
        segCp = cpAt(segStart[seg]!);
      }
      if (n + 3 > toks.length) {
        const grown = new Int32Array(toks.length * 2);
        grown.set(toks);
        toks = grown;
      }
      toks[n++] = cpAt(s) - segCp;
      toks[n++] = cpAt(e) - segCp;
      toks[n++] = type;
    });
    while (seg < segments) segTok[++seg] = n;
    for (let i = 0; i < segments; i++) {
      cur.length = 0;
      for (let k = segTok[i]!; k < segTok[i + 1]!; k++) cur.push(toks[k]!);
      if (!started || !sameNumbers(cur, prev)) {
        if (started) out.push({ first: runStart, last: lo + i - 1, spans: signatureString(prev) });
        [prev, cur] = [cur, prev];
        started = true;
        runStart = lo + i;
      }
    }
  }
  if (started) out.push({ first: runStart, last, spans: signatureString(prev) });
  return out;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function signatureString(t: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < t.length; i += 3) parts.push(`${t[i]}-${t[i + 1]}:${t[i + 2]}`);
  return parts.join(",");
}

/** Per code point: termsHash of Anserini's terms (steps/sparse/analyzer.ts) of its filled templates. */
export function ourTermHashes(templates: readonly string[]): Int32Array {
  const fill = filler(templates);
  const out = new Int32Array(0x110000);
  const terms: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    terms.length = 0;
    analyzeEach(fill(unit(cp)), (t) => terms.push(t));
    out[cp] = termsHash(terms);
  }
  return out;
}

/** The code points where two sweeps differ, as ranges with both signatures (at most `limit`). */
export function sweepDifferences(
  ours: readonly SweepRun[],
  theirs: readonly SweepRun[],
  limit = 20,
): { first: number; last: number; ours: string; lucene: string }[] {
  const out: { first: number; last: number; ours: string; lucene: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < ours.length && j < theirs.length && out.length < limit) {
    const a = ours[i]!;
    const b = theirs[j]!;
    const first = Math.max(a.first, b.first);
    const last = Math.min(a.last, b.last);
    if (first <= last && a.spans !== b.spans) {
      const prev = out[out.length - 1];
      if (prev !== undefined && prev.last === first - 1 && prev.ours === a.spans && prev.lucene === b.spans) prev.last = last;
      else out.push({ first, last, ours: a.spans, lucene: b.spans });
    }
    if (a.last <= b.last) i++;
    else j++;
  }
  return out;
}

export const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
