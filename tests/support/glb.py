"""Reading the glTF binary (.glb) files ``convert --to glb`` writes: chunks, JSON, accessors."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np


def glb_json(path: Path) -> dict:
    data = path.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data))
    chunk_length, chunk_type = struct.unpack_from("<I4s", data, 12)
    assert chunk_type == b"JSON"
    return json.loads(data[20:20 + chunk_length])


def glb_chunks(path: Path) -> tuple[dict, bytes]:
    """The JSON and the binary chunk of a .glb."""
    data = path.read_bytes()
    length = int.from_bytes(data[12:16], "little")
    start = 20 + length
    blob_length = int.from_bytes(data[start:start + 4], "little")
    return json.loads(data[20:start]), data[start + 8:start + 8 + blob_length]


def accessor_floats(gltf: dict, blob: bytes, index: int) -> np.ndarray:
    accessor = gltf["accessors"][index]
    view = gltf["bufferViews"][accessor["bufferView"]]
    width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[accessor["type"]]
    assert accessor["componentType"] == 5126 and view.get("byteStride", 4 * width) == 4 * width
    offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
    return np.frombuffer(blob, np.float32, accessor["count"] * width, offset).reshape(accessor["count"], width)
