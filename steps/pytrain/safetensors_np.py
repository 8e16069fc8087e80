"""Safetensors reader and writer in plain numpy (no `safetensors` package needed).

Format: 8-byte little-endian u64 header length N, then N bytes of JSON
{name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}},
then the raw little-endian tensor bytes; offsets are relative to the end of the header.
Floating tensors F32/F16/BF16/F64 are decoded to float32; integer tensors keep their type.
"""
import json
import struct

import numpy as np

# dtype tag -> (numpy dtype of the stored bytes, bytes per element)
_DTYPES = {
    "F64": (np.dtype("<f8"), 8),
    "F32": (np.dtype("<f4"), 4),
    "F16": (np.dtype("<f2"), 2),
    "BF16": (np.dtype("<u2"), 2),  # decoded by hand below
    "I64": (np.dtype("<i8"), 8),
    "I32": (np.dtype("<i4"), 4),
    "I16": (np.dtype("<i2"), 2),
    "I8": (np.dtype("i1"), 1),
    "U8": (np.dtype("u1"), 1),
    "BOOL": (np.dtype("?"), 1),
}
_WRITE_TAGS = {np.dtype("float32"): "F32", np.dtype("float16"): "F16", np.dtype("float64"): "F64",
               np.dtype("int64"): "I64", np.dtype("int32"): "I32", np.dtype("int8"): "I8", np.dtype("uint8"): "U8"}


class SafetensorsError(ValueError):
    pass


def bf16_bits_to_float32(bits):
    """BF16 is the upper half of an IEEE float32: shift the 16 bits up and reinterpret."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def decode_tensor(tag, raw, shape):
    if tag not in _DTYPES:
        raise SafetensorsError(f"unsupported safetensors dtype {tag!r} (supported: {', '.join(sorted(_DTYPES))})")
    dt, size = _DTYPES[tag]
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if len(raw) != count * size:
        raise SafetensorsError(f"tensor of shape {shape} and dtype {tag} needs {count * size} bytes, has {len(raw)}")
    arr = np.frombuffer(raw, dtype=dt, count=count).reshape(shape)
    if tag == "BF16":
        return bf16_bits_to_float32(arr)
    if tag in ("F16", "F64"):
        return arr.astype(np.float32)
    return arr.copy()


def parse_header(buf, path="<bytes>"):
    if len(buf) < 8:
        raise SafetensorsError(f"{path}: file too short for a safetensors header")
    (n,) = struct.unpack("<Q", buf[:8])
    if n > len(buf) - 8:
        raise SafetensorsError(f"{path}: header length {n} exceeds file size {len(buf)}")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SafetensorsError(f"{path}: header is not valid JSON ({e})") from e
    return header, 8 + n


def read_safetensors(path):
    """Returns (tensors: dict[str, np.ndarray], metadata: dict[str, str])."""
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    header, start = parse_header(buf, path)
    metadata = header.pop("__metadata__", {}) or {}
    out = {}
    for name in sorted(header):
        info = header[name]
        b, e = info["data_offsets"]
        if not (0 <= b <= e <= len(buf) - start):
            raise SafetensorsError(f"{path}: tensor {name!r} has offsets {b}..{e} outside the data section")
        out[name] = decode_tensor(info["dtype"], buf[start + b:start + e], list(info["shape"]))
    return out, metadata


def write_safetensors(path, tensors, metadata=None):
    """Writes numpy arrays (C order, little-endian) with names sorted, header padded to 8 bytes."""
    names = sorted(tensors)
    header = {}
    blobs = []
    offset = 0
    for name in names:
        arr = np.ascontiguousarray(tensors[name])
        tag = _WRITE_TAGS.get(arr.dtype)
        if tag is None:
            raise SafetensorsError(f"cannot write tensor {name!r} of dtype {arr.dtype}")
        data = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {"dtype": tag, "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    raw = json.dumps(header, separators=(",", ":"), sort_keys=True).encode("utf-8")
    raw += b" " * ((8 - len(raw) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for blob in blobs:
            f.write(blob)
