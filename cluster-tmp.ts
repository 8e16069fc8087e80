// Decompose the across-seed spread of a paired per-seed gain (model B - model A, same test set)
// into what independent per-conversation (cluster) effects would give, and the rest.
// usage: tsx cluster.ts <metric> <A1.parquet,A2,...> <B1.parquet,B2,...> [--conv regex]
import { asyncBufferFromFile, parquetReadObjects } from "hyparquet";
const [metric, as, bs] = process.argv.slice(2);
const convOf = (qid: string): string => { const m = /^(.*)_q#\d+$/.exec(qid) ?? /^(.*?)[_#-]\d+$/.exec(qid); return m ? m[1]! : qid; };
async function load(f: string): Promise<Map<string, number>> {
  const rows = await parquetReadObjects({ file: await asyncBufferFromFile(f) }) as Record<string, unknown>[];
  return new Map(rows.filter((r) => Number(r.n_gold) > 0).map((r) => [String(r.qid), Number(r[metric!])]));
}
const A = await Promise.all(as!.split(",").map(load)), B = await Promise.all(bs!.split(",").map(load));
const qids = [...A[0]!.keys()].sort();
const convs = new Map<string, string[]>();
for (const q of qids) { const c = convOf(q); (convs.get(c) ?? convs.set(c, []).get(c)!).push(q); }
const S = A.length, N = qids.length, C = convs.size;
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const sd = (x: number[]) => { const m = mean(x); return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1)); };
const gains = A.map((a, s) => mean(qids.map((q) => B[s]!.get(q)! - a.get(q)!)));
console.log(`${N} queries with gold in ${C} conversations, ${S} seeds; metric ${metric}`);
console.log(`A per seed ${A.map((a) => mean(qids.map((q) => a.get(q)!)).toFixed(4)).join(" / ")}`);
console.log(`B per seed ${B.map((b) => mean(qids.map((q) => b.get(q)!)).toFixed(4)).join(" / ")}`);
console.log(`gain per seed ${gains.map((g) => g.toFixed(4)).join(" / ")}: ${mean(gains).toFixed(4)} ± ${sd(gains).toFixed(4)}`);
// independent-cluster prediction: Var(g) = sum_c w_c^2 Var_s(d_{s,c}), w_c = n_c / N
let vClust = 0, vQuery = 0;
for (const qs of convs.values()) {
  const d = A.map((a, s) => mean(qs.map((q) => B[s]!.get(q)! - a.get(q)!)));
  vClust += (qs.length / N) ** 2 * sd(d) ** 2;
}
for (const q of qids) vQuery += sd(A.map((a, s) => B[s]!.get(q)! - a.get(q)!)) ** 2 / N ** 2;
console.log(`sd of the gain if seeds differed by independent per-conversation effects: ${Math.sqrt(vClust).toFixed(4)}; per-question: ${Math.sqrt(vQuery).toFixed(4)}`);
for (const [lab, X] of [["A", A], ["B", B]] as const) {
  let v = 0; for (const qs of convs.values()) v += (qs.length / N) ** 2 * sd(X.map((x) => mean(qs.map((q) => x.get(q)!)))) ** 2;
  console.log(`${lab}: observed sd over seeds ${sd(X.map((x) => mean(qids.map((q) => x.get(q)!)))).toFixed(4)}, independent-conversation prediction ${Math.sqrt(v).toFixed(4)}`);
}
