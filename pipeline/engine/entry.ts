/** A published store entry and its manifest (store.ts writes them; stamps.ts checks their bytes). */
export interface OutputRecord {
  readonly path: string;
  readonly kind: string;
  readonly dir: boolean;
  readonly digest: string;
  readonly size: number;
  readonly files: number;
}

export interface Manifest {
  readonly schema: 1;
  readonly key: string;
  readonly step: { readonly id: string; readonly version: number; readonly name: string };
  readonly outputs: Record<string, OutputRecord>;
  readonly timings: { readonly started: string; readonly finished: string; readonly seconds: number };
  readonly host: { readonly hostname: string; readonly platform: string; readonly arch: string; readonly cpus: number };
  readonly tools: Record<string, string>;
  readonly executor: string;
  readonly log: string;
}

export interface Entry {
  readonly stepId: string;
  readonly key: string;
  readonly dir: string;
  readonly manifest: Manifest;
}
