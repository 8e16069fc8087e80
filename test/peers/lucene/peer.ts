/**
 * Runs the Lucene 8 peer (LuceneBm25.java) with Java's single-file launcher.
 * Jars: $LUCENE_JARS (a classpath) or Debian's liblucene8-java under /usr/share/java
 * (the package names its jars lucene-core-8.x.jar and lucene-analyzers-common-8.x.jar).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../tmp.ts";

const SOURCE = new URL("./LuceneBm25.java", import.meta.url).pathname;

/** The classpath, or a reason why the peer cannot run. */
export function luceneClasspath(): { classpath: string } | { missing: string } {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error || java.status !== 0) return { missing: "java not found on PATH (apt-get install -y default-jre-headless)" };
  const env = process.env["LUCENE_JARS"];
  if (env) return { classpath: env };
  const dir = "/usr/share/java";
  const files = existsSync(dir) ? readdirSync(dir) : [];
  const core = files.find((f) => /^lucene8?-core-8[\d.]*\.jar$/.test(f) || f === "lucene8-core.jar");
  const common = files.find((f) => /^lucene8?-analyzers-common-8[\d.]*\.jar$/.test(f) || f === "lucene8-analyzers-common.jar");
  if (!core || !common) return { missing: "Lucene 8 jars not found in /usr/share/java (apt-get install -y liblucene8-java, or set LUCENE_JARS)" };
  return { classpath: `${join(dir, core)}:${join(dir, common)}` };
}

function run(classpath: string, args: string[]): string {
  const r = spawnSync("java", ["-cp", classpath, SOURCE, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`java LuceneBm25 ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

const b64 = (s: string): string => Buffer.from(s, "utf8").toString("base64");

function withTemp<T>(fn: (dir: string) => T): T {
  const dir = tempDir("cspipe-lucene-");
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type LuceneStage = "tokens" | "anserini" | "porter";

/** Lucene's output for each text: StandardTokenizer tokens, Anserini's analyzed terms, or Porter stems. */
export function luceneAnalyze(classpath: string, stage: LuceneStage, texts: readonly string[]): string[][] {
  return withTemp((dir) => {
    const file = join(dir, "texts.b64");
    writeFileSync(file, texts.map(b64).join("\n") + "\n");
    const lines = run(classpath, ["analyze", stage, file]).trimEnd().split("\n");
    return lines.map((l) => JSON.parse(l) as string[]);
  });
}

export interface LuceneRun {
  stats: { maxDoc: number; docCount: number; sumTotalTermFreq: number };
  hits: Map<string, [string, number][]>;
}

/** Indexes docs in the given order and runs the queries with BM25Similarity(k1, b), top k. */
export function luceneSearch(
  classpath: string,
  docs: readonly { id: string; text: string }[],
  queries: readonly { qid: string; text: string }[],
  opts: { k1: number; b: number; k: number },
): LuceneRun {
  return withTemp((dir) => {
    const d = join(dir, "docs.tsv");
    const q = join(dir, "queries.tsv");
    writeFileSync(d, docs.map((x) => `${x.id}\t${b64(x.text)}`).join("\n") + "\n");
    writeFileSync(q, queries.map((x) => `${x.qid}\t${b64(x.text)}`).join("\n") + "\n");
    const lines = run(classpath, ["search", d, q, String(opts.k1), String(opts.b), String(opts.k)]).trimEnd().split("\n");
    const first = JSON.parse(lines[0] ?? "{}") as { stats: LuceneRun["stats"] };
    const hits = new Map<string, [string, number][]>();
    for (const l of lines.slice(1)) {
      const o = JSON.parse(l) as { qid: string; hits: [string, number][] };
      hits.set(o.qid, o.hits);
    }
    return { stats: first.stats, hits };
  });
}

export function luceneStopwords(classpath: string): string[] {
  return JSON.parse(run(classpath, ["stopwords"])) as string[];
}

/** A run of code points whose filled templates tokenize to the same spans. */
export interface SweepRun {
  readonly first: number;
  readonly last: number;
  /** Token spans in code points, "start-end" joined by ",". */
  readonly spans: string;
}

/** U+0000 in a template marks where each code point goes. */
export const SWEEP_PLACEHOLDER = "\u0000";

/**
 * Lucene's StandardTokenizer on every code point in [first, last] (surrogates skipped), each
 * substituted into every template, the filled templates joined by one space. One Java run.
 */
export function luceneSweep(classpath: string, templates: readonly string[], first = 0, last = 0x10ffff): SweepRun[] {
  return withTemp((dir) => {
    const file = join(dir, "templates.b64");
    writeFileSync(file, templates.map(b64).join("\n") + "\n");
    const lines = run(classpath, ["sweep", file, String(first), String(last)]).trimEnd().split("\n");
    return lines.map((l) => {
      const [a, b, spans] = l.split(" ");
      return { first: Number(a), last: Number(b), spans: spans ?? "" };
    });
  });
}

/** Lucene's version as the jars report it (org.apache.lucene.util.Version.LATEST). */
export function luceneVersion(classpath: string): string {
  return run(classpath, ["version"]).trim();
}
