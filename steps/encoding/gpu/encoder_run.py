"""The encode program's work (encode.py is its command line): the model, its parity fixture on
this device, the rows in length-sorted batches, and the CPU path's output files."""
import json
import os
import shutil
import time

import numpy as np
import torch

from encoding.gpu.rows import batches, real_lengths, split_rows
from pytrain.bert_model import build_random
from pytrain.checkpoint import load_encoder, read_state_dict
from pytrain.errors import InputError
from pytrain.model_configs import BertConfig
from pytrain.vocab_identity import training_vocab_digest

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": None}
ROLES = {"passages": ("passage_encoder", "passage", "pids.txt"), "queries": ("query_encoder", "query", "qids.txt")}
DEFAULTS = {"batchSize": 1024, "maxTokens": 262144, "dtype": "fp16", "sortByLength": True, "fixtureTolerance": 1e-3, "minCosine": 0.999}


def _json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise InputError(f"not readable JSON ({e})", file=path) from e


def load_model(model_dir, encoder, role, device):
    """The trained encoder from `<model_dir>/<encoder>.safetensors` and config.json, float32, eval mode."""
    cfg_path = os.path.join(model_dir, "config.json")
    try:
        config = BertConfig.from_dict(_json(cfg_path))
    except (TypeError, ValueError) as e:
        raise InputError(str(e), file=cfg_path) from e
    model = build_random(config, 0)
    weights = os.path.join(model_dir, f"{encoder}.safetensors")
    load_encoder(model, read_state_dict(weights), role, prefix="", source=weights)
    return model.configure(attention="auto").to(device).eval()


def check_vocabulary(tokens_dir, model_dir, config_vocab_size):
    """The tokens' vocabulary is the model's (digest) and fits its embedding table (size)."""
    training_vocab_digest(passages_dir=tokens_dir, init_dir=model_dir)
    meta_path = os.path.join(tokens_dir, "meta.json")
    size = _json(meta_path).get("vocabSize")
    if isinstance(size, int) and size > config_vocab_size:
        raise InputError(f"the tokens come from a vocabulary of {size} ids, but the model's embedding table has "
                                 f"{config_vocab_size} rows", file=meta_path, field="vocabSize",
                                 fix="tokenize with the vocabulary the model was trained with")


def autocast(device, dtype):
    if dtype is None or device.type != "cuda":
        return torch.autocast(device_type="cpu", enabled=False)
    return torch.autocast(device_type="cuda", dtype=dtype)


@torch.inference_mode()
def forward(model, ids, types, device, dtype):
    """float32 [rows, dim] embeddings of host int arrays (pinned, non-blocking copies to CUDA)."""
    def put(a):
        t = torch.from_numpy(np.ascontiguousarray(a, dtype=np.int64))
        return t.pin_memory().to(device, non_blocking=True) if device.type == "cuda" else t
    t_ids = put(ids)
    t_types = put(types) if types is not None else torch.zeros_like(t_ids)
    with autocast(device, dtype):
        return model(t_ids, (t_ids != 0).long(), t_types).float()


def check_fixture(model, model_dir, encoder, device, dtype, params, log):
    """The exported fixture on this device: float32 within fixtureTolerance of torch's export-time
    output, and the encoding dtype's rows at cosine >= minCosine to float32. Returns the numbers."""
    d = os.path.join(model_dir, "parity", encoder)
    if not os.path.isdir(d):
        raise InputError(f"no parity fixture for {encoder}: the loaded weights cannot be checked against the export", file=d,
                                 fix="export the model with cspipe's trainer (it writes parity/<encoder>/ beside every .onnx)")
    ids, types, want = (np.load(os.path.join(d, f"{n}.npy")) for n in ("input_ids", "token_type_ids", "embedding"))
    got = forward(model, ids, types, device, None).cpu().numpy()
    diff = float(np.max(np.abs(got - want)))
    if not diff < params["fixtureTolerance"]:
        raise InputError(f"on this device ({device}) the loaded {encoder} differs from the exported model's fixture by "
                                 f"{diff:.3g} (tolerance {params['fixtureTolerance']})", file=os.path.join(model_dir, f"{encoder}.safetensors"),
                                 fix="re-export the model; check that the weights and parity/ come from the same training run")
    if dtype is None:
        log(f"{encoder} on {device}: float32 max abs diff {diff:.3g} to the export (tolerance {params['fixtureTolerance']})")
        return {"float32_max_abs_diff": diff}
    half = forward(model, ids, types, device, dtype).cpu().numpy()
    cos = np.sum(half * got, axis=1) / (np.linalg.norm(half, axis=1) * np.linalg.norm(got, axis=1))
    if not np.all(cos >= params["minCosine"]):
        raise InputError(f"{params['dtype']} encoding on {device} departs from float32: smallest cosine {float(np.min(cos)):.6f} "
                                 f"< {params['minCosine']} on the parity fixture", field="dtype", fix="encode with dtype fp32 or bf16")
    log(f"{encoder} on {device}: float32 max abs diff {diff:.3g} to the export; {params['dtype']} smallest cosine {float(np.min(cos)):.6f}")
    return {"float32_max_abs_diff": diff, "min_cosine": float(np.min(cos))}


def copy_lines(src, dst, start, end):
    """Lines [start, end) of src into dst, streamed; returns the total line count of src."""
    n = 0
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            if start <= n < end:
                out.write(line if line.endswith("\n") else line + "\n")
            n += 1
    return n


