"""An IQM export's meshes matched back to the imported file's meshes by index, numpy only.

An import makes Blender vertex ``v`` of a mesh object from the file's vertex ``first_vertex + v`` of
the mesh the object stores (``IQM_MESH_INDEX``); a merged object (``IQM_MERGED``) holds mesh s in
material slot s, its vertices after the previous meshes' (``importers/iqm/iqm_meshes.py``). The
geometry says which Blender vertex each written vertex is (``Geometry.sources``), so the file vertex of
every vertex of such an object's IQM mesh (its only slot, or slot s) is known without comparing values
(:func:`file_meshes`). That mesh still has the import's vertices (:func:`match_meshes`) where:

- its vertices are every vertex of the file's mesh, none other (a vertex deleted or added under it, one
  no face uses, a face of another material, is a change);
- Blender split none of them, but for custom-normal noise: Blender keeps a custom normal per fan of
  corners, so a vertex of two fans comes back as two normals 1e-4 apart (the corpus's panda and top
  hat); copies of one vertex with the same texture coordinates (within :data:`UV_TOLERANCE`) and
  colour and normals within :data:`NORMAL_NOISE` of each other are one vertex again (the first copy's).

Such a mesh is written with its vertices in the file's order, each where it is within
:data:`POSITION_NOISE` of the mesh's size of the file's position times *Scale* at exactly that (the
Armature modifier at rest moves vertices by float32 rounding: 7.6e-6 at most in the corpus's palm
tree, nothing without the modifier), and with the file's triangles (order and first corner) where they
are the same triangles (each the same three vertices turning the same way), else the export's,
numbered as the file's vertices. Its vertices are the file's values where moreover every one has the
file's position (times *Scale*), texture coordinates and normal (within :data:`NORMAL_NOISE`).
"""
from __future__ import annotations

import numpy as np

from ...common.iqm.contract import IQM_MERGED, IQM_MESH_INDEX
from ...common.stored_records import stored_int
from ...formats.iqm.animation import vertex_values
from ...formats.iqm.records import COLOR, NORMAL, POSITION, TEXCOORD, IqmModel

POSITION_NOISE = 1e-5               # of the mesh's largest coordinate (at least 1)
UV_TOLERANCE = 1e-5
NORMAL_NOISE = 1e-2                 # Blender's custom normals: 7e-3 at most from the file's in the corpus


def file_meshes(slots: list, kept: IqmModel) -> list[tuple[int, int] | None]:
    """For each export mesh (object, material slot): (the file's mesh, what to add to a Blender vertex
    index to make it the file's vertex index) where the import made it, else None."""
    firsts = kept.meshes["first_vertex"].astype(np.int64)
    counts = kept.meshes["num_vertexes"].astype(np.int64)
    out: list[tuple[int, int] | None] = []
    for obj, slot in slots:
        merged = stored_int(obj, IQM_MERGED, 0)
        index = slot if merged else (stored_int(obj, IQM_MESH_INDEX, -1) if slot == 0 else -1)
        if not 0 <= index < (min(merged, len(kept.meshes)) if merged else len(kept.meshes)):
            out.append(None)
        else:
            out.append((index, int(firsts[index] - (counts[:index].sum() if merged else 0))))
    return out


def _turned(triangles: np.ndarray) -> np.ndarray:
    """Each triangle turned so its smallest vertex comes first (the same triangle, the same winding)."""
    start = triangles.argmin(axis=1)
    return np.stack([triangles[np.arange(len(triangles)), (start + k) % 3] for k in range(3)], 1)


def same_triangles(ours: np.ndarray, theirs: np.ndarray) -> bool:
    """Whether ``ours`` are ``theirs`` in another order, each maybe from another first corner."""
    if ours.shape != theirs.shape:
        return False
    a, b = _turned(ours.astype(np.int64)), _turned(theirs.astype(np.int64))
    return np.array_equal(a[np.lexsort(a.T[::-1])], b[np.lexsort(b.T[::-1])])


def _within(values: np.ndarray | None, expected: np.ndarray, tolerance: float) -> bool:
    return values is not None and values.shape[1] >= expected.shape[1] and \
        bool(np.abs(values[:, :expected.shape[1]].astype(np.float64) - expected).max(initial=0.0) <= tolerance)


