/**
 * Builds the in-memory BM25 index (layout: ./index-layout.ts) one document at a time (pure
 * apart from the input iterable). Memory while building: ~4 bytes per posting plus the
 * ids, plus at most 128 MiB while the postings are regrouped by term and encoded (~2-3 bytes each).
 */
import { InputError } from "../../pipeline/engine/errors.ts";
import { ANALYZER_ID, analyzeToken, scanTokenSpans } from "./analyzer.ts";
import { BlockWriter, DEFAULT_BLOCK_SIZE, withLeadingZero } from "./blocks.ts";
import { concatParts, MemoryBytes, MemoryColumn } from "./columns.ts";
import { compareCodePoints, rankIdBytes } from "./ids.ts";
import type { Bm25Index, HeavyColumns, HeavySectionName, HeavySections } from "./index-layout.ts";
import { intToByte4 } from "./smallfloat.ts";
import { MISSING, TokenTable } from "./token-table.ts";

export interface BuildOptions<D> {
  /** The text to index for a document; Pyserini indexes the `contents` field only. Default: `doc.text`. */
  readonly textOf?: (doc: D) => string;
  /** Name of the input, for error messages. */
  readonly source?: string;
  readonly onProgress?: (done: number, total?: number) => void;
  /** Documents between two onProgress calls (default 10,000). */
  readonly progressEvery?: number;
  /** Total number of documents, if known (passed to onProgress). */
  readonly total?: number;
  /** Postings per skip block (default 128). */
  readonly blockSize?: number;
}

/** Growable list of uint32 in fixed chunks (no giant reallocations). */
class U32Chunks {
  private readonly chunks: Uint32Array[] = [];
  private cur = new Uint32Array(1 << 20);
  private pos = 0;
  length = 0;
  push(v: number): void {
    if (this.pos === this.cur.length) {
      this.chunks.push(this.cur);
      this.cur = new Uint32Array(1 << 20);
      this.pos = 0;
    }
    this.cur[this.pos++] = v;
    this.length++;
  }
  *all(): Generator<Uint32Array> {
    yield* this.chunks;
    yield this.cur.subarray(0, this.pos);
  }
}

/** Token id of a stop word in the token table. */
const STOP = -2;

/** Accumulates documents one at a time; `finish()` returns the index. */
export class IndexBuilder {
  private readonly termIds = new Map<string, number>();
  private readonly termList: string[] = [];
  /** Token text -> term id (or STOP): one cache lookup per token, no string slicing for known tokens. */
  private readonly tokens = new TokenTable();
  /**
   * Per document its postings (termId, tf), documents back to back, one uint32 each in the usual
   * case: termId << 8 | tf for termId < 2^24 and tf <= 255; otherwise three words: 0 (a low byte of
   * 0 is never a tf), termId, tf. docEnds[d] = postings after document d.
   */
  private readonly postings = new U32Chunks();
  private postingCount = 0;
  private readonly docEnds = new U32Chunks();
  private readonly norms = new U32Chunks();
  private readonly idBytes = new MemoryBytes();
  private readonly idEnds = new MemoryColumn<Float64Array>(Float64Array);
  private readonly utf8 = new TextEncoder();
  private sumTotalTermFreq = 0;
  private docCount = 0;
  /** Per-term tf scratch for the current document (indexed by term id) and the terms it touched. */
  private tfScratch = new Uint32Array(1 << 16);
  private docTerms = new Uint32Array(1 << 12);
  private nTerms = 0;
  private length = 0;
  private text = "";
  private readonly onSpan = (s: number, e: number): void => this.token(s, e);

  constructor(
    private readonly source = "<documents>",
    private readonly blockSize = DEFAULT_BLOCK_SIZE,
  ) {}

  get numDocs(): number {
    return this.idEnds.length;
  }

  /** Postings accumulated so far (each costs 4 bytes until finish(), 12 with a term id >= 2^24 or a tf > 255). */
  get numPostings(): number {
    return this.postingCount;
  }

  private termIdOf(term: string): number {
    let t = this.termIds.get(term);
    if (t === undefined) {
      t = this.termList.length;
      this.termIds.set(term, t);
      this.termList.push(term);
      if (t >= this.tfScratch.length) {
        const bigger = new Uint32Array(this.tfScratch.length * 2);
        bigger.set(this.tfScratch);
        this.tfScratch = bigger;
      }
    }
    return t;
  }

