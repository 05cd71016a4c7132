"""The 162 precomputed unit normals (anorms.h) indexed by MD2 and MDL normal bytes.

Nearest index: the entry with the largest float32 dot product (the first on a tie), as
``argmax(normal @ table.T)``. Comparing every normal with all 162 entries costs most of an edited
export, so each normal is looked up on a cube map instead: the cell its direction falls in lists the
few entries that can be nearest to any direction in that cell (with a margin), only those are compared
(in float64), and a normal whose best two candidates are too close to call in float32, or that is
zero, huge or not finite, is compared with the whole table as before. The result is the same index.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

_TABLE = Path(__file__).with_name("anorms.tsv")
_CELLS = 48                # cube-map cells per face edge
_MARGIN = 0.002            # radians added to a cell's radius on either side
_TINY, _HUGE = np.float32(1e-15), np.float32(1e15)   # other lengths: compared with the whole table
_CLOSE = 1e-5              # best two candidate dots closer than this (times |normal|): full comparison


@lru_cache(maxsize=1)
def anorms() -> np.ndarray:
    """(162, 3) float32 table, row i is normal index i."""
    table = np.loadtxt(_TABLE, comments="#", dtype=np.float64)
    return table[:, 1:4].astype(np.float32)


def _cell_of(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Cube-map cell of each non-zero direction (components ``x``, ``y``, ``z``): face (major axis
    and sign), then the cell of the other two coordinates over the major one's magnitude."""
    ax, ay, az = np.abs(x), np.abs(y), np.abs(z)
    on_x = (ax >= ay) & (ax >= az)
    on_y = ~on_x & (ay >= az)
    on_z = ~on_x & ~on_y
    major = np.where(on_x, x, np.where(on_y, y, z))
    u = np.where(on_x, y, np.where(on_y, z, x))
    v = np.where(on_x, z, np.where(on_y, x, y))
    scale = (_CELLS / 2.0) / np.abs(major)
    iu = np.clip(((u * scale) + _CELLS / 2.0).astype(np.int64), 0, _CELLS - 1)
    iv = np.clip(((v * scale) + _CELLS / 2.0).astype(np.int64), 0, _CELLS - 1)
    face = on_y * 2 + on_z * 4 + (major < 0)
    return (face * _CELLS + iu) * _CELLS + iv


@lru_cache(maxsize=1)
def _candidates() -> np.ndarray:
    """(6 * cells * cells, K) ascending table indices that can be nearest within each cell (padded
    with the cell's last candidate), from :func:`_candidate_mask`."""
    mask = _candidate_mask()
    count = mask.sum(axis=1)
    # each row's candidates in ascending order (a stable sort puts the True entries first), padded
    # with its last candidate
    order = np.argsort(~mask, axis=1, kind="stable")[:, :count.max()]
    column = np.arange(order.shape[1])
    return np.where(column[None, :] < count[:, None], order, order[np.arange(len(order)), count - 1][:, None])


def _candidate_mask() -> np.ndarray:
    """(6 * cells * cells, 162) True for the table entries that can be nearest within each cell. A
    cell is a convex spherical quadrilateral, so every direction in it is within the largest corner
    angle ``r`` of its centre ``c``; an entry ``a`` can beat the entry ``b`` nearest to ``c``
    somewhere in the cell only if angle(c, a) - r <= angle(c, b) + r."""
    table = anorms().astype(np.float64)
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    edges = np.linspace(-1.0, 1.0, _CELLS + 1)
    centres = (edges[:-1] + edges[1:]) / 2.0
    masks = []
    for face in range(6):
        axis, odd = divmod(face, 2)
        sign = -1.0 if odd else 1.0

        def direction(u, v, axis=axis, sign=sign):
            d = np.zeros(np.broadcast(u, v).shape + (3,))
            d[..., axis] = sign
            d[..., (axis + 1) % 3] = u
            d[..., (axis + 2) % 3] = v
            return d / np.linalg.norm(d, axis=-1, keepdims=True)

        iu, iv = np.meshgrid(np.arange(_CELLS), np.arange(_CELLS), indexing="ij")
        centre = direction(centres[iu], centres[iv])
        radius = np.zeros(iu.shape)
        for du in (0, 1):
            for dv in (0, 1):
                corner = direction(edges[iu + du], edges[iv + dv])
                radius = np.maximum(radius, np.arccos(np.clip(np.sum(corner * centre, -1), -1, 1)))
        angle = np.arccos(np.clip(centre @ unit.T, -1.0, 1.0))
        bound = angle.min(axis=-1, keepdims=True) + 2.0 * radius[..., None] + 2.0 * _MARGIN
        masks.append((angle <= bound).reshape(-1, len(unit)))
    return np.concatenate(masks)


