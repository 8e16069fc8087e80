/**
 * Reading a SentencePiece model (`spiece.model`, a ModelProto in protobuf wire format) or the
 * equivalent Hugging Face `tokenizer.json`, into what the T5 tokenizer needs: the pieces
 * (string, score, type) and the normalizer spec (the precompiled character map and the
 * whitespace options). A minimal protobuf reader: only the fields used here are decoded, the
 * rest are skipped by wire type.
 */
import { InputError } from "../../../pipeline/engine/errors.ts";

export const PIECE_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

export interface Piece {
  readonly piece: string;
  readonly score: number;
  readonly type: number;
}

export interface SentencePieceSpec {
  readonly pieces: readonly Piece[];
  readonly precompiledCharsmap: Uint8Array | null;
  readonly addDummyPrefix: boolean;
  readonly removeExtraWhitespaces: boolean;
  readonly escapeWhitespaces: boolean;
}

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array, readonly file: string) {}
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new InputError("truncated protobuf varint", { file: this.file, fix: "use an intact spiece.model" });
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return result;
      mul *= 128;
    }
    throw new InputError("malformed protobuf varint", { file: this.file });
  }
  bytes(): Uint8Array {
    const n = this.varint();
    if (this.pos + n > this.buf.length) throw new InputError("truncated protobuf field", { file: this.file, fix: "use an intact spiece.model" });
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  /** Iterates (field number, wire type) pairs, calling `on`; unknown fields are skipped. */
  fields(on: (field: number, wire: number) => boolean): void {
    while (this.pos < this.buf.length) {
      const key = this.varint();
      const field = Math.floor(key / 8);
      const wire = key & 7;
      if (on(field, wire)) continue;
      if (wire === 0) this.varint();
      else if (wire === 1) this.pos += 8;
      else if (wire === 2) this.bytes();
      else if (wire === 5) this.pos += 4;
      else throw new InputError(`unsupported protobuf wire type ${wire}`, { file: this.file, fix: "pass a SentencePiece model (spiece.model)" });
    }
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: false });

export function parseSpieceModel(buf: Uint8Array, file = "spiece.model"): SentencePieceSpec {
  const pieces: Piece[] = [];
  let normalizer: Uint8Array | null = null;
  const top = new Reader(buf, file);
  top.fields((field, wire) => {
    if (wire !== 2 || (field !== 1 && field !== 3)) return false;
    const body = top.bytes();
    if (field === 3) {
      normalizer = body;
      return true;
    }
    let piece = "";
    let score = 0;
    let type: number = PIECE_TYPE.normal;
    const r = new Reader(body, file);
    r.fields((f, w) => {
      if (f === 1 && w === 2) piece = utf8.decode(r.bytes());
      else if (f === 2 && w === 5) {
        score = new DataView(body.buffer, body.byteOffset + r.pos, 4).getFloat32(0, true);
        r.pos += 4;
      } else if (f === 3 && w === 0) type = r.varint();
      else return false;
      return true;
    });
    pieces.push({ piece, score, type });
    return true;
  });
  if (pieces.length === 0) throw new InputError("no pieces in the SentencePiece model", { file, fix: "pass a SentencePiece model (spiece.model)" });
  let charsmap: Uint8Array | null = null;
  let addDummyPrefix = true;
  let removeExtra = true;
  let escape = true;
  if (normalizer !== null) {
    const r = new Reader(normalizer, file);
    r.fields((f, w) => {
      if (f === 2 && w === 2) charsmap = r.bytes().slice();
      else if (f === 3 && w === 0) addDummyPrefix = r.varint() !== 0;
      else if (f === 4 && w === 0) removeExtra = r.varint() !== 0;
      else if (f === 5 && w === 0) escape = r.varint() !== 0;
      else return false;
      return true;
    });
  }
  return { pieces, precompiledCharsmap: charsmap, addDummyPrefix, removeExtraWhitespaces: removeExtra, escapeWhitespaces: escape };
}

interface TokenizerJson {
  model?: { type?: string; vocab?: [string, number][]; unk_id?: number };
  normalizer?: { type?: string; precompiled_charsmap?: string | null; normalizers?: TokenizerJson["normalizer"][] } | null;
  pre_tokenizer?: { type?: string; add_prefix_space?: boolean; prepend_scheme?: string; pretokenizers?: TokenizerJson["pre_tokenizer"][] } | null;
  added_tokens?: { id: number; content: string; special?: boolean }[];
}

/** The same spec from a Hugging Face tokenizer.json of a SentencePiece Unigram model (T5's). */
export function parseUnigramTokenizerJson(text: string, file = "tokenizer.json"): SentencePieceSpec {
  let j: TokenizerJson;
  try {
    j = JSON.parse(text) as TokenizerJson;
  } catch (e) {
    throw new InputError(`not JSON (${(e as Error).message})`, { file });
  }
  if (j.model?.type !== "Unigram" || !Array.isArray(j.model.vocab)) throw new InputError("not a Unigram tokenizer (model.type must be Unigram)", { file, field: "model.type", fix: "pass T5's tokenizer.json or spiece.model" });
  const special = new Set((j.added_tokens ?? []).filter((t) => t.special === true).map((t) => t.id));
  const pieces = j.model.vocab.map(([piece, score], i) => ({ piece, score, type: i === j.model!.unk_id ? PIECE_TYPE.unknown : special.has(i) ? PIECE_TYPE.control : PIECE_TYPE.normal }));
  const flat = <T extends { type?: string }>(x: T | null | undefined, key: "normalizers" | "pretokenizers"): T[] => (x === null || x === undefined ? [] : x.type === "Sequence" ? ((x as Record<string, unknown>)[key] as T[]).flatMap((y) => flat(y, key)) : [x]);
  const pre = flat(j.pre_tokenizer, "pretokenizers").find((p) => p.type === "Metaspace");
  const charsmap = flat(j.normalizer, "normalizers").find((n) => n.type === "Precompiled")?.precompiled_charsmap;
  return {
    pieces,
    precompiledCharsmap: charsmap ? new Uint8Array(Buffer.from(charsmap, "base64")) : null,
    addDummyPrefix: pre === undefined ? true : pre.prepend_scheme !== undefined ? pre.prepend_scheme !== "never" : pre.add_prefix_space !== false,
    removeExtraWhitespaces: true,
    escapeWhitespaces: true,
  };
}
