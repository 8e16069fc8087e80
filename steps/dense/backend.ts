/**
 * Which dense-search backend runs: faiss-node when its native addon loads, else the
 * TypeScript brute force. The choice is an explicit param (`auto` picks faiss when present)
 * and is always reported back with the reason, never silent.
 */
import { createRequire } from "node:module";

export type DenseBackend = "faiss" | "brute-force";
export type BackendChoice = DenseBackend | "auto";
export const BACKEND_CHOICES: readonly BackendChoice[] = ["auto", "faiss", "brute-force"];

/** The part of faiss-node's API this project uses (declared here: faiss-node may be absent). */
export interface FaissIndexHandle {
  ntotal(): number;
  getDimension(): number;
  add(x: number[]): void;
  search(x: number[], k: number): { distances: number[]; labels: number[] };
  write(fname: string): void;
  toBuffer(): Buffer;
}
export interface FaissModule {
  IndexFlatIP: {
    new (d: number): FaissIndexHandle;
    read(fname: string): FaissIndexHandle;
    fromBuffer(src: Buffer): FaissIndexHandle;
  };
}

export type FaissAvailability = { readonly available: true; readonly faiss: FaissModule } | { readonly available: false; readonly reason: string };

let cached: FaissAvailability | undefined;

/**
 * OpenMP threads for faiss when the user has not chosen (OMP_NUM_THREADS unset): 1. faiss's flat
 * search multiplies with OpenBLAS, which already uses every core, and runs its own top-k loops in
 * OpenMP threads; with both pools on every core they spin against each other (on 2 cores the
 * default used about 3x the CPU time of OMP_NUM_THREADS=1 for the same search; bench/dense).
 * libgomp reads the variable once, when faiss-node loads, so it is set only around the load.
 */
export const FAISS_DEFAULT_OMP_THREADS = "1";

/** Loads faiss-node once; never throws (the reason says why it is unavailable). */
export function faissAvailability(): FaissAvailability {
  if (cached !== undefined) return cached;
  const setOmp = process.env.OMP_NUM_THREADS === undefined;
  if (setOmp) process.env.OMP_NUM_THREADS = FAISS_DEFAULT_OMP_THREADS;
  try {
    const faiss = createRequire(import.meta.url)("faiss-node") as FaissModule;
    if (typeof faiss.IndexFlatIP?.read !== "function") throw new Error("faiss-node has no IndexFlatIP.read");
    cached = { available: true, faiss };
  } catch (err) {
    const msg = err instanceof Error ? err.message.split("\n")[0] : String(err);
    cached = { available: false, reason: `faiss-node is not usable (${msg}); build it with: bash scripts/setup-faiss.sh` };
  } finally {
    if (setOmp) delete process.env.OMP_NUM_THREADS;
  }
  return cached;
}

export interface ResolvedBackend {
  readonly backend: DenseBackend;
  /** One line saying why this backend was used, for logs and manifests. */
  readonly reason: string;
  readonly faiss?: FaissModule;
}

/** Resolves `auto`; throws when `faiss` is requested but unavailable (the message has the fix). */
export function resolveBackend(choice: BackendChoice, availability: FaissAvailability = faissAvailability()): ResolvedBackend {
  switch (choice) {
    case "brute-force":
      return { backend: "brute-force", reason: "brute-force requested" };
    case "faiss":
      if (!availability.available) throw new Error(`backend "faiss" requested but ${availability.reason}`);
      return { backend: "faiss", reason: "faiss requested", faiss: availability.faiss };
    case "auto":
      return availability.available
        ? { backend: "faiss", reason: "auto: faiss-node is available", faiss: availability.faiss }
        : { backend: "brute-force", reason: `auto: ${availability.reason}; using the TypeScript brute force (exact, slower)` };
    default:
      throw new Error(`unknown dense backend ${JSON.stringify(choice)}; use one of ${BACKEND_CHOICES.join(", ")}`);
  }
}
