"""The edited-export code as it was before the speed work of issue 33 (commit 9e295ff), copied here as the
reference the faster code must match bit for bit: the nearest anorm by comparing with the whole table
(``formats/anorms.py``), vertex normals through per-corner arrays (``exporters/sampling/vertex_normals.py``),
the MD2 export's check of which frames keep their imported grid (``exporters/md2/build.py``) and its per-frame
grids and their error (``formats/md2/lattice.py``, as they were before buffers were reused)."""
from __future__ import annotations

import numpy as np

from exporters.sampling.vertex_normals import PolygonCorners
from formats.anorms import anorms
from formats.quantize import dequantize, frames_on_grid, quantize


def nearest_normal_index(normals: np.ndarray, chunk: int = 1 << 16) -> np.ndarray:
    """uint8 index of the table entry with the largest dot product for each (..., 3) normal."""
    table = anorms()
    flat = np.asarray(normals, dtype=np.float32).reshape(-1, 3)
    out = np.empty(len(flat), dtype=np.uint8)
    with np.errstate(invalid="ignore", over="ignore"):
        for start in range(0, len(flat), chunk):
            out[start:start + chunk] = np.argmax(flat[start:start + chunk] @ table.T, axis=1)
    return out.reshape(np.shape(normals)[:-1])


def _unit(v: np.ndarray, fallback: np.ndarray | None = None) -> np.ndarray:
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    out = v / np.maximum(length, 1e-300)
    if fallback is not None:
        out = np.where(length > 0, out, fallback)
    return out


def polygon_normals(pos: np.ndarray, corners: PolygonCorners) -> np.ndarray:
    frames = len(pos)
    num_polygons = len(corners.polygon_first)
    origin = pos[:, corners.corner_vertex[corners.polygon_first[corners.corner_polygon]]]
    here = pos[:, corners.corner_vertex] - origin
    there = pos[:, corners.corner_vertex[corners.corner_next]] - origin
    area = np.cross(here, there)
    index = (np.arange(frames)[:, None] * num_polygons + corners.corner_polygon[None, :]).ravel()
    total = np.stack([np.bincount(index, area[..., k].ravel(), frames * num_polygons) for k in range(3)], axis=-1)
    return _unit(total.reshape(frames, num_polygons, 3), np.array([0.0, 0.0, 1.0]))


def corner_angles(pos: np.ndarray, corners: PolygonCorners) -> np.ndarray:
    here = pos[:, corners.corner_vertex]
    to_prev = _unit(pos[:, corners.corner_vertex[corners.corner_prev]] - here)
    to_next = _unit(pos[:, corners.corner_vertex[corners.corner_next]] - here)
    return np.arccos(np.clip(np.einsum("fck,fck->fc", to_prev, to_next), -1.0, 1.0))


def _sum_by(values: np.ndarray, groups: np.ndarray, num_groups: int) -> np.ndarray:
    frames = len(values)
    index = (np.arange(frames)[:, None] * num_groups + groups[None, :]).ravel()
    total = np.stack([np.bincount(index, values[..., k].ravel(), frames * num_groups) for k in range(3)], axis=-1)
    return _unit(total.reshape(frames, num_groups, 3), np.array([0.0, 0.0, 1.0]))