def _file_rows(model: IqmModel, kept: IqmModel, first: int, count: int, found: tuple[int, int],
               source: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(the export's row of each of the file mesh's vertices, each row's vertex in the file's mesh), or
    None where the mesh's vertices are not the import's (module docstring)."""
    their_first, their_count = int(kept.meshes[found[0]]["first_vertex"]), int(kept.meshes[found[0]]["num_vertexes"])
    file = np.asarray(source, np.int64) + found[1] - their_first
    if len(file) != count or not count or (file < 0).any() or (file >= their_count).any():
        return None
    _, pick = np.unique(file, return_index=True)
    if len(pick) != their_count:
        return None
    rows, copy_of = first + np.arange(count), first + pick[file]
    for kind, tolerance in ((TEXCOORD, UV_TOLERANCE), (NORMAL, NORMAL_NOISE), (COLOR, 0.0)):     # a vertex's copies
        array = model.array(kind)
        if array is not None and not _within(array.data[rows], array.data[copy_of].astype(np.float64), tolerance):
            return None
    return first + pick, file


def _file_arrays(kept: IqmModel) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """The file's positions, texture coordinates and unit normals, decoded once for every mesh."""
    normals = vertex_values(kept, NORMAL)
    if normals is not None:
        with np.errstate(all="ignore"):
            normals = normals[:, :3] / np.linalg.norm(normals[:, :3].astype(np.float64), axis=1, keepdims=True)
    return vertex_values(kept, POSITION), vertex_values(kept, TEXCOORD), normals


def _file_values(model: IqmModel, files: tuple, first: int, their_first: int, count: int, scale: float) -> bool:
    """Give the vertices ``first`` on (the file's ``their_first`` on, in its order) the file's position times
    ``scale`` where they are within :data:`POSITION_NOISE` of it; whether every one has the file's position,
    texture coordinates and normal (``files``: :func:`_file_arrays`)."""
    positions, texcoords, normals = files
    if positions is None or positions.shape[1] < 3:
        return False
    target, part = model.array(POSITION), slice(first, first + count)
    want = positions[their_first:their_first + count, :3].astype(np.float64) * scale
    near = np.abs(target.data[part].astype(np.float64) - want).max(axis=1) <= \
        POSITION_NOISE * max(1.0, float(np.abs(want).max(initial=0.0)))
    target.data[first + np.flatnonzero(near)] = want[near].astype(target.data.dtype)
    for kind, theirs, width, tolerance in ((TEXCOORD, texcoords, 2, UV_TOLERANCE),
                                           (NORMAL, normals, 3, NORMAL_NOISE)):
        ours = model.array(kind)
        if theirs is not None and (ours is None or not _within(
                ours.data[part], theirs[their_first:their_first + count, :width], tolerance)):
            return False
    return bool(near.all())


def match_meshes(model: IqmModel, kept: IqmModel, found: list[tuple[int, int] | None], sources: list[np.ndarray],
                 scale: float) -> tuple[list[int | None], list[bool], list[bool]]:
    """Put each mesh of ``model`` that still has the import's vertices of its file mesh (``found``,
    :func:`file_meshes`; ``sources`` the object's vertex of each of its vertices) in the file's vertex order,
    with the file's positions times ``scale`` where they are and its triangles where they are the same.
    Returns each mesh's file mesh (None: not the import's vertices), whether it has the file's triangles,
    and whether its vertices have the file's values (:func:`_file_values`)."""
    take, matched = [], []
    renumber = np.arange(model.num_vertexes)
    start = 0
    for mesh, pair, source in zip(model.meshes, found, sources):
        first, count = int(mesh["first_vertex"]), int(mesh["num_vertexes"])
        rows = None if pair is None else _file_rows(model, kept, first, count, pair, source)
        pick, new = (np.arange(first, first + count), np.arange(count)) if rows is None else rows
        take.append(pick)
        renumber[first:first + count] = start + new
        matched.append(None if rows is None else pair[0])
        mesh["first_vertex"], mesh["num_vertexes"] = start, len(pick)
        start += len(pick)
    chosen = np.concatenate(take) if take else np.zeros(0, np.int64)
    for array in model.vertex_arrays:
        array.data = array.data[chosen]
    model.num_vertexes = start
    model.triangles = renumber[model.triangles.astype(np.int64)].astype(np.uint32)
    kept_triangles, values = [], []
    files = _file_arrays(kept) if any(index is not None for index in matched) else (None, None, None)
    for mesh, index in zip(model.meshes, matched):
        if index is None:
            kept_triangles.append(False)
            values.append(False)
            continue
        record = kept.meshes[index]
        first, their_first = int(mesh["first_vertex"]), int(record["first_vertex"])
        values.append(_file_values(model, files, first, their_first, int(record["num_vertexes"]), scale))
        ours = slice(int(mesh["first_triangle"]), int(mesh["first_triangle"]) + int(mesh["num_triangles"]))
        start = int(record["first_triangle"])
        theirs = kept.triangles[start:start + int(record["num_triangles"])].astype(np.int64) - their_first + first
        same = same_triangles(model.triangles[ours], theirs)
        if same:
            model.triangles[ours] = theirs.astype(np.uint32)
        kept_triangles.append(same)
    return matched, kept_triangles, values
