import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { readNpy } from "../../../steps/lib/npy.ts";
import { vocabFromTokens } from "../../../steps/encoding/tokenize/vocab.ts";
import { createBertTokenizer } from "../../../steps/encoding/tokenize/bert-tokenizer.ts";
import { NpyRowWriter } from "../../../steps/encoding/format/npy-row-writer.ts";
import { writePassageMatrix, writeQueryMatrix } from "../../../steps/encoding/format/write-token-matrix.ts";
import type { TurnRow } from "../../../steps/encoding/format/rows.ts";
import { tempDir } from "../../tmp.ts";

const vocab = vocabFromTokens(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "b", "c"]);
const enc = createBertTokenizer(vocab);

test("NpyRowWriter streams rows across chunk boundaries and patches N into the header", () => {
  const dir = tempDir("npyrow-");
  try {
    const w = new NpyRowWriter(join(dir, "m.npy"), "int32", 3, 2);
    [[1], [2, 3], [4, 5, 6], [], [7]].forEach((r) => w.append(r));
    assert.equal(w.close(), 5);
    const arr = readNpy(join(dir, "m.npy"));
    assert.deepEqual(arr.shape, [5, 3]);
    assert.deepEqual([...arr.data], [1, 0, 0, 2, 3, 0, 4, 5, 6, 0, 0, 0, 7, 0, 0]);
    const raw = readFileSync(join(dir, "m.npy"));
    const headerLen = raw[8]! | (raw[9]! << 8);
    assert.equal((10 + headerLen) % 64, 0);
    assert.equal(raw[10 + headerLen - 1], 0x0a);
    assert.throws(() => new NpyRowWriter(join(dir, "x.npy"), "int8", 2).append([1, 2, 3]), RangeError);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("writeQueryMatrix / writePassageMatrix write ids, types, row ids and the sidecar", () => {
  const dir = tempDir("tokmat-");
  try {
    const base: TurnRow = { qid: "c_1", conversation_id: "c", turn: 1, question: "a b", rewrite: null, answer: "c", history: [], gold_passage_ids: [] };
    const turns: TurnRow[] = [base, { ...base, qid: "c_2", turn: 2, question: "c c c", history: [{ question: "a b", answer: "c" }] }];
    const meta = writeQueryMatrix(dir, turns, "history", enc, { maxLength: 8 });
    assert.equal(meta.rows, 2);
    assert.equal(meta.truncated, 1);
    assert.equal(meta.longest, 8);
    assert.equal(meta.vocab_digest, vocab.digest);
    assert.deepEqual(meta.params, { kind: "queries", form: "history", retainFirst: true });
    const ids = readNpy(join(dir, "queries.history.input_ids.npy"));
    assert.equal(ids.dtype, "int32");
    assert.deepEqual(ids.shape, [2, 8]);
    // turn 2: [CLS] a b [SEP] | c [SEP] c c c -> left-truncated to 3 tokens: c c c
    assert.deepEqual([...ids.data], [2, 5, 6, 3, 0, 0, 0, 0, 2, 5, 6, 3, 7, 7, 7, 3]);
    const types = readNpy(join(dir, "queries.history.token_type_ids.npy"));
    assert.equal(types.dtype, "int8");
    assert.deepEqual([...types.data], new Array(16).fill(0));
    assert.equal(readFileSync(join(dir, "queries.history.row_ids.txt"), "utf8"), "c_1\nc_2\n");
    const side = JSON.parse(readFileSync(join(dir, "queries.history.meta.json"), "utf8"));
    assert.deepEqual(side, meta);

    const pm = writePassageMatrix(dir, [{ id: "p1", title: "a", text: "b c" }], enc, { maxLength: 6, segmentIds: "bert" });
    assert.deepEqual(pm.files, { input_ids: "passages.input_ids.npy", token_type_ids: "passages.token_type_ids.npy", row_ids: "passages.row_ids.txt" });
    assert.deepEqual([...readNpy(join(dir, "passages.input_ids.npy")).data], [2, 5, 3, 6, 7, 3]);
    assert.deepEqual([...readNpy(join(dir, "passages.token_type_ids.npy")).data], [0, 0, 0, 1, 1, 1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
