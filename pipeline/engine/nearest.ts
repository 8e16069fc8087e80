/**
 * "Did you mean": the known names closest to a mistyped one (targets, steps, commands), so an
 * error names the likely fix instead of listing everything.
 */

/** Edit distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/**
 * At most `n` known names near `name` (ties by name): those at the smallest edit distance, if it
 * is within a third of the name's length (at least 1), then those containing it (`table2` finds
 * `table2-bm25`), shortest first.
 */
export function nearestNames(name: string, known: readonly string[], n = 3): string[] {
  const limit = Math.max(1, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const others = known.filter((k) => k !== name);
  const distances = others.map((k) => ({ k, d: editDistance(lower, k.toLowerCase()) }));
  const best = Math.min(...distances.map((x) => x.d));
  const close = best <= limit ? distances.filter((x) => x.d === best).map((x) => x.k).sort(byName) : [];
  const related = name.length < 3 ? [] : others.filter((k) => !close.includes(k) && k.toLowerCase().includes(lower)).sort((a, b) => a.length - b.length || byName(a, b));
  return [...close, ...related].slice(0, n);
}

/** "; did you mean 'a', 'b' or 'c'?" (empty when nothing is near). */
export function didYouMean(name: string, known: readonly string[], n = 3): string {
  const quoted = nearestNames(name, known, n).map((k) => `'${k}'`);
  if (quoted.length === 0) return "";
  return `; did you mean ${quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`}?`;
}
