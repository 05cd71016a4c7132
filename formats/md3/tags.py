"""MD3 tags as the game uses them: which tag a name finds and the transform it puts a part in.

ioquake3 renderergl1 ``R_GetTag`` (tr_model.c) looks a name up among the tags of the frame asked for,
with ``strcmp``: the first tag of that name wins (tag names repeat in every frame and could differ). The
game takes tags from LOD 0 only. ``R_LerpTag`` blends two frames and normalises each axis vector;
cgame ``CG_PositionEntityOnTag`` (cg_ents.c) then places the child part::

    child.origin = parent.origin + sum_i tag.origin[i] * parent.axis[i]
    child.axis   = tag.axis x parent.axis          (MatrixMultiply; rows are the axis vectors)

so, for column vectors, the tag's transform in its parent's space is the 4 x 4 matrix whose upper 3 x 3
columns are ``axis[0], axis[1], axis[2]`` (the transpose of the stored rows) and whose translation is
``origin`` (:func:`tag_matrices`); a part's matrix is its parent's times the tag's.
"""
from __future__ import annotations

import numpy as np

from ..binary import decode_name
from .records import Md3Model


def tag_matrices(origin: np.ndarray, axis: np.ndarray, normalize: bool = True) -> np.ndarray:
    """(..., 4, 4) float64 transforms of tags (origin (..., 3), axis (..., 3, 3) as stored); with
    ``normalize`` each axis vector is made unit length as ``R_LerpTag`` does (a zero vector stays zero)."""
    axis = np.asarray(axis, np.float64)
    if normalize:
        length = np.linalg.norm(axis, axis=-1, keepdims=True)
        axis = np.divide(axis, length, out=np.zeros_like(axis), where=length > 0)
    out = np.zeros(axis.shape[:-2] + (4, 4))
    out[..., :3, :3] = np.swapaxes(axis, -1, -2)
    out[..., :3, 3] = origin
    out[..., 3, 3] = 1.0
    return out


def find_tag(model: Md3Model, name: str, frame: int = 0) -> int | None:
    """Index of the tag ``R_GetTag`` finds for ``name`` in ``frame`` (frames past the end use the last),
    or None."""
    frame = min(frame, model.num_frames - 1)
    raw = model.tag_name_raw
    if raw is not None and np.shape(raw) == (model.num_frames, model.num_tags):
        names = [decode_name(bytes(field)) for field in raw[frame]]
        names = [n if decode_name(bytes(raw[0, i])) == model.tag_names[i] else model.tag_names[i]
                 for i, n in enumerate(names)]
    else:
        names = model.tag_names
    return next((i for i, n in enumerate(names) if n == name), None)
