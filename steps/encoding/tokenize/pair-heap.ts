/**
 * Max-heap of symbol pairs for the WordPiece/BPE trainer: highest count first, ties broken by
 * the pair's strings (left then right, JavaScript string order) so training is deterministic.
 * Entries go stale when counts change; the trainer pushes a fresh entry and skips stale ones.
 */
export interface PairEntry {
  readonly count: number;
  readonly a: number;
  readonly b: number;
}

export class PairHeap {
  private readonly items: PairEntry[] = [];
  constructor(private readonly symbols: readonly string[]) {}

  get size(): number {
    return this.items.length;
  }

  /** true when x should come out before y */
  private before(x: PairEntry, y: PairEntry): boolean {
    if (x.count !== y.count) return x.count > y.count;
    const xa = this.symbols[x.a]!;
    const ya = this.symbols[y.a]!;
    if (xa !== ya) return xa < ya;
    return this.symbols[x.b]! < this.symbols[y.b]!;
  }

  push(e: PairEntry): void {
    const h = this.items;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  pop(): PairEntry | undefined {
    const h = this.items;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.before(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
