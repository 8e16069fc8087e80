/**
 * What `diagnose --dense-model` brings into the store by content, so the pipeline's own dense steps
 * (tokenize, ONNX encode, FAISS search; steps/encoding, steps/dense) run on it:
 *   import-dense-model        query_encoder.onnx + passage_encoder.onnx (+ config.json) -> dpr:model
 *   import-vocab-file         a BERT vocab.txt (checked as import-bert-vocab checks it) -> wordpiece:vocab
 *   read-collection-passages  the collection files -> parquet:passages (id, title, text), titles kept
 *                             apart for the passage encoder's text pair
 * Each file's sha256 is a param (the key holds no path) and is checked again while it is read.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { z } from "zod";
import { dir, file } from "../../pipeline/engine/step.ts";
import { defineStepWith } from "../../pipeline/engine/def-identity.ts";
import { InputError } from "../../pipeline/engine/errors.ts";
import { writeParquetFile } from "../lib/parquet.ts";
import { passagesSchema } from "../data/schemas.ts";
import { checkBertVocab } from "../encoding/import-vocab.ts";
import { writeVocabFile } from "../encoding/tokenize/vocab.ts";
import { writeTokenizerJson } from "../encoding/tokenize/bert-tokenizer-json.ts";
import { formatOfName, parseCollection } from "../files/collection.ts";
import { readHashedLines } from "../files/hashed-lines.ts";

const fileParam = z.object({ name: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/), size: z.number().int().nonnegative() }).strict();

/** The files a model directory must hold, and the optional one. */
export const MODEL_FILES = { required: ["query_encoder.onnx", "passage_encoder.onnx"], optional: ["config.json"] } as const;

function locate(locations: ReadonlyMap<string, string>, name: string): string {
  const p = locations.get(name);
  if (p === undefined) throw new Error(`no location for '${name}'`);
  return p;
}

/** Copies `from` to `to`, hashing the bytes read; InputError when they are not `sha256`. */
async function copyChecked(from: string, to: string, sha256: string): Promise<void> {
  const h = createHash("sha256");
  const out = createWriteStream(to);
  for await (const chunk of createReadStream(from, { highWaterMark: 1 << 22 })) {
    h.update(chunk as Buffer);
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  const got = h.digest("hex");
  if (got !== sha256) throw new InputError(`changed after it was hashed (sha256 ${got}, expected ${sha256})`, { file: from, fix: "leave the model files unchanged while the command runs, then rerun" });
}

export function importDenseModelDef(locations: ReadonlyMap<string, string>) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "import-dense-model",
    version: 1,
    source: import.meta.url,
    description: "A bi-encoder's ONNX query and passage encoders (cspipe's model layout) as a dpr:model.",
    params: z.object({ files: z.array(fileParam).min(2) }).strict(),
    inputs: {},
    outputs: { model: dir("dpr:model", "model") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        for (const f of ctx.params.files) await copyChecked(locate(locations, f.name), join(ctx.outputs.model, f.name), f.sha256);
      },
    },
  });
}

export function importVocabFileDef(locations: ReadonlyMap<string, string>) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "import-vocab-file",
    version: 1,
    source: import.meta.url,
    description: "A BERT vocab.txt (checked) as a wordpiece:vocab with its tokenizer.json.",
    params: z.object({ file: fileParam }).strict(),
    inputs: {},
    outputs: { vocab: dir("wordpiece:vocab", "vocab") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const path = locate(locations, ctx.params.file.name);
        const lines: string[] = [];
        for await (const b of readHashedLines(path, { sha256: ctx.params.file.sha256 })) lines.push(...b.lines);
        const { vocab } = checkBertVocab(lines.join("\n") + "\n", path);
        writeVocabFile(join(ctx.outputs.vocab, "vocab.txt"), vocab.tokens);
        writeTokenizerJson(ctx.outputs.vocab, vocab);
        ctx.log(`${vocab.tokens.length} tokens, sha256 ${vocab.digest}`);
      },
    },
  });
}

export function readCollectionPassagesDef(locations: ReadonlyMap<string, string>) {
  return defineStepWith({ locations: [...locations].sort() }, {
    id: "read-collection-passages",
    version: 1,
    source: import.meta.url,
    description: "A user's collection files as the passages table (id, title, text).",
    params: z.object({ files: z.array(fileParam).min(1) }).strict(),
    inputs: {},
    outputs: { passages: file("parquet:passages", "passages.parquet") },
    runtime: {
      type: "in-process",
      async run(ctx) {
        const files = ctx.params.files;
        async function* rows(): AsyncGenerator<{ id: string; title: string | null; text: string }> {
          for (const f of files) {
            const path = locate(locations, f.name);
            for await (const batch of parseCollection(readHashedLines(path, { sha256: f.sha256 }), formatOfName(path), path)) {
              for (const p of batch) yield { id: p.id, title: p.title, text: p.body };
            }
          }
        }
        const r = await writeParquetFile(ctx.outputs.passages, passagesSchema(), rows());
        ctx.log(`${r.rows} passages`);
      },
    },
  });
}
