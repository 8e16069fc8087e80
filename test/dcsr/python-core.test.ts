/**
 * The DCSR trainer's Python core through its `--selftest`s: in-passage negatives are
 * never an answer sentence or its neighbour, the batch mask, the loss on a hand-computed
 * batch, and the ONNX passage encoder's marker vectors (parity with torch, and equal to the
 * hidden states at the marker positions) under onnxruntime-node.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { readNpy } from "../../steps/lib/npy.ts";
import { openSentenceEncoder, SENTENCE_ENCODER_INPUTS, SENTENCE_ENCODER_OUTPUT } from "../../steps/dcsr/onnx-sentences.ts";
import { PYTHON, program } from "../training/python.ts";
import { tempDir } from "../tmp.ts";

function dcsrSelftest<T>(name: string, arg: unknown): T {
  const r = spawnSync(PYTHON, program("dcsr.python.train_dcsr", ["--selftest", name]), { input: JSON.stringify(arg), encoding: "utf8", timeout: 120_000 });
  const line = r.stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (r.status !== 0 || line === undefined) throw new Error(`selftest ${name} failed (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as T;
}

const DIR = tempDir("dcsr-python-");
/** Every case runs in one Python process (one torch import). */
const BATCH = dcsrSelftest<unknown[]>("batch", ([
  { name: "sample", arg: {
    labels: [[2, 1, 2, 0, 0, -1, -1], [1, 2, 0, 2, 1, 2, -1], [1, 2, 2, -1, -1, -1, -1]],
    pos: [0, 5, 6],
    gold: [[-1], [-1], [1]],
    neg: [[3, 0, 1, 4], [6, -1, -1, -1], [1, 2, -1, -1]],
    marked: [5, 2, 3, 2, 4, 6, 3],
    n: 1, in_passage: 1, seed: 7, draws: 200,
  } },
  { name: "sample", arg: { labels: [[1, 0, 0]], pos: [0], gold: [[-1]], neg: [[1, 2, 2, 3]], marked: [3, 2, 2, 0, 1], n: 2, in_passage: 0, seed: 1, draws: 100 } },
  { name: "sample", arg: { labels: [[1, 2, 0]], pos: [0], gold: [[-1]], neg_rows: [[0, 2, 2, -1]], neg_slots: [[2, 1, 9, -1]], marked: [3, 4, 2], n: 1, in_passage: 1, seed: 3, draws: 50 } },
  { name: "sample", arg: { labels: [[1, 0]], pos: [0], gold: [[-1]], neg: [[-1]], marked: [2, 1, 1], n: 1, in_passage: 1, seed: 3, draws: 10 } },
  { name: "mask", arg: {
    // columns: pos of q0 (p0 s1), pos of q1 (p0 s3), then q0's negatives (p0 s2, p9 s0), q1's (p0 s1, p4 s0)
    cols: [[0, 1], [0, 3], [0, 2], [9, 0], [0, 1], [4, 0]],
    pos_rows: [0, 0],
    labels: [[2, 1, 2, 0], [0, 0, 2, 1]],
    golds: [[0], [0, 4]],
  } },
  { name: "loss", arg: { q: [[1, 0], [0, 1]], s: [[2, 0], [0, 1], [1, 1], [0, 0]], mask: [[false, false, false, false], [false, false, true, false]] } },
  { name: "export", arg: { out: DIR, seed: 5 } },
  // Four dev passages ([CLS] <m> w w <m> w [SEP], the last with one marker), three queries, the third without gold.
  { name: "dev", arg: {
    passages: [[2, 1, 7, 8, 1, 9, 3], [2, 1, 10, 11, 1, 12, 3], [2, 1, 13, 14, 1, 15, 3], [2, 1, 16, 17, 3, 0, 0]],
    markers: [[1, 4], [1, 4], [1, 4], [1, -1]],
    queries: [[2, 20, 21, 3], [2, 22, 3, 0], [2, 23, 24, 3]],
    gold: [[0], [2], [-1]],
    k: 4, m: 100, seed: 3,
  } },
  { name: "dev", arg: { passages: [[2, 1, 7, 3], [2, 1, 8, 3]], markers: [[1], [1]], queries: [[2, 20, 3]], gold: [[0, 1]], k: 1, m: 100, seed: 3 } },
] as { name: string; arg: unknown }[]).map((t) => [t.name, t.arg]));

type Draws = { draws: [number, number][][][]; fallbacks: number; in_passage_fallbacks: number };

