/**
 * The real `ContainerBuilder` over the Dagger TypeScript SDK, and the session connection.
 * Thin on purpose: every decision lives in plan.ts / run.ts, tested without an engine.
 *
 * Connecting: the SDK's `connect()` uses DAGGER_SESSION_PORT/DAGGER_SESSION_TOKEN from
 * `process.env` when they are set and otherwise *downloads the Dagger CLI* to provision an
 * engine. `openSdkSession` refuses to call it unless both are set, so no download can happen.
 */
import { connect, type Client, type Container } from "@dagger.io/dagger";
import type { ContainerBuilder, DaggerBackend } from "./run.ts";
import { asExecFailure } from "./run.ts";
import { daggerSessionProblem } from "./session.ts";

class SdkContainer implements ContainerBuilder {
  constructor(
    private readonly client: Client,
    private readonly c: Container,
  ) {}
  private next(c: Container): SdkContainer {
    return new SdkContainer(this.client, c);
  }
  from(image: string): ContainerBuilder {
    return this.next(this.c.from(image));
  }
  withMountedCache(path: string, volume: string): ContainerBuilder {
    return this.next(this.c.withMountedCache(path, this.client.cacheVolume(volume)));
  }
  withMountedDirectory(path: string, hostPath: string, opts: { readonly readOnly: boolean; readonly exclude?: readonly string[] }): ContainerBuilder {
    const dir = this.client.host().directory(hostPath, opts.exclude ? { exclude: [...opts.exclude] } : {});
    return this.next(this.c.withMountedDirectory(path, dir, { readOnly: opts.readOnly }));
  }
  withMountedFile(path: string, hostPath: string): ContainerBuilder {
    return this.next(this.c.withMountedFile(path, this.client.host().file(hostPath)));
  }
  withEnvVariable(name: string, value: string): ContainerBuilder {
    return this.next(this.c.withEnvVariable(name, value));
  }
  withSecretVariable(name: string, value: string): ContainerBuilder {
    return this.next(this.c.withSecretVariable(name, this.client.setSecret(`cspipe-${name}`, value)));
  }
  withGpus(devices: "all" | readonly string[]): ContainerBuilder {
    return this.next(devices === "all" ? this.c.experimentalWithAllGPUs() : this.c.experimentalWithGPU([...devices]));
  }
  withWorkdir(path: string): ContainerBuilder {
    return this.next(this.c.withWorkdir(path));
  }
  withServiceBinding(alias: string, port: number): ContainerBuilder {
    // A host service: the session's client (the `dagger run` CLI, on this machine) forwards
    // the container's connections to 127.0.0.1:port here, where the log receiver listens.
    const service = this.client.host().service([{ backend: port }], { host: "127.0.0.1" });
    return this.next(this.c.withServiceBinding(alias, service));
  }
  withExec(argv: readonly string[]): ContainerBuilder {
    return this.next(this.c.withExec([...argv]));
  }
  async combinedOutput(): Promise<string> {
    try {
      return await this.c.combinedOutput();
    } catch (e) {
      throw asExecFailure(e) ?? e;
    }
  }
  async exportFile(path: string, hostPath: string): Promise<void> {
    try {
      await this.c.file(path).export(hostPath);
    } catch (e) {
      throw asExecFailure(e) ?? e;
    }
  }
}

export interface SdkSession {
  readonly backend: DaggerBackend;
  close(): Promise<void>;
}

/**
 * Connect to the session `dagger run` / `dagger exec` opened. The SDK's `connect` only
 * lends the client inside its callback, so the callback stays pending until `close()`.
 */
export async function openSdkSession(sdkEnv: Readonly<Record<string, string | undefined>> = process.env): Promise<SdkSession> {
  const problem = daggerSessionProblem(sdkEnv);
  if (problem) throw new Error(problem);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let gotClient!: (c: Client) => void;
  let failed!: (e: Error) => void;
  const ready = new Promise<Client>((resolve, reject) => {
    gotClient = resolve;
    failed = reject;
  });
  const done = connect(async (client) => {
    gotClient(client);
    await released;
  }).catch((e: unknown) => failed(e instanceof Error ? e : new Error(String(e))));
  const client = await ready;
  // connect() only warns when the engine does not answer; fail here instead.
  let version: string;
  try {
    version = await client.version();
  } catch (e) {
    release();
    await done;
    throw new Error(`the Dagger session at 127.0.0.1:${sdkEnv.DAGGER_SESSION_PORT} does not answer: ${(e as Error).message}`);
  }
  return {
    backend: {
      container: () => new SdkContainer(client, client.container()),
      version: async () => version,
    },
    close: async () => {
      release();
      await done;
    },
  };
}
