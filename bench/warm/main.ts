/**
 * What a Python program step costs to start, cold against forked from a warm interpreter
 * (pipeline/executors/warm-python.ts), with the floors measured in the same run: the
 * interpreter with nothing to import, and the stand-in alone. The program is the shape of every
 * mini program step: import torch and numpy, do nothing, exit. Each start goes through the same
 * `spawn` the local executor uses (own process group, output piped), one at a time.
 *
 *   npm run bench -- warm [--repeats 20] [--quick]   (--quick: 5 repeats)
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WarmPythons } from "../../pipeline/executors/warm-python.ts";
import { numericsEnv } from "../../pipeline/executors/numerics/pins.ts";
import { median, minimum, renderTable, type Series } from "../engine/stats.ts";

const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";
const args = process.argv.slice(2);
const at = args.indexOf("--repeats");
const repeats = at >= 0 ? Number(args[at + 1]) : args.includes("--quick") ? 5 : 20;

const dir = mkdtempSync(join(tmpdir(), "cspipe-bench-warm-"));
const program = join(dir, "program.py");
writeFileSync(program, "import torch, numpy\nprint(torch.__version__, numpy.__version__)\n");
const empty = join(dir, "empty.py");
writeFileSync(empty, "");
const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin", PYTHONUNBUFFERED: "1" };
for (const [k, v] of Object.entries(numericsEnv("pinned", 1))) if (v !== undefined) env[k] = v;

function once(argv: readonly string[]): Promise<number> {
  const t = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let err = "";
    child.stdout.resume();
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("close", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t) / 1e9) : reject(new Error(`${argv.join(" ")} exited ${code}: ${err}`))));
  });
}

async function series(label: string, argv: () => Promise<string[]> | string[]): Promise<Series> {
  await once(await argv()); // warm-up: page cache
  const seconds: number[] = [];
  for (let i = 0; i < repeats; i++) seconds.push(await once(await argv()));
  return { label, seconds };
}

const warm = new WarmPythons();
try {
  await warm.argv([PYTHON, program], ["torch", "numpy"], env);
  if (warm.handed !== 1) throw new Error("no warm interpreter could start (torch and numpy importable?)");
  const rows = [
    await series("cold: python3 program (imports torch, numpy)", () => [PYTHON, program]),
    await series("warm: stand-in + fork of a zygote", () => warm.argv([PYTHON, program], ["torch", "numpy"], env)),
    await series("floor: python3 empty.py", () => [PYTHON, empty]),
    await series("floor: the stand-in's own start (python3 -S -E empty.py)", () => [PYTHON, "-S", "-E", empty]),
  ];
  console.log(`${repeats} starts each, one at a time, ${PYTHON}, pinned kernels`);
  console.log(renderTable(rows));
  const [cold, hot] = [median(rows[0]!.seconds), median(rows[1]!.seconds)];
  console.log(`saved per program step: ${(cold - hot).toFixed(3)} s (median); cold/warm ratio ${(cold / hot).toFixed(1)}x; warm over the stand-in's floor: ${(hot - minimum(rows[3]!.seconds)).toFixed(3)} s`);
} finally {
  await warm.close();
}