test("in-passage negatives are only label-0 sentences of the positive passage: never an answer sentence or its neighbour", () => {
  // passage 0: slots labelled [2, 1, 2, 0, 0] (answer in slot 1); passage 5: [1, 2, 0, 2, 1, 2, -1] (two answer
  // sentences, one candidate: slot 2); passage 6: [1, 2, 2] (no candidate: a sentence of the BM25 negative stands in).
  const r = BATCH[0] as Draws;
  for (const draw of r.draws) {
    const [e0, e1, e2] = draw as [[number, number][], [number, number][], [number, number][]];
    assert.deepEqual(e0[0], [0, 1]);
    assert.ok(e0[1]![0] === 0 && [3, 4].includes(e0[1]![1]), `in-passage of example 0: ${JSON.stringify(e0[1])}`);
    assert.ok([1, 3, 4].includes(e0[2]![0]) && e0[2]![1] < (e0[2]![0] === 4 ? 4 : 2), "a BM25 negative that is neither gold nor the positive passage");
    assert.ok([0, 4].includes(e1[0]![1]) && e1[0]![0] === 5);
    assert.deepEqual(e1[1], [5, 2]);
    assert.equal(e1[2]![0], 6);
    assert.equal(e2[1]![0], 2, "no candidate in passage 6: the BM25 negative (passage 2) gives the in-passage stand-in");
    assert.notEqual(e2[1]![1], e2[2]![1], "the stand-in is another sentence than the mined one");
  }
  assert.equal(r.in_passage_fallbacks, 200);
  assert.equal(r.fallbacks, 0);
});

test("+2 BM25 random: sentences of two different mined passages; DCSR x IHN: mined sentences as listed; shortfalls fall back", () => {
  const two = BATCH[1] as Draws;
  for (const [cols] of two.draws) {
    assert.equal(cols!.length, 3);
    assert.notEqual(cols![1]![0], cols![2]![0]);
    for (const c of cols!.slice(1)) assert.ok([1, 2].includes(c[0]), "passage 3 has no sentence vector, so it is never drawn");
  }
  const mined = BATCH[2] as Draws;
  for (const [cols] of mined.draws) assert.deepEqual(cols!.slice(1), [[0, 2], [2, 1]], "a gold row and a slot past the passage's markers are never drawn");
  const short = BATCH[3] as Draws;
  assert.equal(short.fallbacks, 10);
});

test("the mask: an answer or excluded sentence of the query's positive passage, or any sentence of its other gold passages", () => {
  const r = BATCH[4] as { mask: boolean[][] };
  assert.deepEqual(r.mask, [
    [false, false, true, false, true, false],
    [false, false, true, false, false, true],
  ]);
});

test("NLL over every sentence vector of the batch, masked columns out of the softmax (hand-computed)", () => {
  // q1=(1,0), q2=(0,1); sentences s=[(2,0),(0,1),(1,1),(0,0)]; q2's column 2 masked.
  const r = BATCH[5] as { loss: number; scores: (number | null)[][] };
  assert.deepEqual(r.scores, [[2, 0, 1, 0], [0, 1, null, 0]]);
  const e = Math.E;
  const expected = (Math.log(e * e + e + 2) - 2 + Math.log(2 + e) - 1) / 2;
  assert.ok(Math.abs(r.loss - expected) < 1e-6, `${r.loss} vs ${expected}`);
});

test("model selection's dev Recall@k (HasAns over the dev collection's sentences) runs on the DPR trainer's encoders: every passage ranked, so R@4 is 1; two gold passages at k = 1 give 1/2", () => {
  assert.deepEqual(BATCH[7], { recall: 1, counted: 2 });
  assert.deepEqual(BATCH[8], { recall: 0.5, counted: 1 });
});

test("ONNX sentence encoder: onnxruntime-node gives torch's marker vectors, which are the hidden states at the markers", async () => {
  const r = BATCH[6] as { fixture: string; hidden: string };
  const enc = await openSentenceEncoder(join(DIR, "sentence_encoder.onnx"), { providers: "cpu", intraOpThreads: 1 });
  try {
    const feeds: Record<string, ort.Tensor> = {};
    for (const n of SENTENCE_ENCODER_INPUTS) {
      const a = readNpy(join(r.fixture, `${n}.npy`));
      feeds[n] = new ort.Tensor("int64", a.data as BigInt64Array, a.shape);
    }
    const out = (await enc.session.run(feeds))[SENTENCE_ENCODER_OUTPUT]!;
    const want = readNpy(join(r.fixture, `${SENTENCE_ENCODER_OUTPUT}.npy`));
    assert.deepEqual(out.dims, want.shape);
    const got = out.data as Float32Array;
    const w = want.data as Float32Array;
    let diff = 0;
    for (let i = 0; i < got.length; i++) diff = Math.max(diff, Math.abs(got[i]! - w[i]!));
    assert.ok(diff < 1e-4, `max abs diff ${diff}`);
    const [B, M, H] = want.shape as [number, number, number];
    const hidden = readNpy(r.hidden);
    const L = hidden.shape[1]!;
    const pos = readNpy(join(r.fixture, "marker_positions.npy")).data as BigInt64Array;
    let checked = 0;
    for (let b = 0; b < B; b++) {
      for (let m = 0; m < M; m++) {
        const p = Number(pos[b * M + m]);
        if (p < 0) continue;
        for (let h = 0; h < H; h++) assert.ok(Math.abs(got[(b * M + m) * H + h]! - (hidden.data as Float32Array)[(b * L + p) * H + h]!) < 1e-4);
        checked++;
      }
    }
    assert.equal(checked, 7, "4 + 3 markers in the fixture, the third row has none");
  } finally {
    await enc.session.release();
  }
});
