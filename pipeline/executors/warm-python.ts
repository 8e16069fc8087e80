/**
 * Warm interpreters for the local executor's Python program steps. Every program step used to
 * start a fresh `python3` that imported torch and numpy (about 1.5-2 s, on a mini run's 250
 * program steps that are mostly a few seconds long); now a zygote (warm/zygote.py) imports a step's
 * modules once per run and forks each program from that state, and the executor starts a small
 * stand-in (warm/client.py) in the program's place, which ends as the program ends and passes
 * signals on. The bytes a program computes are the same either way (test/executors/warm-python.test.ts
 * trains through both and compares weights), so the warm path is not part of any key.
 *
 * Which steps: Python programs run as `python3 <path> ...` that were given no GPU and compute on
 * one thread (a zygote that never started an OpenMP pool or a CUDA context forks safely; a GPU
 * step starts cold, as its start is nothing beside its work). A zygote serves the steps whose environment equals its own but for the variables that
 * nothing reads at import (`PER_RUN_VARIABLES`): so a library that reads its kernels or threads
 * when it loads reads the step's values. `CSPIPE_WARM_PYTHON=0` turns it off. When a zygote
 * cannot start, or goes away before a program starts, the program starts cold: the warm path only
 * ever saves time.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../engine/canonical.ts";
import type { ContainerRuntime } from "../engine/step.ts";
import { IDENTITY_ENV } from "./program-env.ts";
import { stepThreads } from "./numerics/pins.ts";

const ZYGOTE = fileURLToPath(new URL("./warm/zygote.py", import.meta.url));
const CLIENT = fileURLToPath(new URL("./warm/client.py", import.meta.url));

/** Read by cspipe's programs when they run, never by a library at import: a step's own value reaches its program. */
export const PER_RUN_VARIABLES: readonly string[] = [IDENTITY_ENV, "CSPIPE_DEVICE_HINT"];

/** At most this many zygotes per executor (one per distinct environment and module list). */
const MAX_ZYGOTES = 4;
/** How long a zygote may take to import its modules before its steps start cold. */
const READY_TIMEOUT_MS = 120_000;

/**
 * Pure: why a step's program cannot be forked from a warm interpreter (undefined: it can).
 * `devices`: the GPUs the scheduler gave it. A step that may use a GPU but got none computes on
 * the CPU and forks (importing torch initialises no CUDA, so its child may still look for one).
 */
export function coldReason(argv: readonly string[], runtime: ContainerRuntime, env: Readonly<Record<string, string | undefined>>, devices?: readonly number[]): string | undefined {
  if (env.CSPIPE_WARM_PYTHON === "0") return "CSPIPE_WARM_PYTHON=0";
  if (argv.length < 2 || argv[1]!.startsWith("-")) return "not run as python3 <path>";
  if (runtime.gpu !== undefined && (devices?.length ?? 0) > 0) return "it was given a GPU";
  if (stepThreads(runtime) !== 1) return "it computes on more than one thread";
  return undefined;
}

/** Pure: which zygote may run a program: the interpreter, the modules it preloads and the environment libraries read at import. */
export function zygoteKey(python: string, modules: readonly string[], env: Readonly<Record<string, string>>): string {
  const atImport = Object.fromEntries(Object.entries(env).filter(([k]) => !PER_RUN_VARIABLES.includes(k)));
  return createHash("sha256").update(canonicalJson({ python, modules: [...modules], env: atImport })).digest("hex");
}

interface Zygote {
  readonly socket: string;
  readonly child: ChildProcess;
  /** False once it has exited (its steps then start cold for the rest of the run). */
  alive: boolean;
}

export class WarmPythons {
  private readonly zygotes = new Map<string, Promise<Zygote | undefined>>();
  /** Programs handed to a zygote so far (what tests and the benchmark check the warm path by). */
  handed = 0;

  /**
   * The argv to start in place of `argv` (a `python3 <path> ...` whose interpreter is argv[0]):
   * the stand-in talking to a ready zygote for this environment, else `argv` itself.
   */
  async argv(argv: readonly string[], modules: readonly string[], env: Readonly<Record<string, string>>): Promise<string[]> {
    const key = zygoteKey(argv[0]!, modules, env);
    let zygote = this.zygotes.get(key);
    if (zygote === undefined) {
      if (this.zygotes.size >= MAX_ZYGOTES) return [...argv];
      zygote = start(argv[0]!, modules, env);
      this.zygotes.set(key, zygote);
    }
    const z = await zygote;
    if (z === undefined || !z.alive) return [...argv];
    this.handed += 1;
    return [argv[0]!, "-S", "-E", CLIENT, z.socket, ...argv];
  }

  /** Stops accepting programs: each zygote exits once the programs it runs have ended. */
  async close(): Promise<void> {
    const all = [...this.zygotes.values()];
    this.zygotes.clear();
    for (const z of await Promise.all(all)) z?.child.stdin?.end();
  }
}

/** A zygote for `env` (undefined when it cannot start: its steps then start cold). */
function start(python: string, modules: readonly string[], env: Readonly<Record<string, string>>): Promise<Zygote | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "cspipe-warm-"));
  const socket = join(dir, "s");
  // Its own session: a terminal's Ctrl-C reaches the run, which stops its programs, not the zygote under them.
  const child = spawn(python, [ZYGOTE, socket, ...modules], { env, stdio: ["pipe", "pipe", "ignore"], detached: true });
  return new Promise((resolve) => {
    const zygote: Zygote = { socket, child, alive: true };
    let settled = false;
    const settle = (z: Zygote | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Node need not wait for a zygote: it exits at its stdin's EOF, when this process ends or close() ends it.
      child.unref();
      (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
      (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
      if (z === undefined) child.kill("SIGKILL");
      resolve(z);
    };
    const timer = setTimeout(() => settle(undefined), READY_TIMEOUT_MS);
    child.on("error", () => settle(undefined));
    child.on("exit", () => {
      zygote.alive = false;
      rmSync(dir, { recursive: true, force: true });
      settle(undefined);
    });
    child.stdin?.on("error", () => undefined);
    createInterface({ input: child.stdout! }).on("line", (l) => {
      if (l === "ready") settle(zygote);
    });
  });
}
