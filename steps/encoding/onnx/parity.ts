/**
 * ONNX parity, checked where it matters: before an encode step encodes a collection with a
 * model's ONNX encoder, the fixtures the trainer's export wrote beside it
 * (`parity/<encoder>/{input_ids,attention_mask,token_type_ids,embedding}.npy`: torch's
 * float32 output on a few rows of varied lengths and token types) go through the same
 * onnxruntime-node session, and a difference above the tolerance stops the step, naming the
 * model, the difference and the fix. Every model the pipeline encodes with comes from the
 * trainer's export (training, or the export-only import of DPR-NQ), which always writes the
 * fixtures, so a model without them is refused too: a damaged or hand-assembled model
 * directory must not be encoded unchecked. ONNX files a user brings to `diagnose
 * --dense-model` cannot have fixtures: that command asks for `parity: "if-present"`, which
 * checks fixtures when they exist and otherwise says in the log that the encoder is unverified.
 * One core (`verifyParity`) checks every graph the pipeline encodes with: DPR's query and passage
 * encoders, DCSR's query encoder (a DPR query encoder) and DCSR's sentence encoder.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { readNpy } from "../../lib/npy.ts";
import { ENCODER_INPUTS, ENCODER_OUTPUT, openEncoder, type EncoderSessionOptions } from "./session.ts";

/** The trainer's own tolerance (steps/training/dpr/onnx_export.py PARITY_ATOL). */
export const PARITY_ATOL = 1e-4;

export type EncoderName = "query_encoder" | "passage_encoder";

/** What an encode step does about a model without fixtures: refuse it (the pipeline's models), or encode with a note (a user's ONNX files). */
export const PARITY_POLICIES = ["required", "if-present"] as const;
export type ParityPolicy = (typeof PARITY_POLICIES)[number];

/**
 * What one graph's parity fixture holds: `parity/<name>/<input>.npy` for each input (int64
 * [rows, n]) and `parity/<name>/<output>.npy` (torch's float32 output, any rank), beside
 * `<name>.onnx`. DPR's encoders follow ENCODER_CONTRACT; DCSR's sentence encoder has its own
 * (steps/dcsr/onnx-sentences.ts), checked by the same code.
 */
export interface ParityContract {
  readonly name: string;
  readonly inputs: readonly string[];
  readonly output: string;
}

/** The contract of a DPR encoder's fixture (the trainer's onnx_export.py). */
export const encoderContract = (encoder: EncoderName): ParityContract => ({ name: encoder, inputs: ENCODER_INPUTS, output: ENCODER_OUTPUT });

export interface ParityCheck {
  /** The graph checked: query_encoder, passage_encoder, sentence_encoder. */
  readonly encoder: string;
  /** Undefined when the model has no fixtures (policy "if-present" only). */
  readonly maxAbsDiff?: number;
  readonly rows: number;
  readonly note: string;
}

/** Largest absolute difference of two equally long vectors (pure); NaN anywhere counts as infinite. */
export function maxAbsDiff(got: ArrayLike<number>, want: ArrayLike<number>): number {
  if (got.length !== want.length) throw new Error(`length ${got.length} vs ${want.length}`);
  let m = 0;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(got[i]! - want[i]!);
    if (Number.isNaN(d)) return Infinity;
    if (d > m) m = d;
  }
  return m;
}

export function parityDir(modelDir: string, name: string): string {
  return join(modelDir, "parity", name);
}

/** The fixture's inputs as int64 tensors and its expected float32 output with its shape ([rows, ...]). */
export function readParityFixture(dir: string, contract: Pick<ParityContract, "inputs" | "output">): { feeds: Record<string, ort.Tensor>; want: Float32Array; shape: readonly number[] } {
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of contract.inputs) {
    const file = join(dir, `${name}.npy`);
    if (!existsSync(file)) throw new InputError("parity fixture incomplete", { file, fix: "re-export the model (the trainer writes every fixture file)" });
    const a = readNpy(file);
    if (a.dtype !== "int64" || a.shape.length !== 2) throw new InputError(`expected int64 [rows, n], got ${a.dtype} [${a.shape.join(", ")}]`, { file, fix: "re-export the model" });
    feeds[name] = new ort.Tensor("int64", a.data as BigInt64Array, a.shape);
  }
  const file = join(dir, `${contract.output}.npy`);
  if (!existsSync(file)) throw new InputError("parity fixture incomplete", { file, fix: "re-export the model (the trainer writes every fixture file)" });
  const want = readNpy(file);
  if (want.dtype !== "float32" || want.shape.length < 2) throw new InputError(`expected float32 [rows, ...], got ${want.dtype} [${want.shape.join(", ")}]`, { file, fix: "re-export the model" });
  return { feeds, want: want.data as Float32Array, shape: want.shape };
}

