"""Per-frame MD3 records: bounds, local origin and radius of each frame, and the tags.

Bounds are the smallest box around every vertex of every surface as the engine decodes them (the
written 1/64 shorts), the local origin is (0, 0, 0) and the radius is ``RadiusFromBounds`` of the box
(ioquake3 ``q_math.c``: the length of the per-axis larger of ``|mins|`` and ``|maxs|``), the values
q3data writes (every OpenArena corpus file has a zero origin and that radius). The renderer culls
with them: ``R_CullModel`` (tr_mesh.c) tests the sphere ``localOrigin``/``radius`` and the box
``bounds`` of the frames it blends, and ``R_ComputeLOD`` projects ``RadiusFromBounds(bounds)``.

A tag's transform (:func:`...formats.md3.tags.tag_matrices`) is the empty's matrix in the model's space:
``origin`` its translation (times the export's scale), ``axis[i]`` its i-th column made unit length
(``R_LerpTag`` normalises them anyway; scale on an empty is not part of a tag).

Kept records (:mod:`...common.md3.contract`): a frame whose vertices are written back as the file had
them keeps its frame record (the file's own bounds, origin and radius); a tag whose transform encodes
to within float32 rounding of its record at that file frame keeps the record.
"""
from __future__ import annotations

import numpy as np

from ...formats.binary import encode_name
from ...formats.md3.records import FRAME, NAME_SIZE, TAG

TAG_TOLERANCE = 1e-5       # model units (origin) and unit-vector components (axis), relative to size


def radius_from_bounds(bounds: np.ndarray) -> np.ndarray:
    """(F,) ``RadiusFromBounds`` of (F, 2, 3) mins/maxs, in float32 as the game computes it."""
    bounds = np.asarray(bounds, np.float32)
    corner = np.maximum(np.abs(bounds[:, 0]), np.abs(bounds[:, 1]))
    return np.sqrt(np.sum(corner.astype(np.float64) ** 2, axis=1)).astype(np.float32)


def frame_bounds(decoded: list[np.ndarray], frames: int) -> np.ndarray:
    """(F, 2, 3) float32 bounds of every surface's decoded positions (zero for a model without vertices)."""
    filled = [d for d in decoded if d.shape[1]]
    if not filled:
        return np.zeros((frames, 2, 3), np.float32)
    every = np.concatenate(filled, axis=1)
    return np.stack([every.min(axis=1), every.max(axis=1)], axis=1).astype(np.float32)


def kept_frame_records(blob: bytes | None) -> np.ndarray | None:
    if blob is None or len(blob) % FRAME.itemsize:
        return None
    return np.frombuffer(blob, FRAME)


def kept_tag_records(blob: bytes | None, frames: int) -> np.ndarray | None:
    """(file frames, file tags) TAG records, or None."""
    if blob is None or frames <= 0:
        return None
    if len(blob) % (TAG.itemsize * frames):
        return None
    return np.frombuffer(blob, TAG).reshape(frames, -1)


def tag_transforms(matrices: np.ndarray, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """(F, T, 3) origins and (F, T, 3, 3) unit axis rows of (F, T, 4, 4) model-space matrices."""
    origin = matrices[..., :3, 3] * scale
    axis = np.swapaxes(matrices[..., :3, :3], -1, -2)
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    axis = np.divide(axis, length, out=np.zeros_like(axis), where=length > 0)
    return origin.astype(np.float32), axis.astype(np.float32)


def keep_tags(origin: np.ndarray, axis: np.ndarray, names: list[str], raw_names: list[bytes | None],
              file_index: list[int | None], match: np.ndarray, kept: np.ndarray | None) -> tuple:
    """Origins, axes and (F, T) name fields with the file's records where they encode the same values.

    ``file_index[t]``: tag t's index in the file's tag list (None for a new tag); ``match[f]``: the file
    frame exported frame f is (-1: none); ``kept``: the file's (frames, tags) TAG records."""
    frames, count = origin.shape[:2]
    raw = np.zeros((frames, count), f"V{NAME_SIZE}")
    for t, (name, field) in enumerate(zip(names, raw_names)):
        raw[:, t] = np.void(field if field is not None else encode_name(name, NAME_SIZE, "tag name"))
    if kept is None:
        return origin, axis, raw, 0
    size = max(1.0, float(np.abs(kept["origin"]).max(initial=0.0)))
    kept_count = 0
    for t, index in enumerate(file_index):
        if index is None or index >= kept.shape[1]:
            continue
        rows = np.flatnonzero((match >= 0) & (match < len(kept)))
        if not len(rows):
            continue
        records = kept[match[rows], index]
        same = (np.all(np.abs(records["origin"] - origin[rows, t]) <= TAG_TOLERANCE * size, axis=1)
                & np.all(np.abs(_unit_rows(records["axis"]) - axis[rows, t]) <= TAG_TOLERANCE, axis=(1, 2)))
        rows = rows[same]
        origin[rows, t], axis[rows, t] = records["origin"][same], records["axis"][same]
        if raw_names[t] is not None:
            raw[rows, t] = records["name"][same]
        kept_count += len(rows)
    return origin, axis, raw, kept_count


def _unit_rows(axis: np.ndarray) -> np.ndarray:
    axis = np.asarray(axis, np.float64)
    length = np.linalg.norm(axis, axis=-1, keepdims=True)
    return np.divide(axis, length, out=np.zeros_like(axis), where=length > 0)
