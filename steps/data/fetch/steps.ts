/**
 * `fetch-dataset`: one step per datasets.lock entry. It declares the entry (so the entry's
 * canonical digest enters its key: re-pinning a digest refetches exactly that entry) and
 * publishes the verified content as the directory output `files`:
 *
 * - `unpack: none`: the file itself, `files/<file>`;
 * - an archive: only the unpacked tree (`files/<provides...>`); the archive is deleted once
 *   the unpack succeeded, so a 27 GB zip does not cost its size twice in the store.
 *
 * Downloads go to the step's persistent scratch (`<store>/scratch/fetch-dataset/<entry>/`,
 * never part of an entry): a killed run leaves `.partial/<file>` there and the next run
 * resumes it with a Range request; a verified but not yet unpacked archive is reused too.
 *
 * Run settings (never in the key): `dataDir` (`--data-dir`: files placed by hand, found by
 * file name and verified by digest), `offline` (`--offline`: no network; fail at once with
 * the URL, the expected sha256 and how to place the file), `allowUnpinned`
 * (`--allow-unpinned`: accept an entry whose sha256 is null; otherwise the step fails when
 * it starts, telling the user to run `lock --update <name>`).
 */
import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { dir, type StepDef } from "../../../pipeline/engine/step.ts";
import { defineStepWith } from "../../../pipeline/engine/def-identity.ts";
import { fetchEntry, type FetchEntryOptions } from "./fetch-entry.ts";

export const FETCHED_KIND = "fetched";

const fetchOutputs = { files: dir(FETCHED_KIND, "files") };
const fetchParams = (entryName: string) => z.object({ entry: z.literal(entryName).default(entryName) }).strict();
type FetchParamsSchema = ReturnType<typeof fetchParams>;
export type FetchStepDef = StepDef<FetchParamsSchema, Record<string, never>, typeof fetchOutputs>;

/** Move a file, copying when source and target sit on different filesystems. */
async function moveFile(src: string, dst: string): Promise<void> {
  try {
    await rename(src, dst);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
    await copyFile(src, `${dst}.copying`);
    await rename(`${dst}.copying`, dst);
    await rm(src, { force: true });
  }
}

/** A `sleep` for retries that ends early (rejecting) when the run is cancelled. */
function abortableSleep(signal: AbortSignal): (ms: number) => Promise<void> {
  return (ms) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
}

/** `fetch` that also stops when the run is cancelled. */
function abortableFetch(signal: AbortSignal): typeof fetch {
  return (input, init) => fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal });
}

/**
 * The fetch step def of one lock entry (the entry's name is its identity, so targets that share
 * an entry share one step). Wire it with `lockedFiles(name)` from pipeline/definitions/datasets.ts.
 */
export function fetchStepDef(entryName: string): FetchStepDef {
  return defineStepWith({ entry: entryName }, {
    id: "fetch-dataset",
    version: 1,
    source: import.meta.url,
    description: `Fetch datasets.lock entry '${entryName}': verified, resumable download (or --data-dir), unpacked.`,
    params: fetchParams(entryName),
    inputs: {} as Record<string, never>,
    outputs: fetchOutputs,
    datasets: [entryName],
    runtime: {
      type: "in-process",
      async run(ctx) {
        const entry = ctx.datasets[entryName];
        if (entry === undefined) throw new Error(`fetch-dataset: entry '${entryName}' was not provided by the engine`);
        const work = join(ctx.scratchDir, entryName);
        const outDir = ctx.outputs.files;
        const options: FetchEntryOptions = {
          destDir: work,
          unpackDir: outDir,
          offline: ctx.settings.offline ?? false,
          allowUnpinned: ctx.settings.allowUnpinned ?? false,
          fetchImpl: abortableFetch(ctx.signal),
          sleep: abortableSleep(ctx.signal),
          onProgress: (done, total) => ctx.progress(done, total, entry.file),
        };
        if (ctx.settings.dataDir !== undefined) options.dataDir = ctx.settings.dataDir;
        const result = await fetchEntry(entryName, entry, options);
        ctx.log(`${entryName}: ${entry.file} sha256 ${result.sha256} (${result.size} bytes) from ${result.source}${result.from !== undefined ? ` ${result.from}` : ""}`);
        for (const note of result.notes) ctx.log(`note: ${note}`);
        await mkdir(outDir, { recursive: true });
        if (entry.unpack === "none") await moveFile(result.path, join(outDir, entry.file));
        else await rm(result.path, { force: true });
      },
    },
  });
}
