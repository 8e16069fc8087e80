/**
 * Opening an ONNX encoder with onnxruntime-node (thin adapter). Execution providers: CUDA then
 * CPU when the CUDA EP can run here, else CPU only; the choice is a pure function of probes so
 * it is testable without a GPU, and it is reported back.
 */
import { existsSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { nvidiaDeviceVisible, onnxCudaLibraryInstalled } from "../../../pipeline/engine/native-numerics.ts";

export type ProviderChoice = "auto" | "cpu" | "cuda";
export type ExecutionProvider = "cuda" | "cpu";

export interface ProviderProbe {
  /** onnxruntime-node's CUDA EP library is installed (its postinstall fetches it). */
  readonly cudaLibrary: boolean;
  /** An NVIDIA device node or driver is visible. */
  readonly nvidiaDevice: boolean;
}

/** Pure: the execution-provider list for a request and what this machine has. */
export function chooseProviders(choice: ProviderChoice, probe: ProviderProbe): { providers: ExecutionProvider[]; reason: string } {
  const cuda = probe.cudaLibrary && probe.nvidiaDevice;
  const why = !probe.cudaLibrary
    ? "onnxruntime-node's CUDA EP library is not installed (install without onnxruntime-node-install=skip on a CUDA machine)"
    : !probe.nvidiaDevice
      ? "no NVIDIA device is visible"
      : "CUDA EP available";
  switch (choice) {
    case "cpu":
      return { providers: ["cpu"], reason: "cpu requested" };
    case "cuda":
      if (!cuda) throw new InputError(`execution provider "cuda" requested but ${why}`, { field: "providers", fix: 'use providers "auto" or "cpu"' });
      return { providers: ["cuda", "cpu"], reason: "cuda requested" };
    case "auto":
      return cuda ? { providers: ["cuda", "cpu"], reason: "auto: CUDA EP available" } : { providers: ["cpu"], reason: `auto: cpu (${why})` };
    default:
      throw new InputError(`unknown execution provider choice ${JSON.stringify(choice)}`, { field: "providers", fix: "use auto, cpu or cuda" });
  }
}

/** Looks at this machine: the CUDA EP shared library inside onnxruntime-node, and /dev/nvidia* (the same facts keys record). */
export function probeProviders(): ProviderProbe {
  return { cudaLibrary: onnxCudaLibraryInstalled(), nvidiaDevice: nvidiaDeviceVisible() };
}

export interface EncoderSessionOptions {
  readonly providers?: ProviderChoice;
  /** Intra-op threads (default: onnxruntime's choice, all cores). */
  readonly intraOpThreads?: number;
}

export interface EncoderSession {
  readonly session: ort.InferenceSession;
  readonly providers: ExecutionProvider[];
  readonly reason: string;
}

export const ENCODER_INPUTS = ["input_ids", "attention_mask", "token_type_ids"] as const;
export const ENCODER_OUTPUT = "embedding";

/** Opens the model and checks it follows the encoder contract (input and output names). */
export async function openEncoder(modelPath: string, opts: EncoderSessionOptions = {}): Promise<EncoderSession> {
  if (!existsSync(modelPath)) throw new InputError("ONNX model not found", { file: modelPath, fix: "export the encoder first" });
  const { providers, reason } = chooseProviders(opts.providers ?? "auto", probeProviders());
  const sessionOpts: ort.InferenceSession.SessionOptions = {
    executionProviders: providers,
    graphOptimizationLevel: "all",
    interOpNumThreads: 1,
    ...(opts.intraOpThreads !== undefined ? { intraOpNumThreads: opts.intraOpThreads } : {}),
  };
  const session = await ort.InferenceSession.create(modelPath, sessionOpts);
  const missing = ENCODER_INPUTS.filter((n) => !session.inputNames.includes(n));
  if (missing.length > 0 || !session.outputNames.includes(ENCODER_OUTPUT)) {
    await session.release();
    throw new InputError(
      `model inputs [${session.inputNames.join(", ")}] / outputs [${session.outputNames.join(", ")}] do not follow the encoder contract`,
      { file: modelPath, fix: `export with inputs ${ENCODER_INPUTS.join(", ")} (int64 [batch, seq]) and output ${ENCODER_OUTPUT} (float32 [batch, hidden])` },
    );
  }
  return { session, providers, reason };
}
