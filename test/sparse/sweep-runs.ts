/**
 * The TypeScript side of the Lucene code-point sweep (test/peers/lucene `sweep` mode): the
 * same texts (each code point in every template, the filled templates joined by a space),
 * tokenized by cspipe's StandardTokenizer equivalent, summarised as the same runs.
 */
import { scanTokens } from "../../steps/sparse/wordbreak.ts";
import type { SweepRun } from "../peers/lucene/peer.ts";
import { SWEEP_PLACEHOLDER } from "../peers/lucene/peer.ts";

/** Token spans of one text in code points, "start-end" joined by ",". */
export function spansOf(text: string): string {
  const parts: string[] = [];
  // UTF-16 offset -> code point offset
  const cpAt = new Int32Array(text.length + 1);
  let c = 0;
  for (let i = 0; i < text.length; i++) {
    cpAt[i] = c;
    const u = text.charCodeAt(i);
    if (!(u >= 0xdc00 && u <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff)) c++;
    else cpAt[i] = c - 1;
  }
  cpAt[text.length] = c;
  scanTokens(text, (s, e) => parts.push(`${cpAt[s]}-${cpAt[e]}`));
  return parts.join(",");
}

export function ourSweep(templates: readonly string[], first = 0, last = 0x10ffff): SweepRun[] {
  const out: SweepRun[] = [];
  let prev: string | null = null;
  let runStart = first;
  let prevCp = first;
  for (let cp = first; cp <= last; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const x = String.fromCodePoint(cp);
    const spans = spansOf(templates.map((t) => t.split(SWEEP_PLACEHOLDER).join(x)).join(" "));
    if (prev === null) {
      prev = spans;
      runStart = cp;
    } else if (spans !== prev || cp !== prevCp + 1) {
      out.push({ first: runStart, last: prevCp, spans: prev });
      prev = spans;
      runStart = cp;
    }
    prevCp = cp;
  }
  if (prev !== null) out.push({ first: runStart, last: prevCp, spans: prev });
  return out;
}

/** Code points whose spans differ, with both sides (at most `limit`). */
export function sweepDifferences(ours: readonly SweepRun[], theirs: readonly SweepRun[], limit = 20): { cp: number; ours: string; lucene: string }[] {
  const at = (runs: readonly SweepRun[]) => {
    let i = 0;
    return (cp: number): string => {
      while (i < runs.length && runs[i]!.last < cp) i++;
      const r = runs[i];
      return r !== undefined && r.first <= cp ? r.spans : "<missing>";
    };
  };
  const a = at(ours);
  const b = at(theirs);
  const out: { cp: number; ours: string; lucene: string }[] = [];
  let count = 0;
  const cuts = [...new Set([...ours.map((r) => r.first), ...theirs.map((r) => r.first)])].sort((x, y) => x - y);
  for (const start of cuts) {
    // each run boundary of either side starts a stretch where both sides are constant
    const x = a(start);
    const y = b(start);
    if (x !== y) {
      count++;
      if (out.length < limit) out.push({ cp: start, ours: x, lucene: y });
    }
  }
  void count;
  return out;
}
