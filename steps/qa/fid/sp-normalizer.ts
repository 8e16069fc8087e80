/**
 * SentencePiece's normalizer, exactly (pure): the precompiled character map (a Darts-clone
 * double-array trie over UTF-8 bytes whose values point at NUL-terminated replacement strings;
 * the longest matching prefix is replaced, otherwise one UTF-8 character is copied, a malformed
 * byte becomes U+FFFD) and the whitespace rules (leading, trailing and repeated spaces removed,
 * a dummy "▁" prefix, spaces escaped as "▁"). @huggingface/tokenizers approximates the map with
 * NFKC; the T5 tokenizer normalizes here and hands the library the normalized text.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";
import type { SentencePieceSpec } from "./spiece.ts";

const SPACE_SYMBOL = "\u2581";
const enc = new TextEncoder();
const dec = new TextDecoder("utf-8");

export class CharsMap {
  private readonly units: Uint32Array;
  private readonly strings: Uint8Array;
  constructor(blob: Uint8Array, file = "precompiled_charsmap") {
    if (blob.length < 4) throw new InputError("precompiled charsmap too short", { file });
    const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
    const trieSize = view.getUint32(0, true);
    if (trieSize % 4 !== 0 || 4 + trieSize > blob.length) throw new InputError("malformed precompiled charsmap (trie size)", { file });
    this.units = new Uint32Array(trieSize / 4);
    for (let i = 0; i < this.units.length; i++) this.units[i] = view.getUint32(4 + 4 * i, true);
    this.strings = blob.subarray(4 + trieSize);
  }

  /** Longest prefix of bytes[at..] in the trie: [length, replacement] or null. */
  longest(bytes: Uint8Array, at: number): [number, Uint8Array] | null {
    const u = this.units;
    const offset = (unit: number) => (unit >>> 10) << ((unit & (1 << 9)) >>> 6);
    let node = offset(u[0]!);
    let best: [number, number] | null = null;
    for (let i = at; i < bytes.length; i++) {
      const c = bytes[i]!;
      node ^= c;
      const unit = u[node];
      if (unit === undefined || (unit & ((1 << 31) | 0xff)) >>> 0 !== c) break;
      node ^= offset(unit);
      if ((unit >>> 8) & 1) best = [i - at + 1, u[node]! & 0x7fffffff];
    }
    if (best === null) return null;
    let end = best[1];
    while (end < this.strings.length && this.strings[end] !== 0) end++;
    return [best[0], this.strings.subarray(best[1], end)];
  }
}

/** Length of the UTF-8 character at bytes[at], or 0 when malformed. */
function utf8Length(b: Uint8Array, at: number): number {
  const c = b[at]!;
  const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
  if (n === 0 || at + n > b.length) return 0;
  for (let i = 1; i < n; i++) if ((b[at + i]! & 0xc0) !== 0x80) return 0;
  const cp = dec.decode(b.subarray(at, at + n)).codePointAt(0)!;
  return cp === 0xfffd && !(b[at] === 0xef && b[at + 1] === 0xbf && b[at + 2] === 0xbd) ? 0 : n;
}

const REPLACEMENT = enc.encode("\ufffd");

export class SentencePieceNormalizer {
  private readonly map: CharsMap | null;
  constructor(private readonly spec: Pick<SentencePieceSpec, "precompiledCharsmap" | "addDummyPrefix" | "removeExtraWhitespaces" | "escapeWhitespaces">) {
    this.map = spec.precompiledCharsmap === null || spec.precompiledCharsmap.length === 0 ? null : new CharsMap(spec.precompiledCharsmap);
  }

  private prefix(b: Uint8Array, at: number): [number, Uint8Array] {
    const hit = this.map?.longest(b, at) ?? null;
    if (hit !== null) return hit;
    const n = utf8Length(b, at);
    return n === 0 ? [1, REPLACEMENT] : [n, b.subarray(at, at + n)];
  }

  normalize(text: string): string {
    const b = enc.encode(text);
    const s = this.spec;
    let at = 0;
    if (s.removeExtraWhitespaces) {
      while (at < b.length) {
        const [n, rep] = this.prefix(b, at);
        if (!(rep.length === 1 && rep[0] === 0x20)) break;
        at += n;
      }
    }
    if (at >= b.length) return "";
    const ws = s.escapeWhitespaces ? SPACE_SYMBOL : " ";
    let out = s.addDummyPrefix ? ws : "";
    let prevSpace = s.removeExtraWhitespaces;
    while (at < b.length) {
      const [n, rep] = this.prefix(b, at);
      let start = 0;
      if (prevSpace) while (start < rep.length && rep[start] === 0x20) start++;
      if (start < rep.length) {
        const piece = dec.decode(rep.subarray(start));
        out += s.escapeWhitespaces ? piece.replaceAll(" ", SPACE_SYMBOL) : piece;
        prevSpace = rep[rep.length - 1] === 0x20;
      }
      at += n;
      if (!s.removeExtraWhitespaces) prevSpace = false;
    }
    if (s.removeExtraWhitespaces) while (out.endsWith(ws)) out = out.slice(0, -ws.length);
    return out;
  }
}
