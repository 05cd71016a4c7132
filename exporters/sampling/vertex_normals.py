"""Vertex normals of many frames at once, as Blender computes them, in numpy (no bpy).

Blender (``blenkernel/intern/mesh_normals.cc``, ``normals_calc_verts`` and the corner fans of
``normals_calc_corners``): a polygon's normal is its vector area (Newell's method for n-gons; the
same direction as ``normal_tri_v3`` / ``normal_quad_v3`` for triangles and quads, ``(0, 0, 1)``
when degenerate); a vertex (or a fan of corners) sums the unit normals of its polygons, each
weighted by the polygon's angle at that corner (``acos`` of the two edge directions; Blender uses
``safe_acos_approx``, within about 1e-4 rad of it), and normalises. The polygon, not the triangles
Blender shows it with, is the unit: a non-planar quad counts once, with its own normal and its two
corner angles.

Custom normals are carried from the mesh they were read on (the reference) to each frame in
their vertex's space, as Blender carries them (:mod:`.custom_normals`). A vertex (or copy) with custom normals
gets the mean of its corners' normals weighted by the corner angles, normalised: what Blender 5
reports as the vertex normal of such a mesh (``mix_normals_corner_to_vert``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .custom_normals import VertexEdges, decode, encode, lengths, rows_of, vertex_edges, vertex_spaces
from .triangle_normals import triangle_slots, triangle_vertex_normals

CHUNK_VALUES = 1 << 17       # frames are processed in chunks of about this many corner values (a chunk's arrays stay in cache)


@dataclass
class PolygonCorners:
    """The polygons of a mesh by corner: what normals need besides positions.

    ``corner_vertex`` (C,) vertex of each corner; ``corner_polygon`` (C,) its polygon;
    ``corner_next`` / ``corner_prev`` (C,) the next / previous corner of the same polygon (Blender's
    order); ``polygon_first`` (P,) the first corner of each polygon; ``custom`` (C, 2)
    coefficients of each corner's custom normal in its vertex's space (NaN rows for corners without
    one; :mod:`.custom_normals`), None when no corner has one; ``edges`` the vertices' edges those
    spaces are built on."""
    corner_vertex: np.ndarray
    corner_polygon: np.ndarray
    corner_next: np.ndarray
    corner_prev: np.ndarray
    polygon_first: np.ndarray
    custom: np.ndarray | None = None
    edges: VertexEdges | None = None


def polygon_corners(corner_vertex: np.ndarray, polygon_start: np.ndarray, polygon_size: np.ndarray) -> PolygonCorners:
    """Corner links from Blender's ``loop_start`` / ``loop_total`` per polygon and ``vertex_index`` per loop."""
    start = np.asarray(polygon_start, dtype=np.int64)
    size = np.asarray(polygon_size, dtype=np.int64)
    count = int(size.sum())
    within = np.arange(count, dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    corners = np.repeat(start, size) + within
    polygon = np.repeat(np.arange(len(start), dtype=np.int64), size)
    nxt = np.repeat(start, size) + (within + 1) % np.repeat(size, size)
    prv = np.repeat(start, size) + (within - 1) % np.repeat(size, size)
    num_corners = len(corner_vertex)
    corner_polygon = np.zeros(num_corners, dtype=np.int64)
    corner_next = np.arange(num_corners, dtype=np.int64)
    corner_prev = np.arange(num_corners, dtype=np.int64)
    corner_polygon[corners], corner_next[corners], corner_prev[corners] = polygon, nxt, prv
    return PolygonCorners(np.asarray(corner_vertex, dtype=np.int64), corner_polygon, corner_next, corner_prev,
                          start)


def _unit(v: np.ndarray, fallback: np.ndarray | None = None) -> np.ndarray:
    """``v`` over its length (:func:`.custom_normals.lengths`, at least 1e-300), ``fallback`` where the length
    is not > 0."""
    length = lengths(v)[..., None]
    out = v / np.maximum(length, 1e-300)
    if fallback is not None:
        out = np.where(length > 0, out, fallback)
    return out


def polygon_normals(pos: np.ndarray, corners: PolygonCorners) -> np.ndarray:
    """(F, P, 3) unit polygon normals of (F, V, 3) positions."""
    frames = len(pos)
    num_polygons = len(corners.polygon_first)
    origin = rows_of(pos, corners.corner_vertex[corners.polygon_first[corners.corner_polygon]])
    here = rows_of(pos, corners.corner_vertex) - origin
    there = rows_of(pos, corners.corner_vertex[corners.corner_next]) - origin
    area = np.cross(here, there)                           # (F, C, 3): twice the vector area, summed
    index = (np.arange(frames)[:, None] * num_polygons + corners.corner_polygon[None, :]).ravel()
    total = np.stack([np.bincount(index, area[..., k].ravel(), frames * num_polygons) for k in range(3)], axis=-1)
    return _unit(total.reshape(frames, num_polygons, 3), np.array([0.0, 0.0, 1.0]))


def corner_angles(pos: np.ndarray, corners: PolygonCorners) -> np.ndarray:
    """(F, C) the polygon's angle at each corner, in radians."""
    here = rows_of(pos, corners.corner_vertex)
    to_prev = _unit(rows_of(pos, corners.corner_vertex[corners.corner_prev]) - here)
    to_next = _unit(rows_of(pos, corners.corner_vertex[corners.corner_next]) - here)
    return np.arccos(np.clip(np.einsum("fck,fck->fc", to_prev, to_next), -1.0, 1.0))


def _auto_vertex_normals(face_weighted: np.ndarray, corners: PolygonCorners, num_vertices: int) -> np.ndarray:
    """(F, V, 3) automatic vertex normals from (F, C, 3) angle-weighted polygon normals per corner."""
    return _sum_by(face_weighted, corners.corner_vertex, num_vertices)


def custom_coefficients(reference: np.ndarray, corners: PolygonCorners, corner_normals: np.ndarray) -> np.ndarray:
    """(C, 2) each corner normal (read on the (V, 3) ``reference`` positions) in its vertex's space
    (:mod:`.custom_normals`); also sets ``corners.edges``."""
    pos = np.asarray(reference, dtype=np.float64)[None]
    corners.edges = vertex_edges(corners.corner_vertex, corners.corner_next, corners.corner_prev, pos.shape[1])
    weighted = rows_of(polygon_normals(pos, corners), corners.corner_polygon) * corner_angles(pos, corners)[..., None]
    lnor = _auto_vertex_normals(weighted, corners, pos.shape[1])
    spaces = vertex_spaces(pos, lnor, corners.edges)
    return encode(corner_normals, corners.corner_vertex, lnor[0], *(space[0] for space in spaces))


def grouped_normals(positions: np.ndarray, corners: PolygonCorners, groups: np.ndarray | None = None,
                    num_groups: int | None = None) -> np.ndarray:
    """(F, G, 3) float32 unit normals of (F, V, 3) positions for groups of corners (default: one
    group per vertex, ``groups`` = ``corner_vertex``); a group without corners gets +Z."""
    pos = np.asarray(positions, dtype=np.float64)
    if groups is None:
        groups, num_groups = corners.corner_vertex, pos.shape[1]
    groups = np.asarray(groups, dtype=np.int64)
    out = np.empty((len(pos), num_groups, 3), dtype=np.float32)
    triangles = _triangle_corners(corners)
    custom = corners.custom is not None and corners.edges is not None
    if triangles is not None and not custom:
        triangle_vertex_normals(pos, corners.corner_vertex, triangles, groups, num_groups, out)
        return out
    every_corner = triangles is not None and custom and bool(np.isfinite(corners.custom).all())
    slots = (triangle_slots(triangles, corners.corner_vertex, len(corners.edges.reference)) if every_corner
             else None)
    chunk = max(1, CHUNK_VALUES // max(len(groups), 1))
    for start in range(0, len(pos), chunk):
        part = pos[start:start + chunk]
        out[start:start + chunk] = (_custom_chunk(part, corners, triangles, slots, groups, num_groups) if every_corner
                                    else _chunk(part, corners, groups, num_groups))
    return out


def _custom_chunk(pos: np.ndarray, corners: PolygonCorners, triangles: np.ndarray, slots, groups: np.ndarray,
                  num_groups: int) -> np.ndarray:
    """:func:`_chunk` of a mesh of triangles whose every corner has a custom normal: the automatic vertex
    normals (``slots``: their :func:`.triangle_normals.triangle_slots`) and the corner angles from
    :mod:`.triangle_normals` (the same bits), the rest as there."""
    num_vertices = len(corners.edges.reference)        # copies (Split Normals) follow them
    lnor = np.empty((len(pos), num_vertices, 3))
    angles = np.empty((len(pos), len(corners.corner_vertex)))
    triangle_vertex_normals(pos, corners.corner_vertex, triangles, corners.corner_vertex, num_vertices, lnor, angles,
                            slots)
    spaces = vertex_spaces(pos[:, :num_vertices], lnor, corners.edges)
    first, inverse = _distinct_custom(corners)
    custom = _unit(decode(corners.custom[first], corners.corner_vertex[first], lnor, *spaces))
    return _sum_by(rows_of(custom, inverse) * angles[..., None], groups, num_groups)


def _distinct_custom(corners: PolygonCorners) -> tuple[np.ndarray, np.ndarray]:
    """(D,) a first corner of each distinct (vertex, custom coefficients) and (C,) each corner's one of them:
    corners of a vertex with the same coefficients (bit for bit) get the same normal, decoded once (a
    smooth vertex has one custom normal for all its corners: an MD3 import sets them so). Worked out once
    per ``corners`` and its ``custom`` array (a new array assigned to it is worked out again)."""
    cached = getattr(corners, "_distinct_custom", None)
    if cached is None or cached[0] is not corners.custom:
        keys = np.empty((len(corners.corner_vertex), 3), np.int64)
        keys[:, 0] = corners.corner_vertex
        keys[:, 1:] = np.ascontiguousarray(corners.custom, np.float64).view(np.int64)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        cached = corners._distinct_custom = (corners.custom, first, inverse.ravel())
    return cached[1], cached[2]


def _chunk(pos: np.ndarray, corners: PolygonCorners, groups: np.ndarray, num_groups: int) -> np.ndarray:
    face = polygon_normals(pos, corners)
    angles = corner_angles(pos, corners)[..., None]
    contribution = rows_of(face, corners.corner_polygon) * angles
    if corners.custom is not None and corners.edges is not None:
        has = np.all(np.isfinite(corners.custom), axis=1)
        if has.any():
            num_vertices = len(corners.edges.reference)        # copies (Split Normals) follow them
            lnor = _auto_vertex_normals(contribution, corners, num_vertices)
            spaces = vertex_spaces(pos[:, :num_vertices], lnor, corners.edges)
            custom = decode(corners.custom[has], corners.corner_vertex[has], lnor, *spaces)
            contribution[:, has] = _unit(custom) * angles[:, has]
    return _sum_by(contribution, groups, num_groups)


def _triangle_corners(corners: PolygonCorners) -> np.ndarray | None:
    """(P, 3) the corners of each polygon in Blender's order when every polygon is a triangle and
    every corner belongs to one, else None (worked out once per ``corners``)."""
    cached = getattr(corners, "_triangles", None)
    if cached is not None:
        return cached if len(cached) else None
    first = np.asarray(corners.polygon_first, dtype=np.int64)
    second = corners.corner_next[first]
    third = corners.corner_next[second]
    table = np.stack([first, second, third], axis=1)
    proper = (len(first) > 0 and len(first) * 3 == len(corners.corner_vertex)
              and np.array_equal(corners.corner_next[third], first)
              and np.array_equal(np.sort(table.ravel()), np.arange(len(corners.corner_vertex)))
              and np.array_equal(corners.corner_polygon[table], np.repeat(np.arange(len(first)), 3).reshape(-1, 3)))
    corners._triangles = table if proper else np.zeros((0, 3), np.int64)
    return table if proper else None


def _sum_by(values: np.ndarray, groups: np.ndarray, num_groups: int) -> np.ndarray:
    """(F, G, 3) unit sums of (F, C, 3) ``values`` by ``groups`` (+Z for a group summing to zero)."""
    frames = len(values)
    index = (np.arange(frames)[:, None] * num_groups + groups[None, :]).ravel()
    total = np.stack([np.bincount(index, values[..., k].ravel(), frames * num_groups) for k in range(3)], axis=-1)
    return _unit(total.reshape(frames, num_groups, 3), np.array([0.0, 0.0, 1.0]))
