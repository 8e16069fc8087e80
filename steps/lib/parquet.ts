/**
 * Parquet I/O for the pipeline's tables: apache-arrow in JS, parquet-wasm for the
 * Parquet encoding (Arrow IPC <-> Parquet inside WebAssembly).
 *
 * Writing streams: rows (or Arrow record batches) are pulled from an (async) iterable,
 * turned into Arrow batches of `batchRows`, handed to parquet-wasm's
 * `transformParquetStream` one at a time (pull-based, so the producer is never ahead by
 * more than one batch) and the encoded bytes are piped to disk. parquet-wasm's
 * ArrowWriter closes a row group every `rowGroupRows` rows. Memory is bounded by one
 * Arrow batch plus one encoded row group, independent of the table size.
 *
 * Compression is SNAPPY: hyparquet (and every other Parquet reader) decodes it without
 * extra codecs, while ZSTD needs `hyparquet-compressors`. Files are written to
 * `<path>.partial` and renamed on success; a failed write removes the partial file.
 *
 * Reading: `readParquetTable` loads a whole file into an Arrow Table;
 * `readParquetBatches` streams record batches from a file-backed Blob (only the
 * requested row groups are read into memory); `readParquetRows` yields plain objects.
 */
import { openAsBlob, readFileSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { Writable } from "node:stream";
import * as arrow from "apache-arrow";
import * as pw from "parquet-wasm";
import { InputError } from "../../pipeline/engine/errors.ts";

export interface WriteParquetOptions {
  /** Rows per Arrow batch handed to the encoder (default 65,536). */
  readonly batchRows?: number;
  /** Maximum rows per Parquet row group (default 65,536). */
  readonly rowGroupRows?: number;
  /** Extra key/value metadata stored in the Parquet footer. */
  readonly metadata?: Record<string, string>;
  readonly onProgress?: (done: number, total?: number) => void;
}

export interface WriteParquetResult {
  readonly rows: number;
  readonly batches: number;
}

type RowSource<T> = Iterable<T> | AsyncIterable<T>;

/**
 * Builds one Arrow RecordBatch from plain rows keyed by the schema's field names.
 * `undefined` and `null` are both written as null; a null in a non-nullable field throws.
 */
export function rowsToRecordBatch<T extends object>(schema: arrow.Schema, rows: readonly T[]): arrow.RecordBatch {
  const children = schema.fields.map((field) => {
    if (arrow.DataType.isUtf8(field.type)) return utf8Column(field, rows);
    const builder = arrow.makeBuilder({ type: field.type, nullValues: [null, undefined] });
    const name = field.name;
    for (let i = 0; i < rows.length; i++) {
      const v = (rows[i] as Record<string, unknown>)[name];
      if (v === null || v === undefined) {
        if (!field.nullable) throw new TypeError(`row ${i}: field '${name}' is null but the schema says not nullable`);
        builder.append(null);
      } else builder.append(v);
    }
    return builder.finish().flush();
  });
  const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new arrow.RecordBatch(schema, data);
}

/** Same field names, types and nullability, in the same order. */
export function sameSchema(a: arrow.Schema, b: arrow.Schema): boolean {
  if (a.fields.length !== b.fields.length) return false;
  return a.fields.every((f, i) => {
    const g = b.fields[i]!;
    return f.name === g.name && f.nullable === g.nullable && String(f.type) === String(g.type);
  });
}

const encoder = new TextEncoder();

/** Fast path for Utf8 columns: offsets and bytes built directly (Arrow builders are ~5x slower). */
function utf8Column<T extends object>(field: arrow.Field, rows: readonly T[]): arrow.Data {
  const n = rows.length;
  const offsets = new Int32Array(n + 1);
  let validity: Uint8Array | undefined;
  let nullCount = 0;
  let bytes = new Uint8Array(Math.max(64, n * 16));
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const v = (rows[i] as Record<string, unknown>)[field.name];
    if (v === null || v === undefined) {
      if (!field.nullable) throw new TypeError(`row ${i}: field '${field.name}' is null but the schema says not nullable`);
      if (validity === undefined) validity = new Uint8Array((n + 7) >> 3).fill(0xff);
      validity[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    } else {
      const str = typeof v === "string" ? v : String(v);
      const need = pos + str.length * 3;
      if (need > bytes.length) {
        const bigger = new Uint8Array(Math.max(need, bytes.length * 2));
        bigger.set(bytes.subarray(0, pos));
        bytes = bigger;
      }
      pos += encoder.encodeInto(str, bytes.subarray(pos)).written;
    }
    offsets[i + 1] = pos;
  }
  return arrow.makeData({ type: field.type as arrow.Utf8, length: n, nullCount, offset: 0, valueOffsets: offsets, data: bytes.subarray(0, pos), ...(validity === undefined ? {} : { nullBitmap: validity }) });
}

function toWasmBatches(batch: arrow.RecordBatch): pw.RecordBatch[] {
  const ipc = arrow.tableToIPC(new arrow.Table([batch]), "stream");
  const table = pw.Table.fromIPCStream(ipc);
  try {
    return table.recordBatches();
  } finally {
    table.free();
  }
}

async function* batchesOf<T extends object>(schema: arrow.Schema, source: RowSource<T | arrow.RecordBatch>, batchRows: number): AsyncGenerator<arrow.RecordBatch> {
  let buffer: T[] = [];
  for await (const item of source as AsyncIterable<T | arrow.RecordBatch>) {
    if (item instanceof arrow.RecordBatch) {
      if (buffer.length > 0) {
        yield rowsToRecordBatch(schema, buffer);
        buffer = [];
      }
      if (item.numRows > 0) yield item;
      continue;
    }
    buffer.push(item);
    if (buffer.length >= batchRows) {
      yield rowsToRecordBatch(schema, buffer);
      buffer = [];
    }
  }
  if (buffer.length > 0) yield rowsToRecordBatch(schema, buffer);
}

function writerProperties(options: WriteParquetOptions): pw.WriterProperties {
  let builder = new pw.WriterPropertiesBuilder()
    .setCompression(pw.Compression.SNAPPY)
    .setMaxRowGroupSize(options.rowGroupRows ?? 65_536)
    .setCreatedBy("cspipe");
  if (options.metadata !== undefined) builder = builder.setKeyValueMetadata(new Map(Object.entries(options.metadata)));
  return builder.build();
}

/**
 * The source's record batches as the stream parquet-wasm encodes, one batch per pull (checked
 * against the schema, counted); an empty source gives one empty batch, so the file still carries
 * the schema. A source that fails is remembered: parquet-wasm may take an errored input for its end.
 */
class BatchFeed<T extends object> {
  rows = 0;
  batches = 0;
  sourceError: { err: unknown } | undefined;
  private started = false;
  private readonly iterator: AsyncIterator<arrow.RecordBatch>;
  readonly stream: ReadableStream<pw.RecordBatch>;

  constructor(
    private readonly schema: arrow.Schema,
    source: RowSource<T | arrow.RecordBatch>,
    batchRows: number,
    private readonly onProgress: ((rows: number) => void) | undefined,
  ) {
    this.iterator = batchesOf(schema, source, batchRows)[Symbol.asyncIterator]();
    this.stream = new ReadableStream<pw.RecordBatch>(
      {
        pull: async (controller) => {
          try {
            await this.pullOne(controller);
          } catch (err) {
            this.sourceError ??= { err };
            controller.error(err);
          }
        },
        cancel: async () => {
          await this.iterator.return?.(undefined);
        },
      },
      { highWaterMark: 0 },
    );
  }

  private async pullOne(controller: ReadableStreamDefaultController<pw.RecordBatch>): Promise<void> {
    const next = await this.iterator.next();
    if (next.done) {
      if (!this.started) {
        this.started = true;
        for (const b of toWasmBatches(rowsToRecordBatch(this.schema, []))) controller.enqueue(b);
      }
      controller.close();
      return;
    }
    this.started = true;
    const batch = next.value;
    if (!sameSchema(batch.schema, this.schema)) {
      throw new TypeError(`record batch schema does not match the table schema: ${batch.schema.toString()} vs ${this.schema.toString()}`);
    }
    this.rows += batch.numRows;
    this.batches++;
    for (const b of toWasmBatches(batch)) controller.enqueue(b);
    this.onProgress?.(this.rows);
  }
}

/**
 * Streams rows and/or record batches into a Parquet file with the given Arrow schema.
 * An empty source writes a valid zero-row file that still carries the schema.
 */
export async function writeParquetFile<T extends object>(
  path: string,
  schema: arrow.Schema,
  source: RowSource<T | arrow.RecordBatch>,
  options: WriteParquetOptions = {},
): Promise<WriteParquetResult> {
  const props = writerProperties(options);
  const feed = new BatchFeed(schema, source, options.batchRows ?? 65_536, options.onProgress);
  const partial = `${path}.partial`;
  const handle = await open(partial, "w");
  try {
    const bytes = await pw.transformParquetStream(feed.stream, props);
    await bytes.pipeTo(Writable.toWeb(handle.createWriteStream()) as WritableStream<Uint8Array>);
    if (feed.sourceError !== undefined) throw feed.sourceError.err;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await rm(partial, { force: true });
    // the encoder reports a failed source as its own error ("Dyn casting error"): rethrow the cause
    throw feed.sourceError !== undefined ? feed.sourceError.err : err;
  }
  await handle.close().catch(() => undefined);
  await rename(partial, path);
  return { rows: feed.rows, batches: feed.batches };
}

function wasmToArrow(bytes: Uint8Array): arrow.Table {
  return arrow.tableFromIPC(bytes);
}

function openError(file: string, err: unknown): InputError {
  return new InputError(`not a readable Parquet file: ${(err as Error).message ?? String(err)}`, { file, fix: "re-run the step that wrote it" });
}

/** Opens a Parquet file as a file-backed Blob (only the row groups decoded are in memory). */
async function openParquet(file: string): Promise<pw.ParquetFile> {
  try {
    return await pw.ParquetFile.fromFile(await openAsBlob(file));
  } catch (err) {
    throw openError(file, err);
  }
}

export interface ReadParquetOptions {
  /** Only these columns. */
  readonly columns?: string[];
}

/** Reads a whole Parquet file into an Arrow table (JS memory). */
export function readParquetTable(file: string, options: ReadParquetOptions = {}): arrow.Table {
  let wasmTable: pw.Table;
  try {
    const bytes = readFileSync(file);
    wasmTable = pw.readParquet(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), options.columns ? { columns: options.columns } : null);
  } catch (err) {
    throw openError(file, err);
  }
  return wasmToArrow(wasmTable.intoIPCStream());
}

