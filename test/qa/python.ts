/** Running the readers' Python programs from the tests: one interpreter start per batch of checks (torch imports slowly). */
import { spawnSync } from "node:child_process";
export { program } from "../training/python.ts";

export const PYTHON = process.env.CSPIPE_PYTHON ?? "/usr/bin/python3";

export function selftests(argv: readonly string[], items: readonly (readonly [string, unknown])[]): unknown[] {
  const r = spawnSync(PYTHON, [...argv, "batch"], { input: JSON.stringify(items), encoding: "utf8", timeout: 180_000 });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) throw new Error(`selftests failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as unknown[];
}
