"""MDL's one texture coordinate per vertex, from per-corner texel coordinates.

A vertex record is ``(onseam, s, t)``. A corner of a triangle with ``facesfront == 0`` reads
``s + skinwidth // 2`` when its vertex is on the seam; other corners read ``s``. So a vertex whose
front-facing corners sit at ``s`` and back-facing corners exactly half a skin to the right at
``s + skinwidth // 2`` needs only one record (on the seam). Any other disagreement between a
vertex's corners needs a copy of the vertex with a record of its own: those copies are appended
after the original vertices, which keep their indices.

Hexen II's RAPO lifts the rule: triangles index a texcoord table of their own (``stindex``), so a
vertex keeps one position whatever texels its corners use (:func:`assign_st_table`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class TexcoordAssignment:
    onseam: np.ndarray         # (V',) int32, 0 or 0x20 as id's tools write
    s: np.ndarray              # (V',) int32
    t: np.ndarray              # (V',) int32
    triangles: np.ndarray      # (T, 3) int32, indices into the V' records
    source_vertex: np.ndarray  # (V',) int64: the original vertex each record belongs to
    st_triangles: np.ndarray | None = None   # RAPO: (T, 3) int32 indices into the records; then
                                              # ``triangles`` are vertex indices and V' is the record count

    @property
    def vertices_added(self) -> int:
        return len(self.source_vertex) - int(self.source_vertex.max(initial=-1)) - 1 if len(self.source_vertex) else 0


SEAM_FLAG = 0x20


def effective_st(onseam: np.ndarray, s: np.ndarray, t: np.ndarray, triangles: np.ndarray,
                 facesfront: np.ndarray, skin_width: int) -> np.ndarray:
    """(T, 3, 2) texel coordinates each corner reads, with the seam rule."""
    seam = (onseam[triangles] != 0) & (facesfront[:, None] == 0)
    return np.stack([s[triangles] + np.where(seam, skin_width // 2, 0), t[triangles]], axis=-1)


def sampled_texels(onseam: np.ndarray, s: np.ndarray, t: np.ndarray, triangles: np.ndarray, facesfront: np.ndarray,
                   skin_width: int) -> np.ndarray:
    """(T, 3, 2) float: where Quake samples each corner, in texels from the skin's top-left corner:
    ``(s + 0.5, t + 0.5)`` with the seam rule (ironwail ``gl_mesh.c`` ``GLMesh_LoadVertexBuffer``)."""
    return effective_st(np.asarray(onseam), np.asarray(s), np.asarray(t), np.asarray(triangles), np.asarray(facesfront),
                        skin_width).astype(np.float64) + 0.5


def assign_texcoords(triangles: np.ndarray, corner_st: np.ndarray, facesfront: np.ndarray, num_vertices: int,
                     skin_width: int, stored: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
                     ) -> TexcoordAssignment:
    """Vertex records that give every corner its texel; ``stored`` records are kept if they still do."""
    triangles = np.asarray(triangles, dtype=np.int64)
    corner_st = np.asarray(corner_st, dtype=np.int64)
    facesfront = np.asarray(facesfront, dtype=np.int64)
    if stored is not None and len(stored[0]) == num_vertices:
        onseam, s, t = (np.asarray(a, dtype=np.int32) for a in stored)
        if np.array_equal(effective_st(onseam, s, t, triangles, facesfront, skin_width), corner_st):
            return TexcoordAssignment(onseam, s, t, triangles.astype(np.int32), np.arange(num_vertices))
    half = skin_width // 2
    front = np.repeat(facesfront != 0, 3)
    verts = triangles.ravel()
    values = corner_st.reshape(-1, 2)
    wanted: list[dict] = [{} for _ in range(num_vertices)]   # vertex -> {(is_front, s, t): corners}
    for corner, (v, f, (s, t)) in enumerate(zip(verts.tolist(), front.tolist(), values.tolist())):
        wanted[v].setdefault((f, s, t), []).append(corner)
    records: list[tuple[int, int, int]] = []
    owner: list[int] = []
    extra_records: list[tuple[int, int, int]] = []
    extra_owner: list[int] = []
    corner_record = np.empty(len(verts), dtype=np.int64)
    for v, needs in enumerate(wanted):
        made: list[tuple[tuple[int, int, int], list[int]]] = []
        fronts = [(s, t) for (f, s, t) in needs if f]
        backs = {(s, t) for (f, s, t) in needs if not f}
        for s, t in fronts:
            corners = list(needs[(True, s, t)])
            if (s, t) in backs:
                corners += needs.pop((False, s, t))
                backs.discard((s, t))
                made.append(((0, s, t), corners))
            elif (s + half, t) in backs:
                corners += needs.pop((False, s + half, t))
                backs.discard((s + half, t))
                made.append(((SEAM_FLAG, s, t), corners))
            else:
                made.append(((0, s, t), corners))
        for s, t in sorted(backs):
            made.append(((0, s, t), needs[(False, s, t)]))
        if not made:
            made.append(((0, 0, 0), []))
        for k, (record, corners) in enumerate(made):
            if k == 0:
                records.append(record)
                owner.append(v)
                corner_record[corners] = v
            else:
                corner_record[corners] = num_vertices + len(extra_records)
                extra_records.append(record)
                extra_owner.append(v)
    table = np.array(records + extra_records, dtype=np.int32).reshape(-1, 3)
    return TexcoordAssignment(table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy(),
                              corner_record.reshape(-1, 3).astype(np.int32),
                              np.array(owner + extra_owner, dtype=np.int64))


def assign_st_table(triangles: np.ndarray, corner_st: np.ndarray, facesfront: np.ndarray, num_vertices: int,
                    skin_width: int,
                    stored: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
                    ) -> TexcoordAssignment:
    """RAPO: a texcoord table and per-corner indices into it; no vertex is split.

    ``stored`` (onseam, s, t, stindex (T, 3)) is kept while every corner still reads its texel
    through it (seam rule included); otherwise one record per distinct texel, in first-use order.
    """
    triangles = np.asarray(triangles, dtype=np.int64)
    corner_st = np.asarray(corner_st, dtype=np.int64).reshape(len(triangles), 3, 2)
    facesfront = np.asarray(facesfront, dtype=np.int64)
    if stored is not None:
        onseam, s, t, index = (np.asarray(a, dtype=np.int64) for a in stored)
        if (index.shape == triangles.shape and len(s) and (index.size == 0 or (index.min() >= 0
                                                                                and index.max() < len(s)))
                and np.array_equal(effective_st(onseam, s, t, index, facesfront, skin_width), corner_st)):
            return TexcoordAssignment(onseam.astype(np.int32), s.astype(np.int32), t.astype(np.int32),
                                      triangles.astype(np.int32), np.arange(num_vertices), index.astype(np.int32))
    flat = corner_st.reshape(-1, 2)
    if len(flat):
        unique, first, inverse = np.unique(flat, axis=0, return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        table, index = unique[order], rank[np.ravel(inverse)]
    else:
        table, index = np.zeros((0, 2), np.int64), np.zeros(0, np.int64)
    return TexcoordAssignment(np.zeros(len(table), np.int32), table[:, 0].astype(np.int32),
                              table[:, 1].astype(np.int32), triangles.astype(np.int32),
                              np.arange(num_vertices), index.reshape(-1, 3).astype(np.int32))
