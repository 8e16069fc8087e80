/**
 * Diagnostic for issue 12 defect 4 (not yet fixed): sweeps every code point through Lucene
 * 8.8.1's StandardTokenizer (test/peers/lucene, `sweep` mode, one Java run) and through
 * cspipe's wordbreak.ts, each code point substituted into a few contexts, and prints the
 * code-point ranges where the token spans differ.
 *
 *   npx tsx scripts/lucene-sweep.ts [--limit N]
 *
 * Measured 2026-11-23 on a loaded 2-core machine with the 8 contexts below: 32,659 code
 * points in 671 ranges differ (characters assigned after Unicode 9, which Lucene's JFlex
 * grammar uses, and emoji sequences such as "©" + a skin-tone modifier).
 */
import { luceneClasspath, luceneSweep, luceneVersion } from "../test/peers/lucene/peer.ts";
import { ourSweep, sweepDifferences } from "../test/sparse/sweep-runs.ts";

const X = "\u0000";
const SWEEP_CONTEXTS = [X, `a${X}a`, `1${X}1`, X + X, `\u{1F600}${X}`, `\u{1F44D}${X}`, `${X}\u{1F3FD}`, `\u200D${X}`];

const limitArg = process.argv.indexOf("--limit");
const limit = limitArg >= 0 ? Number(process.argv[limitArg + 1]) : 40;
const peer = luceneClasspath();
if (!("classpath" in peer)) {
  process.stderr.write(`Lucene peer unavailable: ${peer.missing}\n`);
  process.exit(2);
}
process.stdout.write(`Lucene ${luceneVersion(peer.classpath)}\n`);
const lucene = luceneSweep(peer.classpath, SWEEP_CONTEXTS);
const ours = ourSweep(SWEEP_CONTEXTS);
const diffs = sweepDifferences(ours, lucene, limit);
for (const d of diffs) process.stdout.write(`U+${d.cp.toString(16).toUpperCase().padStart(4, "0")}  ours ${d.ours}  lucene ${d.lucene}\n`);
process.stdout.write(diffs.length === 0 ? "no difference\n" : `first ${diffs.length} differing ranges shown\n`);