  /** One token of the current document: the analyzer's filter chain, cached per token text. */
  private token(s: number, e: number): void {
    const text = this.text;
    let t = this.tokens.get(text, s, e);
    if (t === MISSING) {
      const term = analyzeToken(text.slice(s, e));
      t = term === null ? STOP : this.termIdOf(term);
      this.tokens.set(text, s, e, t);
    }
    if (t === STOP) return;
    const tfs = this.tfScratch;
    if (tfs[t] === 0) {
      if (this.nTerms === this.docTerms.length) {
        const bigger = new Uint32Array(this.docTerms.length * 2);
        bigger.set(this.docTerms);
        this.docTerms = bigger;
      }
      this.docTerms[this.nTerms++] = t;
    }
    tfs[t]!++;
    this.length++;
  }

  add(id: string, text: string): void {
    if (typeof id !== "string" || id.length === 0) {
      throw new InputError(`document ${this.numDocs + 1} has no id`, { file: this.source, field: "id", fix: "give every passage a non-empty string id" });
    }
    if (typeof text !== "string") {
      throw new InputError(`document '${id}' has no text`, { file: this.source, field: "text", fix: "give every passage a string text (possibly empty)" });
    }
    this.nTerms = 0;
    this.length = 0;
    this.text = text;
    // The same composition as analyzeEach (analyzer.ts): tokenizer spans, then analyzeToken per token.
    scanTokenSpans(text, this.onSpan);
    this.text = "";
    const tfs = this.tfScratch;
    for (let i = 0; i < this.nTerms; i++) {
      const t = this.docTerms[i]!;
      const tf = tfs[t]!;
      if (t < 1 << 24 && tf <= 255) {
        this.postings.push(((t << 8) | tf) >>> 0);
      } else {
        this.postings.push(0);
        this.postings.push(t);
        this.postings.push(tf);
      }
      tfs[t] = 0;
    }
    this.postingCount += this.nTerms;
    this.docEnds.push(this.postingCount);
    this.norms.push(intToByte4(this.length));
    const bytes = this.utf8.encode(id);
    for (let i = 0; i < bytes.length; i++) this.idBytes.byte(bytes[i]!);
    this.idEnds.push(this.idBytes.length);
    if (this.length > 0) this.docCount++;
    this.sumTotalTermFreq += this.length;
  }

  /** The index of the documents added so far. */
  finish(): Bm25Index {
    return this.finishInto(heavyColumnsInMemory());
  }

  /**
   * The index of the documents added so far, with its per-posting and per-block sections written
   * to `heavy` (memory, or files: then nothing proportional to the postings is held twice).
   */
  finishInto<T extends HeavySections>(heavy: HeavyColumns<T>): Omit<Bm25Index, HeavySectionName> & T {
    const numTerms = this.termList.length;
    const numDocs = this.numDocs;
    // Sorted term order; remap first-seen ids to sorted positions.
    const order = Array.from({ length: numTerms }, (_, i) => i).sort((a, b) => compareCodePoints(this.termList[a]!, this.termList[b]!));
    const rankOf = new Uint32Array(numTerms);
    order.forEach((t, r) => (rankOf[t] = r));
    const norms = new Uint8Array(numDocs);
    let i = 0;
    for (const c of this.norms.all()) {
      norms.set(c, i);
      i += c.length;
    }
    const df = new Uint32Array(numTerms);
    this.forEachPosting((_d, t) => df[rankOf[t]!]!++);

    // Postings are held document by document; the codec wants them term by term. Terms are taken
    // in ranges of at most TERM_MAJOR_CHUNK postings, each gathered by one pass over all postings,
    // so the term-major copy never costs more than ~8 bytes x TERM_MAJOR_CHUNK.
    const cols = {
      ...pickColumns(heavy),
      termPostingEnds: new MemoryColumn<Float64Array>(Float64Array),
      termBlockEnds: new MemoryColumn<Float64Array>(Float64Array),
      termImpacts: new MemoryColumn<Float64Array>(Float64Array),
    };
    const writer = new BlockWriter(cols, this.blockSize);
    for (let r0 = 0; r0 < numTerms; ) {
      let r1 = r0;
      let total = 0;
      while (r1 < numTerms && (r1 === r0 || total + df[r1]! <= TERM_MAJOR_CHUNK)) total += df[r1++]!;
      const start = new Float64Array(r1 - r0 + 1);
      for (let r = r0; r < r1; r++) start[r - r0 + 1] = start[r - r0]! + df[r]!;
      const fill = Float64Array.from(start.subarray(0, r1 - r0));
      const docs = new Uint32Array(total);
      const tfs = new Uint32Array(total);
      this.forEachPosting((d, t, tf) => {
        const r = rankOf[t]!;
        if (r < r0 || r >= r1) return;
        const at = fill[r - r0]!++;
        docs[at] = d;
        tfs[at] = tf;
      });
      for (let r = r0; r < r1; r++) {
        for (let p = start[r - r0]!; p < start[r - r0 + 1]!; p++) writer.add(docs[p]!, tfs[p]!, norms[docs[p]!]!);
        writer.endTerm();
      }
      r0 = r1;
    }
    writer.finish();

    const enc = new TextEncoder();
    const termParts = order.map((t) => enc.encode(this.termList[t]!));
    const { bytes: termBytes, offsets: termOffsets } = concatParts(termParts);
    const idBytes = this.idBytes.toArray();
    const idOffsets = withLeadingZero(this.idEnds.toArray());
    const idRank = rankIdBytes({ idBytes, idOffsets }, numDocs, this.source);
    return {
      analyzer: ANALYZER_ID,
      numDocs,
      docCount: this.docCount,
      sumTotalTermFreq: this.sumTotalTermFreq,
      numTerms,
      termBytes,
      termOffsets,
      df,
      postingOffsets: withLeadingZero(cols.termPostingEnds.toArray()),
      termBlockOffsets: withLeadingZero(cols.termBlockEnds.toArray()),
      termImpactOffsets: cols.termImpacts.toArray(),
      ...heavy.close(),
      norms,
      idRank,
      idBytes,
      idOffsets,
    };
  }

