"""How an import left a mesh lit, so the export can tell whether its normals were edited since.

An export writes a file's stored normals back only where the positions are the file's and the mesh
is still lit as the import left it. MD2, MDL and MD3 store a normal per vertex, and the exports compute
it as Blender does: the mean of the vertex's face normals weighted by the corner angles, or of its
corner normals when the mesh has custom normals (what Blender 5 reports as the vertex normal then).
So flat faces and sharp edges on a mesh without custom normals change nothing there; with custom
normals they may. The import keeps that normal of every vertex rounded to int8 (``round(127 n)``, three
bytes a vertex) in :data:`IMPORT_SHADING`; the export works it out again and counts the shading as
edited when one moved more than :data:`TOLERANCE` steps on an axis (about a degree: far beyond what
storing custom normals and recomputing them in another Blender changes; a vertex whose corners nearly
cancel, faces back to back, has no steady direction and is not compared) or the vertices differ in
number, or when a modifier that sets normals is on. That catches Flip, Clear Custom Split Normals, Reset
Vectors, Average, Set from Faces, Weighted Normal, Normal Edit and Data Transfer. A mesh without the
record (imported before it was kept, or a record that is not bytes) counts as lit as imported, as it
always did.
"""
from __future__ import annotations

import numpy as np

import bpy

from ..formats.message_text import quoted
from .contract import IMPORT_SHADING
from .stored_records import stored_bytes

TOLERANCE = 2                 # int8 steps (of 1/127) a vertex normal may move on an axis
UNSETTLED = 0.25              # a vertex whose weighted sum is shorter than this times its angles is not compared
NORMAL_MODIFIERS = frozenset({"WEIGHTED_NORMAL", "NORMAL_EDIT", "DATA_TRANSFER", "NODES"})


def _read(collection, attribute: str, width: int, dtype) -> np.ndarray:
    values = np.empty(len(collection) * width, dtype)
    collection.foreach_get(attribute, values)
    return values.reshape(-1, width) if width > 1 else values


def _vertex_normals(mesh: bpy.types.Mesh) -> np.ndarray:
    """(V * 3,) int8 :func:`vertex_means` of ``mesh``: of its corner normals when it has custom
    normals, else of its face normals."""
    custom = mesh.has_custom_normals
    normals = _read(mesh.corner_normals if custom else mesh.polygon_normals, "vector", 3, np.float32)
    return vertex_means(_read(mesh.vertices, "co", 3, np.float32), _read(mesh.loops, "vertex_index", 1, np.int32),
                        _read(mesh.polygons, "loop_start", 1, np.int32), _read(mesh.polygons, "loop_total", 1, np.int32),
                        corner=normals if custom else None, polygon=None if custom else normals).ravel()


def vertex_means(co: np.ndarray, vertex: np.ndarray, start: np.ndarray, size: np.ndarray,
                 corner: np.ndarray | None = None, polygon: np.ndarray | None = None) -> np.ndarray:
    """(V, 3) int8: each vertex's ``corner`` normals (C, 3), or its ``polygon`` normals (P, 3), averaged
    by corner angle and rounded to 127ths, for positions ``co`` (V, 3), each corner's vertex (C,) and
    each polygon's first corner and corner count (P,); 0 for a vertex without corners or whose corners
    nearly cancel."""
    co = np.asarray(co, np.float64)
    vertex, start, size = (np.asarray(a, np.int64) for a in (vertex, start, size))
    first = np.repeat(start, size)
    within = np.arange(len(first)) - np.repeat(np.cumsum(size) - size, size)
    count = np.repeat(size, size)
    loops = first + within
    here = co[vertex[loops]]
    to_prev = co[vertex[first + (within - 1) % count]] - here
    to_next = co[vertex[first + (within + 1) % count]] - here
    lengths = np.linalg.norm(to_prev, axis=1) * np.linalg.norm(to_next, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cos = np.where(lengths > 0, np.einsum("ij,ij->i", to_prev, to_next) / lengths, 1.0)
    angle = np.arccos(np.clip(cos, -1.0, 1.0))
    normal = (np.asarray(corner, np.float64)[loops] if corner is not None
              else np.repeat(np.asarray(polygon, np.float64), size, axis=0))
    weighted = normal * angle[:, None]
    total = np.stack([np.bincount(vertex[loops], weighted[:, k], len(co)) for k in range(3)], axis=1).astype(np.float64)
    length = np.linalg.norm(total, axis=1, keepdims=True)
    # a vertex whose corners nearly cancel (faces back to back) has no direction to speak of: left 0
    settled = length > UNSETTLED * np.bincount(vertex[loops], angle, len(co))[:, None]
    unit = np.divide(total, length, out=np.zeros_like(total), where=settled & (length > 0))
    return np.rint(unit * 127.0).astype(np.int8)


def same_shading(before: np.ndarray, now: np.ndarray) -> bool:
    """Whether (V, 3) int8 :func:`vertex_means` ``now`` are ``before`` within :data:`TOLERANCE` (vertices
    left 0 on either side not compared)."""
    if before.shape != now.shape:
        return False
    compared = before.any(axis=1) & now.any(axis=1)
    moved = np.abs(now[compared].astype(np.int16) - before[compared])
    return not moved.size or int(moved.max()) <= TOLERANCE


def record_import_shading(mesh: bpy.types.Mesh) -> None:
    """Keep how ``mesh`` is lit now (once its normals, custom or not, are set)."""
    mesh[IMPORT_SHADING] = _vertex_normals(mesh).tobytes()


def shaded_as_imported(obj: bpy.types.Object | None) -> bool:
    """Whether ``obj``'s mesh is lit as its import left it (True without a record)."""
    if obj is None or obj.type != "MESH":
        return True
    stored = stored_bytes(obj.data, IMPORT_SHADING)       # None also for another type: no record
    if stored is None:
        return True
    if any(m.type in NORMAL_MODIFIERS and m.show_viewport for m in obj.modifiers):
        return False
    if len(stored) % 3:
        return False
    return same_shading(np.frombuffer(stored, np.int8).reshape(-1, 3), _vertex_normals(obj.data).reshape(-1, 3))


def relit_report(names: list[str]) -> str:
    """The export report's line for meshes whose stored normals were not written back."""
    shown = ", ".join(quoted(n) for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return (f"normals computed as Blender shades the mesh, not the file's: the shading of {shown} was edited "
            "since the import")
