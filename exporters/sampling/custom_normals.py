"""Custom normals carried from the mesh they were read on to other frames, as Blender carries them.

Blender stores a custom normal relative to its corner fan's space (``blenkernel/intern/
mesh_normals.cc``: ``corner_fan_space_define``, ``corner_space_custom_normal_to_data`` and
``corner_space_custom_data_to_normal``): ``vec_lnor`` the fan's automatic normal, ``ref_alpha`` the
mean angle between it and the fan's edges, ``vec_ref`` an edge projected on its plane and
``vec_ortho = vec_lnor x vec_ref``. The stored ``alpha`` factor scales with ``ref_alpha`` (``alpha =
ref_alpha * f``, or ``(2 pi - ref_alpha) * f`` for f < 0) and ``beta`` likewise with ``ref_beta``,
the turn from ``vec_ref`` to the fan's last edge (a full turn around a closed fan). So as the mesh deforms a custom normal tilts with the fan's
automatic normal and opens or closes with its edges. Here every vertex is one fan (all its
corners, all its edges: a smooth vertex inside the mesh or on one border; fans split by sharp
edges are approximated by the vertex's), with the edges Blender takes (``traverse_fan_local_corners``):
for a closed fan ``vec_ref`` is the next edge of the vertex's lowest-numbered corner; for an open
fan the border edge leaving it (some corner's next edge) and ``vec_other`` the other border.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TAU = 2.0 * np.pi
LNOR_SPACE_TRIGO_THRESHOLD = 1.0 - 1e-4


@dataclass
class VertexEdges:
    """The edges of each vertex: ``source`` -> ``target`` (each edge once per end, grouped by source),
    ``reference`` (V,) the index of each vertex's ``vec_ref`` edge and ``other`` (V,) its
    ``vec_other`` edge on an open fan (-1: none, or a closed fan, whose ``ref_beta`` is a full turn)."""
    source: np.ndarray
    target: np.ndarray
    reference: np.ndarray
    other: np.ndarray


def vertex_edges(corner_vertex: np.ndarray, corner_next: np.ndarray, corner_prev: np.ndarray,
                 num_vertices: int) -> VertexEdges:
    """Every polygon edge seen from both its ends, and each vertex's reference edges: a closed fan's
    first corner is its lowest-numbered one; an open fan (two border edges) runs from the corner whose
    next edge is a border to the corner whose previous edge is the other border."""
    corner_vertex = np.asarray(corner_vertex, dtype=np.int64)
    after, before = corner_vertex[corner_next], corner_vertex[corner_prev]
    next_keys = corner_vertex * num_vertices + after
    prev_keys = corner_vertex * num_vertices + before
    keys, uses = np.unique(np.concatenate([next_keys, prev_keys]), return_counts=True)
    source, target = keys // num_vertices, keys % num_vertices
    keep = source != target
    keys, uses, source, target = keys[keep], uses[keep], source[keep], target[keep]

    def edge_of(wanted: np.ndarray) -> np.ndarray:
        if not len(keys):
            return np.full(len(wanted), -1, dtype=np.int64)
        found = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[found] == wanted, found, -1)
    reference = np.full(num_vertices, -1, dtype=np.int64)
    other = np.full(num_vertices, -1, dtype=np.int64)
    first_corner = np.full(num_vertices, len(corner_vertex), dtype=np.int64)
    np.minimum.at(first_corner, corner_vertex, np.arange(len(corner_vertex)))
    used = np.flatnonzero(first_corner < len(corner_vertex))
    reference[used] = edge_of(used * num_vertices + after[first_corner[used]])
    border = uses == 1
    borders = np.bincount(source[border], minlength=num_vertices)
    open_fan = borders == 2
    border_next = np.isin(next_keys, keys[border]) & open_fan[corner_vertex]
    border_prev = np.isin(prev_keys, keys[border]) & open_fan[corner_vertex]
    reference[corner_vertex[border_next]] = edge_of(next_keys[border_next])
    other[corner_vertex[border_prev]] = edge_of(prev_keys[border_prev])
    return VertexEdges(source, target, reference, other)


def merged_edges(parts: list[VertexEdges], vertex_counts: list[int]) -> VertexEdges:
    """Several meshes' edges as one mesh's (vertices numbered on, in order)."""
    vertex_offsets = np.cumsum([0] + list(vertex_counts))
    edge_offsets = np.cumsum([0] + [len(e.source) for e in parts])

    def shifted(values: np.ndarray, offset: int) -> np.ndarray:
        return np.where(values >= 0, values + offset, -1)
    return VertexEdges(np.concatenate([e.source + off for e, off in zip(parts, vertex_offsets)]),
                       np.concatenate([e.target + off for e, off in zip(parts, vertex_offsets)]),
                       np.concatenate([shifted(e.reference, off) for e, off in zip(parts, edge_offsets)]),
                       np.concatenate([shifted(e.other, off) for e, off in zip(parts, edge_offsets)]))


def lengths(v: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(v, axis=-1)`` of (..., 3) vectors, the squares added as it adds them,
    ``(x * x + y * y) + z * z`` (the same bits), without its reduction over an axis of three."""
    square = v * v
    length = square[..., 0] + square[..., 1]
    length += square[..., 2]
    return np.sqrt(length, out=length)


