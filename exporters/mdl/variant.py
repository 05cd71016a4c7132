"""What the MD16 and RAPO flavours change in an MDL export (see :mod:`...formats.mdl.variants`).

MD16 quantises onto a lattice 256 times finer than the 8-bit grid (same scale and translate in the
header, ``high + low / 256`` per axis); RAPO writes a texcoord table of its own with per-corner
indices, so no vertex is split at a UV seam. Both keep what an untouched import stored: the low
bytes of every pose record, the texcoord table and corner indices.
"""
from __future__ import annotations

import numpy as np

from ...common.mdl.contract import DEGENERATE_MDL_ST, MDL_DEGENERATE_ST, MDL_ST, MDL_ST_INDEX, MDL_VARIANT
from ...common.stored_records import stored_bytes
from ...formats.mdl.texcoords import TexcoordAssignment, assign_st_table
from ...formats.mdl.variants import IDPO, MD16, RAPO, TEXCOORD, VARIANTS, quantize16


def export_variant(obj, requested: str) -> str:
    """The requested flavour, else (empty) the one the object was imported from, else IDPO."""
    if requested:
        return requested
    stored = obj.get(MDL_VARIANT)
    return stored if stored in VARIANTS else IDPO


def rapo_texcoords(part, single: bool, file_tris: np.ndarray, corner_st: np.ndarray, facesfront: np.ndarray,
                   num_vertices: int, skin_width: int) -> TexcoordAssignment:
    """The texcoord table and stindex, the imported ones while every corner still reads its texel."""
    stored = None
    if single:
        blob = stored_bytes(part.obj.data, MDL_ST)
        index = part.topology.int_attributes.get(MDL_ST_INDEX)
        if blob is not None and index is not None and len(blob) % TEXCOORD.itemsize == 0:
            records = np.frombuffer(blob, TEXCOORD)
            stored = (records["onseam"], records["s"], records["t"], np.asarray(index)[:, ::-1])
    return assign_st_table(file_tris, corner_st, facesfront, num_vertices, skin_width, stored)


def rapo_kept_st(mesh, tex: TexcoordAssignment, count: int) -> tuple[np.ndarray, TexcoordAssignment] | None:
    """stindex rows for the ``count`` kept degenerate triangles: the stored rows while the table is the
    imported one, else their imported records appended to the new table. None if nothing fits."""
    blob, table = stored_bytes(mesh, MDL_DEGENERATE_ST), stored_bytes(mesh, MDL_ST)
    if blob is None or table is None or len(blob) != count * DEGENERATE_MDL_ST.itemsize:
        return None
    rows = np.frombuffer(blob, DEGENERATE_MDL_ST)["st"].astype(np.int32)
    old = np.frombuffer(table, TEXCOORD) if len(table) % TEXCOORD.itemsize == 0 else None
    if old is None or rows.size and (rows.min() < 0 or rows.max() >= len(old)):
        return None
    same = (len(old) == len(tex.s) and np.array_equal(old["s"], tex.s) and np.array_equal(old["t"], tex.t)
            and np.array_equal(old["onseam"], tex.onseam))
    if same:
        return rows, tex
    used, inverse = np.unique(rows, return_inverse=True)
    base = len(tex.s)
    grown = TexcoordAssignment(np.concatenate([tex.onseam, old["onseam"][used]]).astype(np.int32),
                               np.concatenate([tex.s, old["s"][used]]).astype(np.int32),
                               np.concatenate([tex.t, old["t"][used]]).astype(np.int32),
                               tex.triangles, tex.source_vertex, tex.st_triangles)
    return (base + inverse.reshape(rows.shape)).astype(np.int32), grown


def sixteen_bit(positions: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(high, low) uint8 (P, V, 3) bytes of the nearest MD16 values."""
    fine = quantize16(positions, scale, translate)
    return (fine >> 8).astype(np.uint8), (fine & 255).astype(np.uint8)


def low_records(low: np.ndarray, kept: np.ndarray, match: np.ndarray, stored: np.ndarray | None) -> np.ndarray:
    """(P, V, 4) MD16 low-byte records: the bytes, and the unused fourth byte kept from the import for
    unchanged poses (0 elsewhere)."""
    out = np.zeros(low.shape[:2] + (4,), np.uint8)
    out[..., :3] = low
    if stored is not None and kept.any():
        out[kept, :, 3] = stored["low"]["normal_index"][match[kept]]
    return out


__all__ = ["IDPO", "MD16", "RAPO", "export_variant", "low_records", "rapo_kept_st", "rapo_texcoords", "sixteen_bit"]