  private forEachPosting(fn: (doc: number, term: number, tf: number) => void): void {
    const ends = this.docEnds.all();
    let endChunk = ends.next().value as Uint32Array;
    let endPos = 0;
    let doc = 0;
    let index = 0;
    // 0: at a posting's first word; 1, 2: in a three-word posting, expecting its termId, its tf
    let state = 0;
    let term = 0;
    for (const chunk of this.postings.all()) {
      for (let k = 0; k < chunk.length; k++) {
        const w = chunk[k]!;
        let tf: number;
        if (state === 0) {
          tf = w & 255;
          if (tf === 0) {
            state = 1;
            continue;
          }
          term = w >>> 8;
        } else if (state === 1) {
          term = w;
          state = 2;
          continue;
        } else {
          tf = w;
          state = 0;
        }
        // advance doc until index < docEnds[doc]
        for (;;) {
          if (endPos === endChunk.length) {
            endChunk = ends.next().value as Uint32Array;
            endPos = 0;
          }
          if (index < endChunk[endPos]!) break;
          endPos++;
          doc++;
        }
        fn(doc, term, tf);
        index++;
      }
    }
  }
}

/** Postings gathered term-major per pass in IndexBuilder.finish (8 bytes each). */
const TERM_MAJOR_CHUNK = 1 << 24;
function pickColumns<T extends HeavySections>(h: HeavyColumns<T>) {
  return { postings: h.postings, blockLastDoc: h.blockLastDoc, blockStart: h.blockStart, blockImpacts: h.blockImpacts, impacts: h.impacts };
}

function heavyColumnsInMemory(): HeavyColumns<Pick<Bm25Index, HeavySectionName>> {
  const postings = new MemoryBytes();
  const blockLastDoc = new MemoryColumn<Uint32Array>(Uint32Array);
  const blockStart = new MemoryColumn<Float64Array>(Float64Array);
  const blockImpacts = new MemoryColumn<Float64Array>(Float64Array);
  const impacts = new MemoryBytes();
  return {
    postings,
    blockLastDoc,
    blockStart,
    blockImpacts,
    impacts,
    close: () => ({
      postings: postings.toArray(),
      blockLastDoc: blockLastDoc.toArray(),
      blockStart: blockStart.toArray(),
      blockImpactOffsets: blockImpacts.toArray(),
      impacts: impacts.toArray(),
    }),
  };
}

/** Builds an index from documents (sync or async iterable), in insertion order. */
export async function buildIndex<D extends { readonly id: string }>(
  docs: Iterable<D> | AsyncIterable<D>,
  opts: BuildOptions<D> = {},
): Promise<Bm25Index> {
  const textOf = opts.textOf ?? ((d: D) => (d as unknown as { text: string }).text);
  const every = opts.progressEvery ?? 10_000;
  const b = new IndexBuilder(opts.source, opts.blockSize);
  for await (const d of docs) {
    b.add(d.id, textOf(d));
    if (opts.onProgress && b.numDocs % every === 0) opts.onProgress(b.numDocs, opts.total);
  }
  opts.onProgress?.(b.numDocs, opts.total);
  return b.finish();
}

/** Synchronous variant for in-memory arrays (tests, small collections). */
export function buildIndexSync(docs: Iterable<{ readonly id: string; readonly text: string }>, opts: { readonly blockSize?: number } = {}): Bm25Index {
  const b = new IndexBuilder(undefined, opts.blockSize);
  for (const d of docs) b.add(d.id, d.text);
  return b.finish();
}
