/**
 * `diagnose`: how much of a conversational dataset a retriever can solve without reading the current
 * question (the paper's shortcut analysis), as one cached command.
 *
 *   diagnose --conversations <turns.jsonl> --collection <file|dir> [--split all]
 *   diagnose --dataset qrecc|topiocqa|orquac (the registered datasets) [--data mini|real] [--split test]
 *            [--cutoffs 10,100] [--bootstrap 1000] [--seed 42] [--level 0.95] [--k1 K1 --b B]
 *            [--title T] [--out ./diagnosis] [--store DIR]
 *
 * BM25 (Lucene-exact) over q_t, X_t \ q_t and X_t, evaluated per turn; per question type the share of
 * X_t's recall kept without q_t and the share of turns solved without q_t, with bootstrap intervals.
 * Writes report.md, report.html and diagnosis.json into --out and prints the Markdown. Every part is
 * a cached step (user files by content), so a rerun is instant and a changed cutoff only re-renders.
 * Exit codes: 0 ok, 1 a step failed, 2 bad usage or bad input.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import type { StepRunIO } from "./run-steps.ts";
import type { AnyStep } from "../engine/step.ts";
import type { DenseModelFiles, DiagnosisBase, DiagnosisParams } from "../definitions/diagnose.ts";
import type { DatasetName } from "../../steps/data/schemas.ts";
import type { DataSource } from "../engine/targets.ts";
import type { Entry, Store } from "../engine/store.ts";
import { InputError } from "../engine/errors.ts";

interface DiagnoseFlags {
  conversations?: string;
  collection?: string;
  dataset?: DatasetName;
  data: DataSource;
  split?: string;
  cutoffs: string;
  bootstrap: number;
  seed: number;
  level: number;
  k1?: number;
  b?: number;
  title?: string;
  out: string;
  store?: string;
  threads: number;
  denseModel?: string;
  denseVocab?: string;
  dataDir?: string;
  allowUnpinned: boolean;
  json: boolean;
  verbose: boolean;
}

const num = (v: string): number => {
  const n = Number(v);
  if (v.trim() === "" || !Number.isFinite(n)) throw new InvalidArgumentError("must be a number");
  return n;
};

export function registerDiagnoseCommand(program: Command, io: StepRunIO, setExitCode: (code: number) => void): void {
  const dataset = new Option("--dataset <name>", "instead: a dataset cspipe reads");
  // The names are the dataset registry's, loaded only when diagnose is dispatched (the registry pulls in every parser).
  program.hook("preSubcommand", async (_program, sub) => {
    if (sub.name() === "diagnose") dataset.choices((await import("../../steps/data/datasets/registry.ts")).DATASETS);
  });
  program
    .command("diagnose")
    .description("shortcut exposure of a conversational dataset: how much BM25 over the history alone retrieves, per question type")
    .option("--conversations <file>", "conversations JSONL (one turn a line; README: Diagnosing a dataset)")
    .option("--collection <path>", "with --conversations: the passages (JSONL, TSV, a directory, gzip; as bm25 index)")
    .addOption(dataset)
    .addOption(new Option("--data <source>", "with --dataset: the mini benchmark or the real release").choices(["mini", "real"]).default("mini"))
    .option("--split <name>", "split to diagnose (default: all for --conversations, the paper's evaluation split for --dataset)")
    .option("--cutoffs <list>", "recall and success cutoffs k, comma-separated", "10,100")
    .option("--bootstrap <n>", "bootstrap resamples for the intervals", num, 1000)
    .option("--seed <n>", "bootstrap seed", num, 42)
    .option("--level <p>", "confidence level of the intervals", num, 0.95)
    .option("--k1 <k1>", "BM25 k1 (default 0.9, or the paper's value for --dataset)", num)
    .option("--b <b>", "BM25 b (default 0.4, or the paper's value for --dataset)", num)
    .option("--title <text>", "report title")
    .option("--out <dir>", "where report.md, report.html and diagnosis.json are written", "diagnosis")
    .option("--dense-model <dir>", "also diagnose a dense bi-encoder: a directory with query_encoder.onnx and passage_encoder.onnx (cspipe's model layout, optional config.json)")
    .option("--dense-vocab <file>", "the BERT vocab.txt the dense model was trained with (default: <dense-model>/vocab.txt)")
    .option("--store <dir>", "artifact store (default: $CSPIPE_STORE or ./artifacts)")
    .option("--threads <n>", "search threads for more than 256 turns (results do not depend on it)", num, 2)
    .option("--data-dir <dir>", "with --data real: dataset files placed by hand")
    .option("--allow-unpinned", "with --data real: accept datasets.lock entries without sha256", false)
    .option("--json", "JSON event lines on stderr", false)
    .option("--verbose", "print cache hits and step logs", false)
    .action(async (flags: DiagnoseFlags) => {
      try {
        setExitCode(await diagnoseCommand(io, flags));
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        io.stderr.write(`error: ${e.message}\n`);
        setExitCode(2);
      }
    });
}

/** The dense model's files, checked and hashed (the graph: pipeline/definitions/diagnose.ts). */
async function denseModelFiles(digestCache: string, modelDir: string, vocabFile: string | undefined): Promise<DenseModelFiles> {
  const { join, resolve } = await import("node:path");
  const { existsSync } = await import("node:fs");
  const { InputError } = await import("../engine/errors.ts");
  const { digestFiles } = await import("../../steps/files/digest-cache.ts");
  const { MODEL_FILES } = await import("../../steps/diagnose/dense-steps.ts");
  const dir = resolve(modelDir);
  const missing = MODEL_FILES.required.filter((f) => !existsSync(join(dir, f)));
  if (missing.length > 0) throw new InputError(`the dense model directory lacks ${missing.join(", ")}`, { file: dir, field: "--dense-model", fix: "export the encoders to ONNX as cspipe's trainer does (query_encoder.onnx, passage_encoder.onnx)" });
  const names = [...MODEL_FILES.required, ...MODEL_FILES.optional.filter((f) => existsSync(join(dir, f)))];
  const vocabPath = resolve(vocabFile ?? join(dir, "vocab.txt"));
  if (!existsSync(vocabPath)) throw new InputError("no vocabulary for the dense model", { file: vocabPath, field: "--dense-vocab", fix: "pass the BERT vocab.txt the model was trained with" });
  const paths = [...names.map((n) => join(dir, n)), vocabPath];
  const ids = await digestFiles(paths, digestCache);
  const files = names.map((name, i) => ({ name, sha256: ids[i]!.sha256, size: ids[i]!.size, path: paths[i]! }));
  return { files, vocab: { name: "vocab.txt", sha256: ids[names.length]!.sha256, size: ids[names.length]!.size, path: vocabPath } };
}