def encode_rows(model, ids, types, rows, params, device, dtype, out, emit):
    """Encodes ids[rows[0]:rows[1]] into `out` (a float32 memmap) in row order; returns seconds."""
    start, end = rows
    lengths = real_lengths(ids[start:end])
    empty = np.nonzero(lengths == 0)[0]
    if len(empty):
        raise InputError(f"row {start + int(empty[0])} has no tokens (all pad id 0)", field="input_ids",
                                 fix="drop empty texts before encoding, or tokenize them to [CLS] [SEP]")
    order = np.argsort(-lengths, kind="stable") if params["sortByLength"] else np.arange(end - start)
    plan = batches(lengths, order, params["batchSize"], params["maxTokens"])
    t0, done = time.perf_counter(), 0
    emit(f"PROGRESS 0 {end - start}")
    for b in plan:
        rel = np.sort(np.asarray(b))  # read in row order, write back in row order
        width = int(lengths[rel].max())
        sel = ids[start + rel[0]:start + rel[-1] + 1] if len(rel) == rel[-1] - rel[0] + 1 else ids[start + rel]
        sel_types = None
        if types is not None:
            sel_types = types[start + rel[0]:start + rel[-1] + 1] if len(rel) == rel[-1] - rel[0] + 1 else types[start + rel]
            sel_types = np.asarray(sel_types)[:, :width]
        out[rel] = forward(model, np.asarray(sel)[:, :width], sel_types, device, dtype).cpu().numpy()
        done += len(rel)
        emit(f"PROGRESS {done} {end - start}")
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() - t0


def write_query_extras(tokens_dir, ids, out_dir):
    """empty_qids.txt: queries whose row holds only special tokens (no hits, as BM25 gives none)."""
    meta = _json(os.path.join(tokens_dir, "meta.json"))
    special = [meta.get("specialIds", {}).get(k) for k in ("pad", "cls", "sep")]
    if not all(isinstance(v, int) for v in special):
        raise InputError("specialIds.pad/cls/sep missing or not integers", file=os.path.join(tokens_dir, "meta.json"),
                                 field="specialIds", fix="rerun tokenize-queries")
    with open(os.path.join(tokens_dir, "qids.txt"), encoding="utf-8") as f:
        qids = [line.rstrip("\n") for line in f]
    empty = [qids[i] for i in range(ids.shape[0]) if np.all(np.isin(np.asarray(ids[i]), special))]
    with open(os.path.join(out_dir, "empty_qids.txt"), "w", encoding="utf-8") as f:
        f.writelines(q + "\n" for q in empty)
    return len(empty)


def run(role, raw_params, model_dir, tokens_dir, out_dir, device, log, emit):
    if role not in ROLES:
        raise InputError(f"role must be passages or queries, got {role!r}", field="role")
    params = {**DEFAULTS, **raw_params}
    if params["dtype"] not in DTYPES:
        raise InputError(f"dtype must be one of {', '.join(DTYPES)}, got {params['dtype']!r}", field="dtype")
    encoder, weights_role, ids_name = ROLES[role]
    dtype = DTYPES[params["dtype"]] if device.type == "cuda" else None
    if device.type != "cuda" and params["dtype"] != "fp32":
        log(f"note: dtype {params['dtype']} applies on CUDA only; encoding in float32 on {device.type}")
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32 (the parity check runs in it)
    model = load_model(model_dir, encoder, weights_role, device)
    check_vocabulary(tokens_dir, model_dir, model.config.vocab_size)
    check_fixture(model, model_dir, encoder, device, dtype, params, log)
    ids = np.load(os.path.join(tokens_dir, "ids.npy"), mmap_mode="r")
    types_path = os.path.join(tokens_dir, "type_ids.npy")
    types = np.load(types_path, mmap_mode="r") if role == "passages" and os.path.isfile(types_path) else None
    n = ids.shape[0]
    if role == "passages":
        shard, shards = int(params["shard"]), int(params["shards"])
        start, end = split_rows(n, shards, shard)
        if end == start:
            raise InputError(f"shard {shard} of {shards} has no rows ({n} passages)", field="shards", fix="use fewer shards than passages")
    else:
        start, end = 0, n
    os.makedirs(out_dir, exist_ok=True)
    dim = model.config.hidden_size
    out = np.lib.format.open_memmap(os.path.join(out_dir, "embeddings.npy"), mode="w+", dtype=np.float32, shape=(end - start, dim))
    seconds = encode_rows(model, ids, types, (start, end), params, device, dtype, out, emit)
    out.flush()
    del out
    meta = {"format": "cspipe/embeddings@1", "kind": role, "rows": end - start, "dim": dim}
    if role == "passages":
        total = copy_lines(os.path.join(tokens_dir, ids_name), os.path.join(out_dir, ids_name), start, end)
        if total != n:
            raise InputError(f"{total} passage ids for {n} token rows", file=os.path.join(tokens_dir, ids_name), fix="rerun tokenize-passages")
        meta = {"format": meta["format"], "kind": role, "shard": shard, "shards": shards, "start": start, "end": end, "rows": end - start, "dim": dim}
    else:
        shutil.copyfile(os.path.join(tokens_dir, ids_name), os.path.join(out_dir, ids_name))
        meta["empty"] = write_query_extras(tokens_dir, ids, out_dir)
    with open(os.path.join(out_dir, "meta.json"), "w", encoding="utf-8") as f:
        f.write(json.dumps(meta, indent=2) + "\n")
    rate = (end - start) / seconds if seconds > 0 else float("inf")
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    log(f"encoded {end - start} {role} [{start}, {end}) of {n} in {seconds:.2f} s: {rate:.1f} {role}/s on {name} "
        f"({params['dtype'] if dtype is not None else 'fp32'}, attention {model.attention_mode}, batches <= {params['batchSize']} rows / {params['maxTokens']} tokens)")
