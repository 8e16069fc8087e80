/**
 * The command as a user runs it: `./cspipe ...` (scripts/launch.mjs compiles the sources into
 * .cspipe/builds/ when they changed, then runs the build; with CSPIPE_DEFINITIONS outside the
 * built folders it runs the sources under tsx, as it would for a user's own definitions).
 * The launcher's one-line note that it compiled is dropped from stderr, so tests can compare
 * stderr exactly.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../engine/helpers.ts";

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fixture definitions (test/fixtures/engine/targets.ts: `chain`, `fan`). */
export const FIXTURE_TARGETS = join(ROOT, "test", "fixtures", "engine", "targets.ts");

const COMPILED_NOTE = /^cspipe: sources changed; compiled them in .*\n/m;

export function cspipe(args: readonly string[], options: { env?: Record<string, string>; cwd?: string; input?: string } = {}): CommandResult {
  const r = spawnSync(join(ROOT, "cspipe"), args, {
    cwd: options.cwd ?? ROOT,
    encoding: "utf8",
    env: { ...process.env, CSPIPE_TEST_SLEEP_MS: "0", ...options.env },
    ...(options.input !== undefined ? { input: options.input } : {}),
    maxBuffer: 64 << 20,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.replace(COMPILED_NOTE, "") };
}

/** `./cspipe <args> | <pipe>` in bash with pipefail: the pipeline's status and cspipe's stderr. */
export function cspipePiped(args: readonly string[], pipe: string, env: Record<string, string> = {}): CommandResult {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
  const r = spawnSync("bash", ["-o", "pipefail", "-c", `./cspipe ${quoted} | ${pipe}`], { cwd: ROOT, encoding: "utf8", env: { ...process.env, CSPIPE_TEST_SLEEP_MS: "0", ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.replace(COMPILED_NOTE, "") };
}