async function diagnoseCommand(io: StepRunIO, flags: DiagnoseFlags): Promise<number> {
  const { resolve } = await import("node:path");
  const { openProject, runProjectSteps } = await import("./run-steps.ts");
  const { diagnosis } = await import("../definitions/diagnose.ts");
  const cutoffs = checkedCutoffs(flags);
  const paths = await import("./paths.ts");
  paths.checkOutputDir(resolve(flags.out), "--out");
  const dataDir = paths.dataDirOf(flags);

  let steps: AnyStep[] = [];
  const project = await openProject(io, flags.store, () => steps, "diagnose");
  const digestCache = project.store.scratchDir("user-file-digests");
  const { base, params } = flags.dataset === undefined ? await userFilesBase(io, flags, cutoffs, digestCache) : await datasetBase(flags.dataset, flags, cutoffs);
  const dense = flags.denseModel === undefined ? undefined : await denseModelFiles(digestCache, flags.denseModel, flags.denseVocab);
  const render = diagnosis(base, params, flags.threads, dense);
  steps = [render];
  const settings = { ...(dataDir !== undefined ? { dataDir } : {}), allowUnpinned: flags.allowUnpinned };
  const r = await runProjectSteps(project, io, { target: "diagnose", json: flags.json, verbose: flags.verbose, settings });
  if (r.exitCode !== 0) return r.exitCode;
  await writeReports(io, project.store, r.entries.get(render.name)!, resolve(flags.out));
  return 0;
}

/** Either user files (both of them) or a dataset; the cutoffs as sorted distinct positive integers. */
function checkedCutoffs(flags: DiagnoseFlags): number[] {
  const user = flags.conversations !== undefined || flags.collection !== undefined;
  if (user === (flags.dataset !== undefined)) throw new InputError("give either --conversations with --collection, or --dataset", { field: "--conversations", fix: "see 'diagnose --help'" });
  if (user && (flags.conversations === undefined || flags.collection === undefined)) throw new InputError("--conversations and --collection go together", { field: flags.conversations === undefined ? "--conversations" : "--collection", fix: "pass both files" });
  const cutoffs = [...new Set(flags.cutoffs.split(",").map((c) => Number(c.trim())))].sort((a, b) => a - b);
  if (cutoffs.some((k) => !Number.isInteger(k) || k < 1)) throw new InputError(`cutoffs '${flags.cutoffs}' are not positive integers`, { field: "--cutoffs", fix: "e.g. --cutoffs 10,100" });
  return cutoffs;
}

