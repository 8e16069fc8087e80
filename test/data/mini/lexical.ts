/**
 * A tiny tf-idf retriever for the phenomenon tests (test helper, not a pipeline component):
 * lowercased [a-z0-9]+ tokens, a short stop list, score = sum over query terms of
 * qtf * idf * (1 + ln tf) / sqrt(doc length). Ties broken by passage id.
 */
const STOP = new Set(["the", "a", "an", "of", "in", "on", "at", "to", "and", "or", "is", "was", "did", "does", "do", "what", "which", "who", "whom", "when", "where", "how", "by", "for", "as", "it", "its", "he", "she", "his", "her", "they", "their", "about", "with", "from"]);

export function tokens(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((t) => !STOP.has(t));
}

export class TfIdf {
  private readonly postings = new Map<string, { doc: number; tf: number }[]>();
  private readonly norms: number[] = [];

  constructor(private readonly ids: readonly string[], texts: readonly string[]) {
    texts.forEach((text, doc) => {
      const tf = new Map<string, number>();
      const toks = tokens(text);
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let list = this.postings.get(t);
        if (list === undefined) { list = []; this.postings.set(t, list); }
        list.push({ doc, tf: n });
      }
      this.norms.push(Math.sqrt(Math.max(1, toks.length)));
    });
  }

  search(query: string, k: number): string[] {
    const qtf = new Map<string, number>();
    for (const t of tokens(query)) qtf.set(t, (qtf.get(t) ?? 0) + 1);
    const scores = new Map<number, number>();
    const n = this.ids.length;
    for (const [t, q] of qtf) {
      const list = this.postings.get(t);
      if (list === undefined) continue;
      const idf = Math.log(1 + n / list.length);
      for (const { doc, tf } of list) scores.set(doc, (scores.get(doc) ?? 0) + (q * idf * (1 + Math.log(tf))) / (this.norms[doc] ?? 1));
    }
    return [...scores.entries()]
      .map(([doc, s]) => ({ id: this.ids[doc] ?? "", s }))
      .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, k)
      .map((x) => x.id);
  }
}
