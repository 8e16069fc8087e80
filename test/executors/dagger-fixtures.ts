/**
 * Fixtures shared by the Dagger executor tests (dagger.test.ts, dagger-plan.test.ts,
 * dagger-logs.test.ts): a representative container job and its mapped argv, and a recording
 * fake of the Dagger container interface whose export is a real tar.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerJob } from "../../pipeline/engine/executor.ts";
import type { ContainerRuntime } from "../../pipeline/engine/step.ts";
import { DaggerExecutor, type DaggerConnection } from "../../pipeline/executors/dagger.ts";
import type { ContainerBuilder } from "../../pipeline/executors/dagger/run.ts";
import { tempDir } from "../tmp.ts";

export const IMAGE = `python:3.11-slim@sha256:${"a".repeat(64)}`;
export const SECRET = "hf_s3cr3t-VALUE-42";

export function tmp(): string {
  return tempDir("cspipe-dagger-");
}

export const runtime: ContainerRuntime = {
  type: "container",
  image: IMAGE,
  argv: ["python3", "{src}/steps/training/train.py", "--passages", "{in:passages}", "--queries={in:queries}", "--run", "{out:run}", "--index", "{out:index}", "--params", "{params}", "--work", "{work}"],
  pythonModules: ["torch"],
  pip: ["numpy==1.26.4", "torch==2.2.0"],
  gpu: { count: 1, required: true },
  resources: { cpus: 4 },
  secrets: ["HF_TOKEN"],
};

/** A representative job; `root` holds store inputs, staging outputs and the work dir. */
export function makeJob(root: string, overrides: Partial<ContainerJob> = {}): ContainerJob & { lines: string[] } {
  const lines: string[] = [];
  return {
    step: "train-dpr",
    stepId: "train-dpr",
    key: "k".repeat(64),
    runtime,
    inputs: {
      passages: { path: `${root}/store/prep/outputs/passages`, dir: true },
      queries: { path: `${root}/store/q/outputs/queries.parquet`, dir: false },
    },
    outputs: {
      run: { path: `${root}/staging/outputs/runs/run.trec`, dir: false },
      index: { path: `${root}/staging/outputs/index`, dir: true },
    },
    paramsFile: `${root}/staging/work/params.json`,
    workDir: `${root}/staging/work`,
    sourceRoot: "/repo",
    env: { HF_HUB_OFFLINE: "1" },
    secrets: { HF_TOKEN: SECRET },
    settings: {},
    numerics: { device: "cuda" },
    signal: new AbortController().signal,
    onLine: (l: string) => lines.push(l),
    lines,
    ...overrides,
  };
}

export const ARGV = (r: string) => {
  void r;
  return [
    "python3",
    "/cspipe/src/steps/training/train.py",
    "--passages",
    "/cspipe/in/passages",
    "--queries=/cspipe/in/queries/queries.parquet",
    "--run",
    "/cspipe/out/runs/run.trec",
    "--index",
    "/cspipe/out/index",
    "--params",
    "/cspipe/params.json",
    "--work",
    "/cspipe/work",
  ];
};

// ---- a recording fake of the container interface -------------------------------------

export type Call = readonly [string, ...unknown[]];

export interface FakeBehaviour {
  /** Output of combinedOutput, or an error to throw. */
  run?: (calls: readonly Call[]) => string | Error;
  /** Make the exported file (default: a tar of `exportFrom`). */
  exportFrom?: string;
  exportError?: Error;
  /** Called instead of answering: the engine never answers combinedOutput. */
  hang?: () => void;
  /** Plays log_tee.py before combinedOutput answers; gets the stream's address when the chain has one. */
  stream?: (tee: TeeAddress | undefined) => Promise<void>;
}

export interface TeeAddress {
  readonly port: number;
  readonly token: string;
}

/** Where a recorded chain's log stream goes (the binding's port, the token env var). */
function teeAddress(calls: readonly Call[]): TeeAddress | undefined {
  const binding = calls.find((c) => c[0] === "withServiceBinding");
  const token = calls.find((c) => c[0] === "withEnvVariable" && c[1] === "CSPIPE_LOG_STREAM_TOKEN");
  if (!binding || !token) return undefined;
  return { port: binding[2] as number, token: token[2] as string };
}

