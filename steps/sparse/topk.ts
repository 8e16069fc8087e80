/**
 * Bounded top-k of documents by (score descending, id rank ascending): Anserini's order (score,
 * then the passage id), with ids compared through their precomputed ranks (./ids.ts).
 */

/** Bounded min-heap keeping the best k by (score desc, id rank asc). */
export class TopK {
  private readonly docs: Uint32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly idRank: Uint32Array,
  ) {
    this.docs = new Uint32Array(Math.max(0, k));
    this.scores = new Float64Array(Math.max(0, k));
  }

  /** true if (s1, d1) ranks below (s2, d2). */
  private worse(s1: number, d1: number, s2: number, d2: number): boolean {
    return s1 < s2 || (s1 === s2 && this.idRank[d1]! > this.idRank[d2]!);
  }

  /** The score a new hit must reach (ties then go by id rank): the k-th best, or -Infinity while not full. */
  get threshold(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  get length(): number {
    return this.size;
  }

  /** Empties the heap for the next query. */
  clear(): void {
    this.size = 0;
  }

  offer(doc: number, score: number): void {
    if (this.k <= 0) return;
    const docs = this.docs;
    const scores = this.scores;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(score, doc, scores[p]!, docs[p]!)) break;
        docs[i] = docs[p]!;
        scores[i] = scores[p]!;
        i = p;
      }
      docs[i] = doc;
      scores[i] = score;
      return;
    }
    if (!this.worse(scores[0]!, docs[0]!, score, doc)) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && this.worse(scores[r]!, docs[r]!, scores[l]!, docs[l]!) ? r : l;
      if (!this.worse(scores[c]!, docs[c]!, score, doc)) break;
      docs[i] = docs[c]!;
      scores[i] = scores[c]!;
      i = c;
    }
    docs[i] = doc;
    scores[i] = score;
  }

  sorted(): { doc: number; score: number }[] {
    const out: { doc: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ doc: this.docs[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || this.idRank[a.doc]! - this.idRank[b.doc]!);
  }
}