/** The render step's params, validated: a bad --bootstrap, --seed, --level, --k1 or --b is an InputError. */
async function checkedParams(params: Record<string, unknown>): Promise<DiagnosisParams> {
  const { RENDER_PARAMS } = await import("../../steps/diagnose/steps.ts");
  const r = RENDER_PARAMS.safeParse(params);
  if (!r.success) throw new InputError(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "), { field: "options", fix: "check --bootstrap, --seed, --level (0..1), --k1 and --b (0..1)" });
  return r.data;
}

type Diagnosed = { base: DiagnosisBase; params: DiagnosisParams };

/** --conversations and --collection: the files hashed (by content, so a rerun is cached), BM25's defaults unless given. */
async function userFilesBase(io: StepRunIO, flags: DiagnoseFlags, cutoffs: number[], digestCache: string): Promise<Diagnosed> {
  const { resolve, basename } = await import("node:path");
  const { listCollection } = await import("../../steps/files/collection.ts");
  const { digestFiles } = await import("../../steps/files/digest-cache.ts");
  const { userDiagnosisBase } = await import("../definitions/diagnose.ts");
  const convPath = resolve(flags.conversations!);
  (await import("../../steps/lib/text.ts")).checkInputFile(convPath, "--conversations");
  const { files, skipped } = await listCollection(resolve(flags.collection!));
  if (skipped.length > 0) io.stderr.write(`skipped ${skipped.length} file(s) that are not .jsonl/.json/.tsv(.gz): ${skipped.slice(0, 5).join(", ")}\n`);
  const ids = await digestFiles([convPath, ...files.map((f) => f.path)], digestCache);
  const convFile = { name: basename(convPath), sha256: ids[0]!.sha256, size: ids[0]!.size, path: convPath };
  const collection = files.map((f, i) => ({ name: f.name, sha256: ids[i + 1]!.sha256, size: ids[i + 1]!.size, path: f.path }));
  const split = flags.split ?? "all";
  const params = await checkedParams({
    title: flags.title ?? `Shortcut exposure: ${convFile.name}`,
    source: [`conversations ${convFile.name} (sha256 ${convFile.sha256})`, ...collection.map((f) => `collection ${f.name} (sha256 ${f.sha256})`)],
    split,
    ...bootstrapParams(flags, cutoffs),
    k1: flags.k1 ?? 0.9,
    b: flags.b ?? 0.4,
  });
  return { base: userDiagnosisBase(convFile, collection, split), params };
}

/** --dataset: its evaluation split and the paper's BM25 values unless given. */
async function datasetBase(dataset: DatasetName, flags: DiagnoseFlags, cutoffs: number[]): Promise<Diagnosed> {
  const { EVAL_SETUP } = await import("../definitions/lexical.ts");
  const { BM25_PRESETS } = await import("../../steps/sparse/presets.ts");
  const { datasetDiagnosisBase } = await import("../definitions/diagnose.ts");
  const split = flags.split ?? EVAL_SETUP[dataset].split;
  const params = await checkedParams({
    title: flags.title ?? `Shortcut exposure: ${dataset} ${split} (${flags.data === "mini" ? "mini benchmark" : "real data"})`,
    source: [`dataset ${dataset}, split ${split}, ${flags.data === "mini" ? "the seeded mini benchmark" : "the real release (datasets.lock)"}`],
    split,
    ...bootstrapParams(flags, cutoffs),
    k1: flags.k1 ?? BM25_PRESETS[dataset].k1,
    b: flags.b ?? BM25_PRESETS[dataset].b,
  });
  return { base: datasetDiagnosisBase(dataset, flags.data, split), params };
}

const bootstrapParams = (flags: DiagnoseFlags, cutoffs: number[]) => ({ cutoffs, samples: flags.bootstrap, seed: flags.seed, level: flags.level });

/** Copy the render step's outputs into `out` (each through a temp file), print the text report, name the files on stderr. */
async function writeReports(io: StepRunIO, store: Store, entry: Entry, out: string): Promise<void> {
  const { join } = await import("node:path");
  const { mkdir, copyFile, rename, readFile } = await import("node:fs/promises");
  await mkdir(out, { recursive: true });
  for (const [output, name] of [["json", "diagnosis.json"], ["markdown", "report.md"], ["html", "report.html"]] as const) {
    const tmp = join(out, `.${name}.tmp-${process.pid}`);
    await copyFile(store.outputPath(entry, output), tmp);
    await rename(tmp, join(out, name));
  }
  const { renderText } = await import("../../steps/diagnose/render.ts");
  io.stdout.write(renderText(JSON.parse(await readFile(join(out, "diagnosis.json"), "utf8")) as Parameters<typeof renderText>[0]));
  io.stderr.write(`wrote ${join(out, "report.md")}, ${join(out, "report.html")}, ${join(out, "diagnosis.json")} (step key ${entry.key.slice(0, 12)})\n`);
}
