"""A toy model format for tests/house/test_format_table.py: one table row (``format_rows``), a codec and an
``info`` reader, all without Blender; its operators are in toy_format_blender.

File layout (little-endian)::

    char magic[4] "TOY1"; uint32 version 1; uint32 num_vertices; float32 xyz[num_vertices][3];
    uint32 num_triangles; uint32 corners[num_triangles][3]

Named by ``CLASSIC_MODELS_FORMAT_ROWS=support.toy_format`` (with tests/ on PYTHONPATH), the extension
takes the row in every process: ``python -m classic_models info`` and ``convert``'s Blender workers.
"""
from __future__ import annotations

import struct

import numpy as np

MAGIC, VERSION = b"TOY1", 1


def format_rows(table) -> list:
    return [table.FormatRow("toy", "Toy Model", "Toy Model", (".toy",), (MAGIC,), (VERSION,),
                            "none: 2**32 vertices", "support.toy_format:parse_toy", "support.toy_format_blender:importer",
                            "support.toy_format_blender:exporter", "support.toy_format:inspect_toy")]


def parse_toy(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(positions float32 (n, 3), corners uint32 (m, 3)); ValueError for anything else."""
    if data[:4] != MAGIC or struct.unpack_from("<I", data, 4)[0] != VERSION:
        raise ValueError("not a toy model")
    count, = struct.unpack_from("<I", data, 8)
    positions = np.frombuffer(data, "<f4", count * 3, 12).reshape(-1, 3)
    end = 12 + count * 12
    triangles, = struct.unpack_from("<I", data, end)
    corners = np.frombuffer(data, "<u4", triangles * 3, end + 4).reshape(-1, 3)
    if end + 4 + corners.nbytes != len(data) or (corners.size and corners.max() >= count):
        raise ValueError("bad toy model")
    return positions, corners


def serialize_toy(positions, corners) -> bytes:
    positions = np.asarray(positions, "<f4").reshape(-1, 3)
    corners = np.asarray(corners, "<u4").reshape(-1, 3)
    return (MAGIC + struct.pack("<II", VERSION, len(positions)) + positions.tobytes()
            + struct.pack("<I", len(corners)) + corners.tobytes())


def inspect_toy(info, path, data: bytes, load_skins: bool, name_encoding: str = "AUTO") -> None:
    """What ``info`` says of a toy model: its version and counts."""
    positions, corners = parse_toy(data)
    info.version = VERSION
    info.counts = {"vertices": len(positions), "triangles": len(corners)}