def _full_argmax(flat: np.ndarray, chunk: int) -> np.ndarray:
    table = anorms()
    out = np.empty(len(flat), dtype=np.uint8)
    for start in range(0, len(flat), chunk):
        out[start:start + chunk] = np.argmax(flat[start:start + chunk] @ table.T, axis=1)
    return out


@lru_cache(maxsize=1)
def _cell_lookup() -> tuple[np.ndarray, np.ndarray]:
    """Per cell: its first candidate (uint8) and whether it is the only one. A cell with one candidate:
    that entry is nearest anywhere in the cell by more than the margin, far beyond float32 rounding,
    so no dot product is needed."""
    candidates = _candidates()
    return candidates[:, 0].astype(np.uint8), np.all(candidates == candidates[:, :1], axis=1)


def nearest_normal_index(normals: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """uint8 index of the table entry with the largest dot product for each (..., 3) normal."""
    flat = np.asarray(normals, dtype=np.float32).reshape(-1, 3)
    out = np.empty(len(flat), dtype=np.uint8)
    first, single = _cell_lookup()
    full = []
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        for start in range(0, len(flat), chunk):
            components = np.ascontiguousarray(flat[start:start + chunk].T)
            x, y, z = components
            length = np.sqrt(x * x + y * y + z * z)
            usable = (length > _TINY) & (length < _HUGE)          # False for NaN
            if not usable.all():
                x, y, z = (np.where(usable, c, np.float32(1.0)) for c in (x, y, z))
            cell = _cell_of(x, y, z)
            np.take(first, cell, out=out[start:start + len(cell)])
            several = np.flatnonzero(~single.take(cell))
            if len(several):
                cx, cy, cz = (c.take(several).astype(np.float64) for c in components)
                pick, close = _best_candidate(cx, cy, cz, cell.take(several))
                out[start + several] = pick
                full.append(start + several[close])
            full.append(start + np.flatnonzero(~usable))
    full = np.concatenate(full) if full else np.zeros(0, np.int64)
    if len(full):
        out[full] = _full_argmax(flat[full], chunk)
    return out.reshape(np.shape(normals)[:-1])


def _best_candidate(x: np.ndarray, y: np.ndarray, z: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidate of its cell with the largest float64 dot product for each normal (float64
    components ``x``, ``y``, ``z``; the first of equals), and whether the best two are too close to
    call in float32."""
    tx, ty, tz = anorms().astype(np.float64).T
    columns = _candidate_columns()
    length = np.sqrt(x * x + y * y + z * z)
    best = second = pick = None
    for column in columns:
        index = column.take(cells)
        dot = tx.take(index) * x + ty.take(index) * y + tz.take(index) * z
        if best is None:
            best, pick, second = dot, index, np.full_like(dot, -np.inf)
            continue
        better = dot > best                     # ascending indices: the first of equals stays
        other = index != pick                   # padding repeats the last candidate
        second = np.where(better, best, np.where(other, np.maximum(second, dot), second))
        pick = np.where(better, index, pick)
        best = np.where(better, dot, best)
    return pick, second > best - _CLOSE * length


@lru_cache(maxsize=1)
def _candidate_columns() -> np.ndarray:
    """(K, cells) the candidate lists by column, contiguous."""
    return np.ascontiguousarray(_candidates().T)


def steady_normal_indices(normals: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """(F, V) nearest indices of (F, V, 3) frame normals; a vertex whose normal did not change
    (within ``tolerance`` per component) since the previous frame keeps that frame's index."""
    normals = np.asarray(normals, dtype=np.float32)
    out = nearest_normal_index(normals)
    if len(normals) > 1:
        change = np.subtract(normals[1:], normals[:-1])
        np.abs(change, out=change)
        # the largest of the three changes (NaN stays NaN), not np.all over a length-3 axis: much faster
        largest = np.maximum(np.maximum(change[..., 0], change[..., 1]), change[..., 2])
        same = largest <= tolerance
        # only the vertices whose normal stays put somewhere: an edited model often has none
        steady = np.flatnonzero(same.reshape(len(same), -1).any(axis=0))
        if len(steady):
            flat_out, flat_same = out.reshape(len(out), -1), same.reshape(len(same), -1)
            # each vertex takes the index of the last frame at or before this one whose normal changed
            frame = np.where(flat_same[:, steady], 0, np.arange(1, len(out))[:, None])
            source = np.maximum.accumulate(np.concatenate([np.zeros((1, len(steady)), np.int64), frame]), axis=0)
            flat_out[:, steady] = np.take_along_axis(flat_out[:, steady], source, axis=0)
    return out
