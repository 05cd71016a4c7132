"""Triangles the import kept off the mesh (they use a vertex twice, e.g. a placeholder model's only
triangle), put back where the file had them so an untouched model writes the same triangle list."""
from __future__ import annotations

import numpy as np

import bpy

from ...common.stored_records import stored_bytes


def kept_rows(mesh: bpy.types.Mesh, prop: str, dtype: np.dtype, num_vertices: int,
              vertex_field: str) -> np.ndarray | None:
    """The kept rows, or None when there are none or they no longer fit the mesh's vertices."""
    blob = stored_bytes(mesh, prop)
    if not blob:
        return None
    if len(blob) % dtype.itemsize:
        return None
    rows = np.frombuffer(blob, dtype=dtype)
    if len(rows) == 0 or rows[vertex_field].max() >= num_vertices:
        return None
    return rows


def insert_at(base: np.ndarray, rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``base`` with ``rows`` inserted so that row k lands at index ``at[k]`` (past the end: appended)."""
    order = np.argsort(at, kind="stable")
    where = np.clip(np.asarray(at, dtype=np.int64)[order] - np.arange(len(order)), 0, len(base))
    return np.insert(base, where, np.asarray(rows)[order], axis=0)
