/**
 * Runs the Lucene 8 peer (LuceneBm25.java) with Java's single-file launcher.
 * Jars: $LUCENE_JARS (a classpath) or Debian's liblucene8-java under /usr/share/java
 * (the package names its jars lucene-core-8.x.jar and lucene-analyzers-common-8.x.jar).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../tmp.ts";

const SOURCE = new URL("./LuceneBm25.java", import.meta.url).pathname;

let found: { classpath: string } | { missing: string } | undefined;

/** The classpath, or a reason why the peer cannot run (looked up once per process). */
export function luceneClasspath(): { classpath: string } | { missing: string } {
  return (found ??= findClasspath());
}

function findClasspath(): { classpath: string } | { missing: string } {
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

/** The serial collector: the peer is single-threaded and CI machines are small. */
const JAVA_FLAGS = ["-XX:+UseSerialGC"];

/**
 * The classpath for a live-peer test, or null after marking the test skipped. In CI (CI=true,
 * where setup.sh installs Java and Lucene) a missing peer throws: the test fails, never skips.
 */
export function peerOrSkip(t: { skip: (message?: string) => void }): string | null {
  const peer = luceneClasspath();
  if ("classpath" in peer) return peer.classpath;
  if (process.env["CI"] === "true") throw new Error(`Lucene peer unavailable in CI: ${peer.missing}`);
  t.skip(`Lucene peer unavailable: ${peer.missing}`);
  return null;
}

function run(classpath: string, args: string[]): string {
  const r = spawnSync("java", [...JAVA_FLAGS, "-cp", classpath, SOURCE, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
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

/** A run of code points whose filled templates tokenize to the same signature. */
export interface SweepRun {
  readonly first: number;
  readonly last: number;
  /** Tokens as "start-end:type" joined by "," (code point offsets; type indexes TOKEN_TYPES). */
  readonly spans: string;
}

/** U+0000 in a template marks where each code point goes. */
export const SWEEP_PLACEHOLDER = "\u0000";

function parseRuns(out: string): SweepRun[] {
  return out
    .trimEnd()
    .split("\n")
    .map((l) => {
      const [a, b, spans] = l.split(" ");
      return { first: Number(a), last: Number(b), spans: spans ?? "" };
    });
}

/**
 * Lucene's StandardTokenizer on every code point in [first, last] (surrogates as lone code units),
 * each substituted into every template, the filled templates joined by one space. One Java run.
 */
export function luceneSweep(classpath: string, templates: readonly string[], first = 0, last = 0x10ffff): SweepRun[] {
  return withTemp((dir) => {
    const file = join(dir, "templates.b64");
    writeFileSync(file, templates.map(b64).join("\n") + "\n");
    return parseRuns(run(classpath, ["sweep", file, String(first), String(last)]));
  });
}

/** The generated scanner's character classes (StandardTokenizerImpl.ZZ_CMAP) as runs "first last class". */
export function luceneCmap(classpath: string): { first: number; last: number; cls: number }[] {
  return run(classpath, ["cmap"])
    .trimEnd()
    .split("\n")
    .map((l) => {
      const [a, b, c] = l.split(" ").map(Number);
      return { first: a!, last: b!, cls: c! };
    });
}

export interface ParityRequest {
  /** Sweep templates (every code point). */
  readonly probes: readonly string[];
  /** Analyzer-chain templates (every code point, hashed). */
  readonly chain: readonly string[];
  /** Texts whose typed token signatures are wanted. */
  readonly texts: readonly string[];
  /** Texts whose Anserini terms are wanted. */
  readonly sentences: readonly string[];
}

export interface ParityResult {
  readonly runs: SweepRun[];
  /** Per code point: FNV-1a of its chain text's Anserini terms (see termsHash). */
  readonly termHashes: Int32Array;
  /** Signatures of `texts`, as in SweepRun.spans. */
  readonly texts: string[];
  readonly sentences: string[][];
}

/** FNV-1a (32 bits) over each term's UTF-16 units, each term followed by the separator 0x10000 (as the peer). */
export function termsHash(terms: readonly string[]): number {
  let h = 0x811c9dc5 | 0;
  for (const t of terms) {
    for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
    h = Math.imul(h ^ 0x10000, 0x01000193);
  }
  return h;
}

/**
 * Everything the parity test asks Lucene, in one Java run (`parity` mode). Asynchronous, so the
 * caller computes its own side while Java works.
 */
export async function luceneParity(classpath: string, req: ParityRequest): Promise<ParityResult> {
  const dir = tempDir("cspipe-lucene-");
  try {
    const put = (name: string, texts: readonly string[]): void => writeFileSync(join(dir, name), texts.map(b64).join("\n") + "\n");
    put("probes.b64", req.probes);
    put("chain.b64", req.chain);
    put("texts.b64", req.texts);
    put("sentences.b64", req.sentences);
    await new Promise<void>((resolve, reject) => {
      const child = spawn("java", [...JAVA_FLAGS, "-cp", classpath, SOURCE, "parity", dir], { stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`java LuceneBm25 parity failed (${code}): ${stderr}`))));
    });
    const lines = (name: string): string[] => readFileSync(join(dir, name), "utf8").replace(/\n$/, "").split("\n");
    const bin = readFileSync(join(dir, "terms.bin"));
    return {
      runs: parseRuns(readFileSync(join(dir, "runs.txt"), "utf8")),
      termHashes: new Int32Array(bin.buffer, bin.byteOffset, bin.byteLength / 4),
      texts: req.texts.length === 0 ? [] : lines("texts.txt"),
      sentences: req.sentences.length === 0 ? [] : lines("sentences.txt").map((l) => JSON.parse(l) as string[]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Lucene's version as the jars report it (org.apache.lucene.util.Version.LATEST). */
export function luceneVersion(classpath: string): string {
  return run(classpath, ["version"]).trim();
}
