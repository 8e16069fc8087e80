/**
 * Collection preprocessing throughput (passages/s) and peak memory, on a generated
 * collection of N passages (default 1,000,000) in QReCC JSONL and TopiOCQA TSV form.
 *
 * Each variant runs in its own child process so its peak RSS (resourceUsage().maxRSS)
 * is its own:
 *   ours-jsonl / ours-tsv   steps/data/preprocess/collection.ts (streaming, dedupe, Parquet)
 *   peer-parse-jsonl        node:readline + JSON.parse only (the parse floor, no output)
 *   peer-inmemory-jsonl     read the whole file, parse all rows, one writeParquet call
 *                           (the non-streaming way; memory grows with the input)
 *
 * Usage: npx tsx bench/preprocess/collection.ts [--n 1000000] [--quick] [--only ours-jsonl,peer-parse-jsonl]
 * (--quick: 100,000 passages)
 * (generated files are cached in bench/out/preprocess/).
 */
import { spawnSync } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as arrow from "apache-arrow";
import * as pw from "parquet-wasm";
import { preprocessCollection } from "../../steps/data/preprocess/collection.ts";
import type { CollectionFormat } from "../../steps/data/preprocess/collection.ts";
import { rowsToRecordBatch } from "../../steps/lib/parquet.ts";
import { passagesSchema } from "../../steps/data/schemas.ts";
import type { PassageRow } from "../../steps/data/schemas.ts";

const OUT = join(fileURLToPath(new URL("../..", import.meta.url)), "bench", "out", "preprocess");

const WORDS = "the of and to in a is was for on as with by he at from his an were are which this be or has had first one their its new after who they two her she been other when time during there into school more may years over only year most would world city some where between later three state such then national used made known under many university united while part season team these american than film second born south became states war through being including both well".split(" ");

function passageText(i: number): string {
  // deterministic ~60-word passage
  let x = (i * 2654435761) >>> 0;
  const out: string[] = [];
  for (let k = 0; k < 60; k++) {
    x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + k) >>> 0;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(" ");
}

async function generate(n: number, withTsv: boolean): Promise<{ jsonl: string; tsv: string }> {
  mkdirSync(OUT, { recursive: true });
  const jsonl = join(OUT, `collection-${n}.jsonl`);
  const tsv = join(OUT, `collection-${n}.tsv`);
  if (!existsSync(jsonl)) {
    const fh = await open(jsonl, "w");
    for (let i = 0; i < n; i += 10_000) {
      let buf = "";
      for (let j = i; j < Math.min(n, i + 10_000); j++) buf += JSON.stringify({ id: `http://site${j % 997}.example.com/page${j}_p${j % 7}`, contents: passageText(j) }) + "\n";
      await fh.write(buf);
    }
    await fh.close();
  }
  if (withTsv && !existsSync(tsv)) {
    const fh = await open(tsv, "w");
    await fh.write("id\ttext\ttitle\n");
    for (let i = 0; i < n; i += 10_000) {
      let buf = "";
      for (let j = i; j < Math.min(n, i + 10_000); j++) buf += `${j + 1}\t${passageText(j)}\tArticle ${j % 5000} [SEP] Section ${j % 7}\n`;
      await fh.write(buf);
    }
    await fh.close();
  }
  return { jsonl, tsv };
}

interface Measure {
  variant: string;
  passages: number;
  seconds: number;
  maxRssMiB: number;
}

async function runVariant(variant: string, file: string): Promise<Measure> {
  const t0 = performance.now();
  let passages = 0;
  if (variant === "ours-jsonl" || variant === "ours-tsv") {
    const format: CollectionFormat = variant === "ours-jsonl" ? "qrecc-jsonl" : "topiocqa-tsv";
    const res = await preprocessCollection({ files: [file], format, outFile: join(OUT, `${variant}.parquet`) });
    passages = res.passages;
  } else if (variant === "peer-parse-jsonl") {
    const rl = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of rl) {
      if (line === "") continue;
      const o = JSON.parse(line) as { id: string; contents: string };
      if (o.id.length > 0) passages++;
    }
  } else if (variant === "peer-inmemory-jsonl") {
    const rows: PassageRow[] = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => {
        const o = JSON.parse(l) as { id: string; contents: string };
        return { id: o.id, title: null, text: o.contents };
      });
    const ids = new Set(rows.map((r) => r.id));
    if (ids.size !== rows.length) throw new Error("duplicates");
    const table = new arrow.Table([rowsToRecordBatch(passagesSchema(), rows)]);
    const bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(table, "stream")), new pw.WriterPropertiesBuilder().setCompression(pw.Compression.SNAPPY).build());
    writeFileSync(join(OUT, `${variant}.parquet`), bytes);
    passages = rows.length;
  } else throw new Error(`unknown variant ${variant}`);
  const seconds = (performance.now() - t0) / 1000;
  return { variant, passages, seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const child = args.indexOf("--child");
  if (child >= 0) {
    const m = await runVariant(args[child + 1]!, args[child + 2]!);
    process.stdout.write(`${JSON.stringify(m)}\n`);
    return;
  }
  const nIdx = args.indexOf("--n");
  const n = nIdx >= 0 ? Number(args[nIdx + 1]) : args.includes("--quick") ? 100_000 : 1_000_000;
  const onlyIdx = args.indexOf("--only");
  const only = onlyIdx >= 0 ? new Set(args[onlyIdx + 1]!.split(",")) : undefined;
  const files = await generate(n, only === undefined || [...only].some((v) => v.endsWith("tsv")));
  const mib = (f: string) => (existsSync(f) ? `${(statSync(f).size / 2 ** 20).toFixed(0)} MiB` : "not generated");
  console.log(`collection: ${n} passages; JSONL ${mib(files.jsonl)}, TSV ${mib(files.tsv)}`);
  const plan: [string, string][] = [
    ["ours-jsonl", files.jsonl],
    ["ours-tsv", files.tsv],
    ["peer-parse-jsonl", files.jsonl],
    ["peer-inmemory-jsonl", files.jsonl],
  ];
  const results: Measure[] = [];
  for (const [variant, file] of plan) {
    if (only !== undefined && !only.has(variant)) continue;
    const r = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--child", variant, file], { encoding: "utf8", maxBuffer: 1 << 24 });
    if (r.status !== 0) {
      console.log(`${variant}: failed (exit ${r.status}) ${r.stderr.split("\n").slice(-5).join(" ")}`);
      continue;
    }
    const m = JSON.parse(r.stdout.trim().split("\n").pop()!) as Measure;
    results.push(m);
    console.log(`${variant.padEnd(20)} ${m.passages} passages  ${m.seconds.toFixed(2)} s  ${Math.round(m.passages / m.seconds).toLocaleString("en")} passages/s  peak RSS ${m.maxRssMiB.toFixed(0)} MiB`);
  }
  const ours = results.find((r) => r.variant === "ours-jsonl");
  for (const peer of results.filter((r) => r.variant.startsWith("peer"))) {
    if (ours === undefined) break;
    console.log(`ours-jsonl vs ${peer.variant}: time ratio ${(ours.seconds / peer.seconds).toFixed(2)}x, peak RSS ratio ${(ours.maxRssMiB / peer.maxRssMiB).toFixed(2)}x`);
  }
}

await main();