def grouped_normals(positions: np.ndarray, corners: PolygonCorners, groups: np.ndarray | None = None,
                    num_groups: int | None = None, chunk_values: int = 1 << 19) -> np.ndarray:
    """(F, G, 3) float32 automatic normals (no custom normals), as before."""
    pos = np.asarray(positions, dtype=np.float64)
    if groups is None:
        groups, num_groups = corners.corner_vertex, pos.shape[1]
    groups = np.asarray(groups, dtype=np.int64)
    out = np.empty((len(pos), num_groups, 3), dtype=np.float32)
    chunk = max(1, chunk_values // max(len(groups), 1))
    for start in range(0, len(pos), chunk):
        part = pos[start:start + chunk]
        contribution = polygon_normals(part, corners)[:, corners.corner_polygon] * corner_angles(part, corners)[..., None]
        out[start:start + chunk] = _sum_by(contribution, groups, num_groups)
    return out


def md2_quantize(positions: np.ndarray, match: np.ndarray, stored, grid: str = "AUTO"):
    """``exporters/md2/build.py`` ``_quantize`` as it was."""
    count = len(match)
    if stored is None:
        match = np.full(count, -1, dtype=np.int64)
    has = match >= 0
    scale = np.empty((count, 3), np.float32)
    translate = np.empty((count, 3), np.float32)
    verts = np.empty(positions.shape, np.uint8)
    normals = np.zeros(positions.shape[:2], np.uint8)
    kept = np.zeros(count, dtype=bool)
    if has.any():
        scale[has], translate[has] = stored.scale[match[has]], stored.translate[match[has]]
        verts[has] = stored.verts[match[has]]
        decoded = dequantize(verts[has], scale[has], translate[has])
        kept[has] = np.all(decoded == positions[has], axis=(1, 2))
        moved = has & ~kept
        if moved.any():
            verts[moved] = quantize(positions[moved], scale[moved], translate[moved])
            has[moved] = frames_on_grid(positions[moved], verts[moved], scale[moved], translate[moved])
            kept[moved] = has[moved] & np.all(verts[moved] == stored.verts[match[moved]], axis=(1, 2))
        normals[kept] = stored.normals[match[kept]]
    grids = None
    if not has.all():
        grids = md2_frame_grids(positions[~has], grid)
        scale[~has], translate[~has], verts[~has] = grids.scale, grids.translate, grids.verts
    return scale, translate, verts, normals, kept, grids


def glcmd_triangles(words: np.ndarray, num_vertices: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``formats/md2/glcmds.py`` ``glcmd_triangles`` as it was: command by command."""
    from formats.md2.glcmds import decode_glcmds
    vertex, s, t = [], [], []
    for command in decode_glcmds(words, num_vertices):
        corners = command.corner_records()
        vertex.append(command.vertex[corners])
        s.append(command.s[corners])
        t.append(command.t[corners])
    if not vertex:
        return (np.zeros((0, 3), np.int32), np.zeros((0, 3), np.float32),
                np.zeros((0, 3), np.float32))
    return (np.concatenate(vertex).astype(np.int32), np.concatenate(s).astype(np.float32),
            np.concatenate(t).astype(np.float32))


def steady_normal_indices(normals: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """``formats/anorms.py`` ``steady_normal_indices`` as it was: frame by frame."""
    normals = np.asarray(normals, dtype=np.float32)
    out = nearest_normal_index(normals)
    if len(normals) > 1:
        same = np.all(np.abs(np.diff(normals, axis=0)) <= tolerance, axis=-1)
        for f in range(1, len(out)):
            out[f] = np.where(same[f - 1], out[f - 1], out[f])
    return out


def md5_tokens(data: bytes) -> tuple[list, list, list, list]:
    """``formats/md5/text.py`` ``Md5Text``'s scan as it was, one match per token: (tokens, quoted, starts,
    ends); a ValueError naming the offset of a quoted string left open."""
    from formats.md5.text import _SCAN
    data = bytes(data)
    tokens, starts, ends, quoted = [], [], [], []
    nul = data.find(b"\0")
    pos, size = 0, len(data) if nul < 0 else nul
    while pos < size:
        match = _SCAN.match(data, pos, size)
        if match.group(2) is None:
            break
        start, end = match.span(2)
        raw = match.group(2)
        if raw[:1] == b'"':
            if len(raw) < 2 or raw[-1:] != b'"':
                raise ValueError(start)
            tokens.append(raw[1:-1])
            quoted.append(True)
        else:
            tokens.append(raw)
            quoted.append(False)
        starts.append(start)
        ends.append(end)
        pos = end
    return tokens, quoted, starts, ends


# ---- MDL fullbright pixels (``exporters/mdl/fullbright.py`` before packed colours) ------------------------------

def fullbright_pixels(rgba, mask_rgba, imported, palette, rgba_to_indices):
    from formats.images.palette import FULLBRIGHT_START
    if mask_rgba is None:
        return None
    masked = mask_rgba[..., :3].astype(np.int32).sum(axis=-1) >= 3 * 128
    if imported is None:
        return masked
    repainted = np.any(rgba[..., :3] != palette[imported][..., :3], axis=-1)
    follows = repainted & (masked == (imported >= FULLBRIGHT_START))
    if follows.any():
        nearest = rgba_to_indices(rgba[follows][None], palette, ordinary=(0, len(palette)))[0]
        masked = masked.copy()
        masked[follows] = nearest >= FULLBRIGHT_START
    return masked


def far_from_fullbright(rgba, fullbright, indices, palette, far_distance: float = 10.0) -> int:
    from formats.images.palette import ciede2000, srgb_to_lab
    if not fullbright.any():
        return 0
    colours, where = np.unique(rgba[fullbright][:, :3], axis=0, return_inverse=True)
    chosen = np.zeros(len(colours), np.int64)
    chosen[where.ravel()] = indices[fullbright]
    far = ciede2000(srgb_to_lab(colours), srgb_to_lab(palette[chosen])) > far_distance
    return int(far[where.ravel()].sum())



def far_from_fullbright_moved(rgba, fullbright, indices, palette) -> int:
    """The count as it was before the kept pixels were handed in: only the fullbright pixels not showing
    their index's colour (compared channel by channel here) are looked at."""
    changed = np.any(rgba[..., :3] != palette[indices][..., :3], axis=-1)
    return far_from_fullbright(rgba, fullbright & changed, indices, palette)


# ---- MD2 grid choice (``formats/md2/lattice.py`` ``frame_grids`` before the few-vertex look) --------------------

def _per_frame(comp: np.ndarray, lo: np.ndarray, hi: np.ndarray):
    """``formats/md2/lattice.py`` ``_per_frame`` as it was (a new array per operation)."""
    from formats.quantize import grid_from_bounds
    scale, translate = grid_from_bounds(lo.T, hi.T)
    dtype = comp.dtype
    verts = np.empty(comp.shape[1:] + (3,), np.uint8)
    for axis in range(3):
        s = scale[:, axis].astype(dtype)[:, None]
        inverse = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
        q = np.rint((comp[axis] - translate[:, axis].astype(dtype)[:, None]) * inverse)
        verts[..., axis] = np.clip(q, 0, 255, out=q)
    return scale, translate, verts


def _max_error(comp: np.ndarray, scale: np.ndarray, translate: np.ndarray, verts: np.ndarray) -> float:
    """``formats/md2/lattice.py`` ``_max_error`` as it was."""
    if verts.size == 0:
        return 0.0
    total = np.zeros(comp.shape[1:], np.float64)
    for axis in range(3):
        decoded = (verts[..., axis].astype(np.float32) * scale[:, axis, None]
                   + translate[:, axis, None]).astype(np.float32)
        delta = decoded.astype(np.float64) - comp[axis]
        total += delta * delta
    return float(np.sqrt(total.max()))


def md2_frame_grids(positions: np.ndarray, mode: str = "AUTO"):
    from formats.md2.lattice import AUTO_TOLERANCE, FrameGrids, _components, _shared
    comp = _components(positions)
    lo, hi = comp.min(axis=-1), comp.max(axis=-1)
    per_frame = shared = None
    if mode != "PER_FRAME":
        lattice = _shared(comp, lo, hi)
        if lattice is not None:
            shared = FrameGrids(*lattice, "SHARED", _max_error(comp, *lattice))
    if mode != "SHARED" or shared is None:
        grids = _per_frame(comp, lo, hi)
        per_frame = FrameGrids(*grids, "PER_FRAME", _max_error(comp, *grids))
    if shared is None:
        return per_frame
    if per_frame is None or shared.max_error <= AUTO_TOLERANCE * per_frame.max_error:
        return shared
    return per_frame


# ---- MDL grid and radius (``exporters/mdl/build.py`` ``_grid``, ``_radius_and_size`` before shared bounds) -------

def mdl_grid(stored, positions: np.ndarray, sixteen: bool = False):
    from formats.mdl.variants import frames_on_lattice16
    from formats.quantize import frames_on_grid, grid_from_bounds, quantize
    if stored is not None and len(stored) == 6:
        scale, translate = np.array(stored[:3], np.float32), np.array(stored[3:], np.float32)
        s, t = np.broadcast_to(scale, (len(positions), 3)), np.broadcast_to(translate, (len(positions), 3))
        if (frames_on_lattice16(positions, scale, translate) if sixteen
                else frames_on_grid(positions, quantize(positions, s, t), s, t)).all():
            return scale, translate
    flat = positions.reshape(-1, 3)
    return grid_from_bounds(flat.min(axis=0), flat.max(axis=0))


def mdl_radius_and_size(positions: np.ndarray, file_tris: np.ndarray) -> tuple[float, float]:
    flat = positions.reshape(-1, 3).astype(np.float64)
    corner = np.maximum(np.abs(flat.min(axis=0)), np.abs(flat.max(axis=0)))
    p = positions[0].astype(np.float64)[file_tris]
    areas = 0.5 * np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    return float(np.linalg.norm(corner)), float(areas.mean()) if len(areas) else 0.0


# ---- frame names (``exporters/sampling/frame_plan.py`` ``_named`` before the markers were bisected) ------------

def named_frames(markers, start, frames, step):
    """(name, base, number) per frame, as the previous ``_named`` gave them."""
    import math
    out, previous = [], ("", 0)
    for _source, time, _index in frames:
        before = [fm for fm in markers if fm[0] <= time + 1e-6]
        base, first = (before[-1][1], before[-1][0]) if before else ("frame", start)
        number = int(math.floor((time - first) / step + 1e-6)) + 1
        shown = previous[1] + 1 if previous[0] == base and number <= previous[1] else number
        previous = base, shown
        out.append((f"{base}{shown:02d}", base, number))
    return out


def md5_add_batched(out: np.ndarray, vertex: np.ndarray, placed: np.ndarray) -> None:
    """formats/md5/skinning.py ``_add_batched`` before issue 33's MD5 work: ``np.add.at`` frame by frame."""
    flat_out = out.reshape(-1, out.shape[-2], 3)
    flat_placed = placed.reshape(-1, placed.shape[-2], 3)
    for batch in range(len(flat_out)):
        np.add.at(flat_out[batch], vertex, flat_placed[batch])


def md5_quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """formats/md5/skinning.py ``quat_rotate`` before issue 33's MD5 work (sums over the last axis, np.cross)."""
    u, w = q[..., :3], q[..., 3:]
    return ((w * w - (u * u).sum(-1, keepdims=True)) * v + 2.0 * (u * v).sum(-1, keepdims=True) * u
            + 2.0 * w * np.cross(u, v))