export interface ParquetBatchOptions extends ReadParquetOptions {
  /** Rows per yielded batch (default 65,536). */
  readonly batchRows?: number;
  /** Only these row groups (0-based). */
  readonly rowGroups?: number[];
}

/** Number of row groups and rows in a Parquet file, read from its footer. */
export async function parquetLayout(file: string): Promise<{ rowGroups: number[]; rows: number }> {
  const pf = await openParquet(file);
  try {
    const meta = pf.metadata();
    const rowGroups = meta.rowGroups().map((g) => g.numRows());
    return { rowGroups, rows: rowGroups.reduce((a, b) => a + b, 0) };
  } finally {
    pf.free();
  }
}

/**
 * Streams a Parquet file as Arrow record batches. The file is opened as a file-backed
 * Blob, so only the row groups being decoded are in memory.
 */
export async function* readParquetBatches(file: string, options: ParquetBatchOptions = {}): AsyncGenerator<arrow.RecordBatch> {
  const pf = await openParquet(file);
  try {
    const readerOptions: pw.ReaderOptions = { batchSize: options.batchRows ?? 65_536 };
    if (options.columns !== undefined) readerOptions.columns = options.columns;
    if (options.rowGroups !== undefined) readerOptions.rowGroups = options.rowGroups;
    const stream = (await pf.stream(readerOptions)) as ReadableStream<pw.RecordBatch>;
    for await (const wasmBatch of stream as unknown as AsyncIterable<pw.RecordBatch>) {
      const table = wasmToArrow(wasmBatch.intoIPCStream());
      for (const b of table.batches) yield b;
    }
  } finally {
    pf.free();
  }
}

/** Converts Arrow values (Vectors, Structs, BigInt) to plain JS values. */
export function plainValue(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof arrow.Vector) return Array.from(v as Iterable<unknown>, plainValue);
  if (typeof v === "object") {
    const json = (v as { toJSON?: () => unknown }).toJSON?.();
    if (json !== undefined && json !== v) return plainValue(json);
    if (Array.isArray(v)) return v.map(plainValue);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = plainValue(x);
    return out;
  }
  return v;
}

/** Plain-object rows of one record batch, in order. */
export function batchRows<T>(batch: arrow.RecordBatch): T[] {
  const names = batch.schema.fields.map((f) => f.name);
  const columns = names.map((n) => batch.getChild(n)!);
  const out: T[] = new Array(batch.numRows);
  for (let r = 0; r < batch.numRows; r++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) row[names[c]!] = plainValue(columns[c]!.get(r));
    out[r] = row as T;
  }
  return out;
}

/** Streams a Parquet file as plain-object rows. */
export async function* readParquetRows<T>(file: string, options: ParquetBatchOptions = {}): AsyncGenerator<T> {
  for await (const batch of readParquetBatches(file, options)) yield* batchRows<T>(batch);
}
