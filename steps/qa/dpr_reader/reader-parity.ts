/**
 * The reader's ONNX parity, checked before it answers (as the encoders' is before they encode,
 * steps/encoding/onnx/parity.ts): the fixture train_reader.py's export wrote beside the graph
 * (`parity/reader/{input_ids,attention_mask}.npy`, int64 [rows, n], and torch's float32
 * `start_logits`, `end_logits` [rows, n] and `relevance_logits` [rows]) goes through the session
 * that will answer; an output of another shape, or a difference of PARITY_ATOL or more, or a
 * model without the fixture, stops the step with the file and the fix.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { InputError } from "../../../pipeline/engine/errors.ts";
import { readNpy } from "../../lib/npy.ts";
import { maxAbsDiff, PARITY_ATOL } from "../../encoding/onnx/parity.ts";
import { READER_INPUTS, READER_OUTPUTS } from "./predict.ts";

export interface ReaderParity {
  readonly maxAbsDiff: number;
  readonly rows: number;
  readonly note: string;
}

export async function verifyReaderParity(session: ort.InferenceSession, modelDir: string, atol = PARITY_ATOL): Promise<ReaderParity> {
  const dir = join(modelDir, "parity", "reader");
  const onnxFile = join(modelDir, "reader.onnx");
  const fix = "re-export the reader with train_reader.py (it writes parity/reader/ beside reader.onnx); do not answer with it";
  const read = (name: string) => {
    const file = join(dir, `${name}.npy`);
    if (!existsSync(file)) throw new InputError(`the reader has no ONNX parity fixture ${name}.npy, so reader.onnx cannot be checked against the torch model it was exported from`, { file, fix });
    return { file, ...readNpy(file) };
  };
  const feeds: Record<string, ort.Tensor> = {};
  let rows = 0;
  for (const name of READER_INPUTS) {
    const a = read(name);
    if (a.dtype !== "int64" || a.shape.length !== 2) throw new InputError(`expected int64 [rows, n], got ${a.dtype} [${a.shape.join(", ")}]`, { file: a.file, fix });
    feeds[name] = new ort.Tensor("int64", a.data as BigInt64Array, a.shape);
    rows = a.shape[0]!;
  }
  const got = await session.run(feeds);
  let worst = 0;
  for (const name of READER_OUTPUTS) {
    const want = read(name);
    const out = got[name];
    if (want.dtype !== "float32") throw new InputError(`expected float32, got ${want.dtype}`, { file: want.file, fix });
    if (out === undefined || out.type !== "float32" || out.dims.length !== want.shape.length || out.dims.some((d, i) => d !== want.shape[i])) {
      throw new InputError(`reader.onnx gives ${out?.type} [${out?.dims.join(", ")}] for ${name} on the parity fixture, torch gave float32 [${want.shape.join(", ")}]`, { file: onnxFile, fix });
    }
    const diff = maxAbsDiff(out.data as Float32Array, want.data as Float32Array);
    if (!(diff < atol)) throw new InputError(`reader.onnx differs from the torch reader it was exported from: ${name} max abs diff ${diff.toPrecision(3)} on the parity fixture (tolerance ${atol})`, { file: onnxFile, fix });
    worst = Math.max(worst, diff);
  }
  return { maxAbsDiff: worst, rows, note: `parity: reader.onnx matches torch on ${rows} fixture rows (max abs diff ${worst.toPrecision(3)} < ${atol})` };
}