def _unit(v: np.ndarray) -> np.ndarray:
    """``v / max(np.linalg.norm(v, axis=-1), 1e-300)``."""
    length = lengths(v)
    np.maximum(length, 1e-300, out=length)
    return v / length[..., None]


def rows_of(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[:, index]`` (``np.take`` along axis 1: the same copy, several times faster)."""
    return np.take(values, index, axis=1)


def vertex_spaces(pos: np.ndarray, lnor: np.ndarray, edges: VertexEdges) -> tuple[np.ndarray, ...]:
    """(F, V, 3) ``vec_ref``, (F, V, 3) ``vec_ortho``, (F, V) ``ref_alpha`` and (F, V) ``ref_beta``
    of each vertex's space for (F, V, 3) positions and automatic vertex normals ``lnor``."""
    frames, num_vertices = pos.shape[:2]
    direction = rows_of(pos, edges.target)
    direction -= rows_of(pos, edges.source)
    direction = _unit(direction)
    angle = np.arccos(np.clip(np.einsum("fek,fek->fe", direction, rows_of(lnor, edges.source)), -1.0, 1.0))
    index = (np.arange(frames)[:, None] * num_vertices + edges.source[None, :]).ravel()
    total = np.bincount(index, angle.ravel(), frames * num_vertices).reshape(frames, num_vertices)
    count = np.bincount(edges.source, minlength=num_vertices)
    ref_alpha = total / np.maximum(count, 1)
    has = np.flatnonzero(edges.reference >= 0)
    ref = np.zeros_like(lnor)
    chosen = rows_of(direction, edges.reference[has])
    normal = rows_of(lnor, has)
    ref[:, has] = _unit(chosen - np.einsum("fvk,fvk->fv", chosen, normal)[..., None] * normal)
    ortho = np.cross(lnor, ref)
    ref_beta = np.full((frames, num_vertices), TAU)
    has = np.flatnonzero(edges.other >= 0)
    if len(has):
        chosen = rows_of(direction, edges.other[has])
        normal = rows_of(lnor, has)
        flat = _unit(chosen - np.einsum("fvk,fvk->fv", chosen, normal)[..., None] * normal)
        dtp = np.einsum("fvk,fvk->fv", rows_of(ref, has), flat)
        beta = np.arccos(np.clip(dtp, -1.0, 1.0))
        beta = np.where(np.einsum("fvk,fvk->fv", rows_of(ortho, has), flat) < 0, TAU - beta, beta)
        ref_beta[:, has] = np.where(dtp < LNOR_SPACE_TRIGO_THRESHOLD, beta, TAU)
    return ref, ortho, ref_alpha, ref_beta


def _factor(angle: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Blender's factor of an angle in [0, 2 pi): ``angle / ref`` up to ``ref``, else negative."""
    return np.where(angle <= reference, angle / np.maximum(reference, 1e-300),
                    -(TAU - angle) / np.maximum(TAU - reference, 1e-300))


def _angle(factor: np.ndarray, reference: np.ndarray) -> np.ndarray:
    return np.where(factor > 0, reference, TAU - reference) * factor


def encode(normals: np.ndarray, vertex: np.ndarray, lnor: np.ndarray, ref: np.ndarray, ortho: np.ndarray,
           ref_alpha: np.ndarray, ref_beta: np.ndarray) -> np.ndarray:
    """(C, 2) alpha and beta factors of each corner's (C, 3) normal in its vertex's space (one frame:
    (V, 3) / (V,) spaces). NaN rows where the space is degenerate (no edges, or ``ref_alpha`` 0)."""
    n = _unit(np.asarray(normals, dtype=np.float64))
    lnor, ref, ortho = lnor[vertex], ref[vertex], ortho[vertex]
    ref_alpha, ref_beta = ref_alpha[vertex], ref_beta[vertex]
    cos_alpha = np.clip(np.einsum("ck,ck->c", n, lnor), -1.0, 1.0)
    alpha = np.arccos(cos_alpha)
    flat = n - lnor * cos_alpha[:, None]
    beta = np.mod(np.arctan2(np.einsum("ck,ck->c", flat, ortho), np.einsum("ck,ck->c", flat, ref)), TAU)
    out = np.stack([_factor(alpha, ref_alpha), _factor(beta, ref_beta)], axis=1)
    out[(ref_alpha <= 0) | (np.linalg.norm(ref, axis=1) == 0)] = np.nan
    return out


def decode(coefficients: np.ndarray, vertex: np.ndarray, lnor: np.ndarray, ref: np.ndarray, ortho: np.ndarray,
           ref_alpha: np.ndarray, ref_beta: np.ndarray) -> np.ndarray:
    """(F, C, 3) corner normals from their :func:`encode` coefficients and (F, V, ...) spaces."""
    alpha = _angle(coefficients[None, :, 0], rows_of(ref_alpha, vertex))
    beta = _angle(coefficients[None, :, 1], rows_of(ref_beta, vertex))
    side = np.cos(beta)[..., None] * rows_of(ref, vertex) + np.sin(beta)[..., None] * rows_of(ortho, vertex)
    return np.cos(alpha)[..., None] * rows_of(lnor, vertex) + np.sin(alpha)[..., None] * side