class FakeContainer implements ContainerBuilder {
  constructor(
    readonly calls: readonly Call[],
    private readonly world: FakeWorld,
  ) {}
  private add(...call: Call): FakeContainer {
    return new FakeContainer([...this.calls, call], this.world);
  }
  from(image: string) {
    return this.add("from", image);
  }
  withMountedCache(path: string, volume: string) {
    return this.add("withMountedCache", path, volume);
  }
  withMountedDirectory(path: string, hostPath: string, opts: { readonly readOnly: boolean; readonly exclude?: readonly string[] }) {
    return this.add("withMountedDirectory", path, hostPath, opts);
  }
  withMountedFile(path: string, hostPath: string) {
    return this.add("withMountedFile", path, hostPath);
  }
  withEnvVariable(name: string, value: string) {
    return this.add("withEnvVariable", name, value);
  }
  withSecretVariable(name: string, value: string) {
    this.world.secretValues.set(name, value); // what the real SDK turns into setSecret(); kept out of the call record
    return this.add("withSecretVariable", name);
  }
  withGpus(devices: "all" | readonly string[]) {
    return this.add("withGpus", devices);
  }
  withWorkdir(path: string) {
    return this.add("withWorkdir", path);
  }
  withExec(argv: readonly string[]) {
    return this.add("withExec", [...argv]);
  }
  withServiceBinding(alias: string, port: number) {
    return this.add("withServiceBinding", alias, port);
  }
  async combinedOutput(): Promise<string> {
    this.world.evaluated.push(this.calls);
    if (this.world.behaviour.hang) {
      this.world.behaviour.hang();
      return new Promise<string>(() => {});
    }
    if (this.world.behaviour.stream) await this.world.behaviour.stream(teeAddress(this.calls));
    const r = this.world.behaviour.run?.(this.calls) ?? "";
    if (r instanceof Error) throw r;
    return r;
  }
  async exportFile(path: string, hostPath: string): Promise<void> {
    this.world.evaluated.push([...this.calls, ["exportFile", path, hostPath]]);
    if (this.world.behaviour.exportError) throw this.world.behaviour.exportError;
    const from = this.world.behaviour.exportFrom;
    if (!from) throw new Error("fake: nothing to export");
    const r = spawnSync("tar", ["-C", from, "-cf", hostPath, "."]);
    assert.equal(r.status, 0, String(r.stderr));
  }
}

export class FakeWorld {
  readonly evaluated: (readonly Call[])[] = [];
  readonly secretValues = new Map<string, string>();
  connects = 0;
  closes = 0;
  constructor(readonly behaviour: FakeBehaviour) {}
  connection(): DaggerConnection {
    this.connects++;
    return {
      backend: { container: () => new FakeContainer([], this), version: async () => "v0.21.9-fake" },
      close: async () => {
        this.closes++;
      },
    };
  }
}

export const TEE_SCRIPT = "/opt/cspipe/pipeline/executors/dagger/log_tee.py";

export function executor(world: FakeWorld, env: Record<string, string> = { CSPIPE_DAGGER_GPU: "1" }): DaggerExecutor {
  return new DaggerExecutor({
    env,
    connect: async () => world.connection(),
    hostGpuProbe: () => ({ ok: false, detail: "no probe in tests" }),
    logTeeScript: TEE_SCRIPT,
    logToken: () => "T0KEN",
  });
}

/** A directory as the container would leave /cspipe/out: declared outputs plus a stray file. */
export function containerOut(): string {
  const out = tmp();
  mkdirSync(join(out, "runs"));
  writeFileSync(join(out, "runs", "run.trec"), "q1 Q0 d1 1 2.5 dpr\n");
  mkdirSync(join(out, "index", "sub"), { recursive: true });
  writeFileSync(join(out, "index", "a.bin"), "AAAA");
  writeFileSync(join(out, "index", "sub", "b.bin"), "BB");
  writeFileSync(join(out, "stray.txt"), "not declared");
  return out;
}

/** Create the staging layout the engine creates before runContainer. */
export function stage(job: ContainerJob): void {
  mkdirSync(job.workDir, { recursive: true });
  writeFileSync(job.paramsFile, "{}\n");
  mkdirSync(join(job.outputs.run!.path, ".."), { recursive: true });
  mkdirSync(job.outputs.index!.path, { recursive: true });
}

export function execError(cmd: string[], exitCode: number, stdout: string, stderr: string): Error {
  // The SDK's ExecError, by shape (name, cmd, exitCode, stdout, stderr).
  return Object.assign(new Error(`process "${cmd.join(" ")}" did not complete successfully: exit code: ${exitCode}`), { name: "ExecError", cmd, exitCode, stdout, stderr });
}

/** Plays log_tee.py: connect to the receiver, send `text`, wait until `arrived`, then close. */
export async function teeSends(tee: TeeAddress | undefined, text: string, arrived: () => boolean): Promise<void> {
  assert.ok(tee, "the chain has a log stream");
  const s = connect(tee.port, "127.0.0.1");
  await once(s, "connect");
  s.write(`CSPIPE-LOG-STREAM 1 ${tee.token}\n${text}`);
  for (let i = 0; i < 3000 && !arrived(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(arrived(), "streamed lines reached the log before the exec finished");
  s.end();
  await once(s, "close");
}
