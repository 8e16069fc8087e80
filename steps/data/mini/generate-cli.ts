/**
 * Thin command-line adapter: `npx tsx steps/data/mini/generate-cli.ts <name> <outDir> [--scale N] [--seed N] [--entities N]`.
 * Writes one mini dataset and prints the files (for manual runs and the 1M-passage measurement).
 */
import { writeMiniDataset, MINI_DATASETS } from "./index.ts";
import type { MiniDatasetName } from "./index.ts";
import { InputError } from "../../../pipeline/engine/errors.ts";

async function main(argv: readonly string[]): Promise<void> {
  const [name, outDir, ...rest] = argv;
  if (name === undefined || outDir === undefined || !(MINI_DATASETS as readonly string[]).includes(name)) {
    throw new InputError("usage: generate-cli.ts <name> <outDir> [--scale N] [--seed N] [--entities N]", { fix: `name is one of ${MINI_DATASETS.join(", ")}` });
  }
  const overrides: Record<string, number> = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i] ?? "";
    const value = Number(rest[i + 1]);
    if (!["--scale", "--seed", "--entities"].includes(flag) || !Number.isInteger(value)) {
      throw new InputError(`bad option '${flag} ${rest[i + 1] ?? ""}'`, { fix: "use --scale N, --seed N or --entities N with integer N" });
    }
    overrides[flag.slice(2)] = value;
  }
  let last = -1;
  const { files } = await writeMiniDataset(name as MiniDatasetName, overrides, outDir, {
    onProgress: (done, total) => {
      const pct = total ? Math.floor((100 * done) / total) : 0;
      if (pct !== last && pct % 10 === 0) { last = pct; process.stderr.write(`passages ${done}/${total ?? "?"}\n`); }
    },
  });
  process.stdout.write(`${files.join("\n")}\n`);
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
