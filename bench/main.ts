/**
 * Benchmark dispatcher: runs bench/<name>/main.ts for each name given (default: engine),
 * passing every argument from the first `--option` on to each benchmark.
 *
 *   npm run bench                          # bench/engine/main.ts
 *   npm run bench -- engine --repeats 3
 *   npm run bench -- --list                # the benchmarks that have a main.ts
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/** Folders of bench/ that hold a main.ts, sorted. */
export function discoverBenchmarks(dir: string = HERE): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "main.ts")))
    .map((d) => d.name)
    .sort();
}

/** Split argv into benchmark names (leading bare words) and the arguments passed on. */
export function splitArgs(argv: readonly string[]): { names: string[]; rest: string[] } {
  const i = argv.findIndex((a) => a.startsWith("-"));
  const cut = i === -1 ? argv.length : i;
  return { names: argv.slice(0, cut), rest: argv.slice(cut) };
}

function run(argv: readonly string[]): number {
  const known = discoverBenchmarks();
  const { names, rest } = splitArgs(argv);
  if (rest[0] === "--list") {
    process.stdout.write(`${known.join("\n")}\n`);
    return 0;
  }
  const chosen = names.length > 0 ? names : ["engine"];
  const unknown = chosen.filter((n) => !known.includes(n));
  if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(", ")}; known: ${known.join(", ")}`);
  let code = 0;
  for (const name of chosen) {
    process.stdout.write(`== bench/${name}/main.ts ${rest.join(" ")}\n`);
    const r = spawnSync(process.execPath, ["--import", "tsx", join(HERE, name, "main.ts"), ...rest], { stdio: "inherit" });
    if (r.status !== 0) code = r.status ?? 1;
  }
  return code;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = run(process.argv.slice(2));
