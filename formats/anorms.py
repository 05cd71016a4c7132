"""The 162 precomputed unit normals (anorms.h) indexed by MD2 and MDL normal bytes."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

_TABLE = Path(__file__).with_name("anorms.tsv")


@lru_cache(maxsize=1)
def anorms() -> np.ndarray:
    """(162, 3) float32 table, row i is normal index i."""
    table = np.loadtxt(_TABLE, comments="#", dtype=np.float64)
    return table[:, 1:4].astype(np.float32)


def nearest_normal_index(normals: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """uint8 index of the table entry with the largest dot product for each (..., 3) normal."""
    table = anorms()
    flat = np.asarray(normals, dtype=np.float32).reshape(-1, 3)
    out = np.empty(len(flat), dtype=np.uint8)
    for start in range(0, len(flat), chunk):
        out[start:start + chunk] = np.argmax(flat[start:start + chunk] @ table.T, axis=1)
    return out.reshape(np.shape(normals)[:-1])


def steady_normal_indices(normals: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """(F, V) nearest indices of (F, V, 3) frame normals; a vertex whose normal did not change
    (within ``tolerance`` per component) since the previous frame keeps that frame's index."""
    normals = np.asarray(normals, dtype=np.float32)
    out = nearest_normal_index(normals)
    if len(normals) > 1:
        same = np.all(np.abs(np.diff(normals, axis=0)) <= tolerance, axis=-1)
        for f in range(1, len(out)):
            out[f] = np.where(same[f - 1], out[f - 1], out[f])
    return out
