"""Vertex normals of a mesh of triangles over many frames: the float64 arithmetic of
:mod:`.vertex_normals` (``polygon_normals``, ``corner_angles``, ``_sum_by``), bit for bit, with less
memory traffic.

Why the bits are the same (every operation is one IEEE-754 double operation, correctly rounded, or
``np.arccos`` on the same value; the tests compare with the previous code):

* Arrays are laid out element by frame ((triangles, frames), a chunk of frames at a time), so every
  gather copies whole rows; the values and operations per element are unchanged.
* Newell's sum of a triangle (a, b, c) is ``cross(b - a, c - a)`` plus two zero terms; with ``ca = a - c`` (the edge the
  corner angles need) ``c - a == -ca`` exactly (rounding to nearest is symmetric), so
  ``ab1 * ac2 - ab2 * ac1 == ab2 * ca1 - ab1 * ca2``, and so on. Only the sign of a zero can change,
  and a zero only ever reaches a sum that starts from +0 (below), which drops it.
* A corner's cosine, ``einsum("fck,fck->fc", to_prev, to_next)``, adds its three products as
  ``(x + z) + y`` (numpy's kernel pairs them two by two: not documented, found by comparing with
  every other order on random vectors, numpy 2.4 and 2.5, and checked by the identity tests, which
  call einsum itself); ``to_prev`` is minus an edge direction, so it is minus the same sum of the
  unnegated products (again up to the sign of a zero, and ``arccos(-0) == arccos(+0)``), then
  clipped to [-1, 1] and passed to ``np.arccos`` on contiguous float64 arrays, as before.
* A vertex's normal is ``np.bincount`` of its corners' ``face * angle``: bincount adds the weights in
  corner order to an accumulator that starts at +0. Here each vertex's corners are listed in corner
  order (``_Slots``) and added one slot (the vertex's first corner, second corner, ...) at a time to
  accumulators started at +0: the same additions in the same order. Vertices are sorted by their
  number of corners, so slot j is a prefix of the vertices and needs no padding.
* Every normalisation is the previous ``_unit``'s: ``sqrt((x*x + y*y) + z*z)`` (what ``np.linalg.norm``
  adds for three values), clamped below at 1e-300, one division per coordinate, and +Z where the
  length is not > 0 (face and vertex normals; the edge directions have no fallback).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CHUNK_FRAMES = 16         # frames per chunk: about 20 (triangles x 16) float64 arrays stay in cache
CHUNK_VALUES = 1 << 17    # at most this many triangle values per array: fewer frames a chunk for big meshes


@dataclass
class _Slots:
    """Which corner each vertex (group) adds in turn. ``order`` (G,) groups by corner count, most
    first (ties by index); ``where`` (G,) each group's row in that order; ``angle[j]`` / ``face[j]``
    the angle row (``i * T + t`` for corner i of triangle t) and triangle of each listed group's
    (j+1)-th corner, for the first ``len(angle[j])`` groups in ``order``."""
    order: np.ndarray
    where: np.ndarray
    angle: list[np.ndarray]
    face: list[np.ndarray]


def triangle_slots(table: np.ndarray, groups: np.ndarray, num_groups: int) -> _Slots:
    num_tris = len(table)
    corner = table.ravel()                                   # corner i of triangle t at t * 3 + i
    angle_row = (np.arange(3)[None, :] * num_tris + np.arange(num_tris)[:, None]).ravel()
    tri = np.repeat(np.arange(num_tris), 3)
    by_corner = np.argsort(corner, kind="stable")            # every corner once: ascending corner index
    corner_group = groups[corner[by_corner]]
    ranked = by_corner[np.argsort(corner_group, kind="stable")]   # by group, then corner
    count = np.bincount(groups, minlength=num_groups)
    start = np.cumsum(count) - count
    ranked_group = groups[corner[ranked]]
    rank = np.arange(len(ranked)) - start[ranked_group]
    order = np.argsort(-count, kind="stable")
    where = np.empty(num_groups, dtype=np.int64)
    where[order] = np.arange(num_groups)
    angle, face = [], []
    for j in range(int(count.max(initial=0))):
        pick = ranked[rank == j]
        row = where[groups[corner[pick]]]
        a, f = np.empty(len(pick), np.int64), np.empty(len(pick), np.int64)
        a[row], f[row] = angle_row[pick], tri[pick]
        angle.append(a)
        face.append(f)
    return _Slots(order, where, angle, face)


def triangle_vertex_normals(pos: np.ndarray, corner_vertex: np.ndarray, table: np.ndarray, groups: np.ndarray,
                            num_groups: int, out: np.ndarray, angles: np.ndarray | None = None,
                            slots: _Slots | None = None) -> None:
    """Write into ``out`` (F, G, 3) the unit normals of (F, V, 3) float64 positions for groups of
    corners of triangles ``table`` (T, 3) (the corners of each triangle in Blender's order), and into
    ``angles`` (F, C) float64, when given, each corner's angle (``vertex_normals.corner_angles``);
    ``slots``: :func:`triangle_slots` of the same table and groups, for a caller that calls again."""
    slots = slots if slots is not None else triangle_slots(table, groups, num_groups)
    verts = [corner_vertex[table[:, i]] for i in range(3)]
    num_tris, frames = len(table), len(pos)
    width = max(1, min(CHUNK_FRAMES, frames, CHUNK_VALUES // max(num_tris, 1)))
    work = _Work(num_tris, num_groups, width)
    for start in range(0, frames, width):
        chunk = pos[start:start + width]
        count = len(chunk)
        part = work.view(count)
        result = _chunk(np.ascontiguousarray(chunk.transpose(2, 1, 0)), verts, slots, part)
        out[start:start + count] = np.stack(result, axis=-1)[slots.where].transpose(1, 0, 2)
        if angles is not None:
            for i in range(3):                  # row i * T + t: corner i of triangle t
                angles[start:start + count, table[:, i]] = part.angle[i * num_tris:(i + 1) * num_tris].T


class _Work:
    """Buffers reused by every chunk: (rows, frames) float64 arrays."""

    def __init__(self, num_tris: int, num_groups: int, width: int):
        self.width = width
        self.tri = np.empty((15, num_tris, width))
        self.angle = np.empty((3 * num_tris, width))
        self.group = np.empty((5, num_groups, width))

    def view(self, count: int) -> _Work:
        if count == self.width:
            return self
        part = object.__new__(_Work)
        part.width = count
        part.tri, part.angle, part.group = (np.ascontiguousarray(a[..., :count]) for a in (self.tri, self.angle, self.group))
        return part


def _chunk(comp: np.ndarray, verts: list[np.ndarray], slots: _Slots, work: _Work) -> list[np.ndarray]:
    """Unit normals (3 x (G, frames), groups in ``slots.order``) of one chunk; ``comp`` (3, V, frames)."""
    t = work.tri
    a, b, c = t[0], t[1], t[2]
    ab, bc, ca = (t[3:6], t[6:9], t[9:12])
    face = t[12:15]
    for k in range(3):
        np.take(comp[k], verts[0], axis=0, out=a)
        np.take(comp[k], verts[1], axis=0, out=b)
        np.take(comp[k], verts[2], axis=0, out=c)
        np.subtract(b, a, out=ab[k])
        np.subtract(c, b, out=bc[k])
        np.subtract(a, c, out=ca[k])
    for k, (i, j) in enumerate(((1, 2), (2, 0), (0, 1))):     # face = ab x ac with ac = -ca
        np.multiply(ab[j], ca[i], out=a)
        np.multiply(ab[i], ca[j], out=b)
        np.subtract(a, b, out=face[k])
    _unit3(face, a, b, (0.0, 0.0, 1.0))
    for edge in (ab, bc, ca):
        _unit3(edge, a, b)
    num_tris = len(a)
    for i, (prev, nxt) in enumerate(((ca, ab), (ab, bc), (bc, ca))):  # to_prev = -prev
        cos = work.angle[i * num_tris:(i + 1) * num_tris]
        np.multiply(prev[0], nxt[0], out=a)
        np.multiply(prev[2], nxt[2], out=b)
        np.add(a, b, out=a)
        np.multiply(prev[1], nxt[1], out=b)
        np.add(a, b, out=a)
        np.negative(a, out=a)
        np.clip(a, -1.0, 1.0, out=a)
        np.arccos(a, out=cos)
    total = work.group[:3]
    total.fill(0.0)
    weight, term = work.group[3], work.group[4]
    for angle_row, tri in zip(slots.angle, slots.face):
        n = len(angle_row)
        np.take(work.angle, angle_row, axis=0, out=weight[:n])
        for k in range(3):
            np.take(face[k], tri, axis=0, out=term[:n])
            np.multiply(term[:n], weight[:n], out=term[:n])
            np.add(total[k][:n], term[:n], out=total[k][:n])
    _unit3(total, None, None, (0.0, 0.0, 1.0))
    return list(total)


def _unit3(v: np.ndarray, length: np.ndarray | None, scratch: np.ndarray | None,
           fallback: tuple[float, float, float] | None = None) -> None:
    """Normalise the vector with coordinate arrays ``v[0..2]`` in place: ``sqrt(x*x + y*y + z*z)``
    clamped below at 1e-300 divides each, and ``fallback`` replaces it where the length is not > 0
    (:func:`.vertex_normals._unit3`, the same operations)."""
    x, y, z = v
    if length is None:
        length, scratch = np.empty_like(x), np.empty_like(x)
    length = length[:len(x)]
    scratch = scratch[:len(x)]
    np.multiply(x, x, out=length)
    np.multiply(y, y, out=scratch)
    np.add(length, scratch, out=length)
    np.multiply(z, z, out=scratch)
    np.add(length, scratch, out=length)
    np.sqrt(length, out=length)
    zero = ~(length > 0) if fallback is not None else None
    np.maximum(length, 1e-300, out=length)
    for k in v:
        np.divide(k, length, out=k)
    if zero is not None and zero.any():
        for k, value in zip(v, fallback):
            k[zero] = value