/**
 * Runs the fixture of `contract` in `modelDir` through `session` (the session that will
 * encode) and throws an InputError, naming `onnxFile` and the fix, when the output differs
 * from torch's by `atol` or more, or when the model has no fixture (policy "required").
 */
export async function verifyParity(session: ort.InferenceSession, modelDir: string, contract: ParityContract, opts: { onnxFile?: string; atol?: number; policy?: ParityPolicy } = {}): Promise<ParityCheck> {
  const { name } = contract;
  const atol = opts.atol ?? PARITY_ATOL;
  const onnxFile = opts.onnxFile ?? join(modelDir, `${name}.onnx`);
  const dir = parityDir(modelDir, name);
  if (!existsSync(dir) && opts.policy === "if-present") return { encoder: name, rows: 0, note: `${name}: no parity fixtures in ${dir}; the ONNX encoder is used unverified (parity: if-present)` };
  if (!existsSync(dir)) {
    throw new InputError(`the model has no ONNX parity fixtures for ${name}, so its ONNX encoder cannot be checked against the torch model it was exported from`, {
      file: dir,
      fix: `export the model with cspipe's trainer (train.py and train_dcsr.py write parity/${name}/ beside ${name}.onnx; DPR's epochs 0 exports an existing checkpoint)`,
    });
  }
  const fx = readParityFixture(dir, contract);
  const result = await session.run(fx.feeds);
  try {
    const out = result[contract.output];
    if (out === undefined || out.type !== "float32" || out.dims.length !== fx.shape.length || out.dims.some((d, i) => d !== fx.shape[i])) {
      throw new InputError(`${name}.onnx gives ${out?.type} [${out?.dims.join(", ")}] on the parity fixture, torch gave float32 [${fx.shape.join(", ")}]`, {
        file: onnxFile,
        fix: "re-export the model from the same weights",
      });
    }
    const diff = maxAbsDiff(out.data as Float32Array, fx.want);
    if (!(diff < atol)) {
      throw new InputError(`${name}.onnx differs from the torch model it was exported from: max abs diff ${diff.toPrecision(3)} on the parity fixture (tolerance ${atol})`, {
        file: onnxFile,
        fix: "re-export the encoder (a different onnxruntime or a damaged file can cause this); do not encode with it",
      });
    }
    return { encoder: name, maxAbsDiff: diff, rows: fx.shape[0]!, note: `${name}: ONNX parity ok, max abs diff ${diff.toPrecision(3)} < ${atol} on ${fx.shape[0]} fixture rows` };
  } finally {
    for (const v of Object.values(result)) v.dispose();
  }
}

/** verifyParity for a DPR encoder (query_encoder, passage_encoder). */
export async function verifyOnnxParity(session: ort.InferenceSession, modelDir: string, encoder: EncoderName, atol = PARITY_ATOL, policy: ParityPolicy = "required"): Promise<ParityCheck> {
  return verifyParity(session, modelDir, encoderContract(encoder), { atol, policy });
}

/** As verifyOnnxParity, with a session of its own on `<modelDir>/<encoder>.onnx` (released after). */
export async function verifyOnnxParityOfModel(modelDir: string, encoder: EncoderName, opts: EncoderSessionOptions = {}, atol = PARITY_ATOL, policy: ParityPolicy = "required"): Promise<ParityCheck> {
  const enc = await openEncoder(join(modelDir, `${encoder}.onnx`), opts);
  try {
    return await verifyOnnxParity(enc.session, modelDir, encoder, atol, policy);
  } finally {
    await enc.session.release();
  }
}
