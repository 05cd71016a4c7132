"""What an IQM model holds that an engine would not draw, as lines for people (one line per kind of
problem, with a count). The reader lists them as warnings and never refuses a file for them: the
format allows them, and another engine may draw the model.

DarkPlaces (``model_alias.c`` ``Mod_INTERQUAKEMODEL_Load``) uses a vertex array only in the formats
it knows (position float x 3, texcoord float x 2, normal float x 3, tangent float x 4, blend indexes
and blend weights ubyte x 4, colour float x 4 or ubyte x 4) and refuses a model with vertices but no
usable position or texcoord array, or with frames or anims but no usable blend arrays ("is missing
vertex array data"). Blend indexes name joints; frames hold one pose per joint (the SDK writes
``num_poses == num_joints``; FTE and Warsow refuse other counts).
"""
from __future__ import annotations

import numpy as np

from .records import (
    BLENDINDEXES,
    BLENDWEIGHTS,
    COLOR,
    FLOAT,
    NORMAL,
    POSITION,
    TANGENT,
    TEXCOORD,
    TYPE_NAMES,
    UBYTE,
    IqmModel,
)

DARKPLACES_ARRAYS = {POSITION: {(FLOAT, 3)}, TEXCOORD: {(FLOAT, 2)}, NORMAL: {(FLOAT, 3)}, TANGENT: {(FLOAT, 4)},
                     BLENDINDEXES: {(UBYTE, 4)}, BLENDWEIGHTS: {(UBYTE, 4)}, COLOR: {(FLOAT, 4), (UBYTE, 4)}}


def darkplaces_problems(model: IqmModel) -> list[str]:
    """Why DarkPlaces would refuse ``model`` or ignore one of its vertex arrays."""
    usable = {a.type for a in model.vertex_arrays if (a.format, a.size) in DARKPLACES_ARRAYS.get(a.type, ())}
    ignored = [a for a in model.vertex_arrays if a.type in DARKPLACES_ARRAYS and a.type not in usable]
    out = []
    if ignored:
        out.append(f"{len(ignored)} vertex array{'s' if len(ignored) > 1 else ''} in a format DarkPlaces ignores "
                   f"({', '.join(sorted({a.type_name for a in ignored}))})")
    needed = [POSITION, TEXCOORD] + ([BLENDINDEXES, BLENDWEIGHTS] if model.num_frames or len(model.anims) else [])
    missing = [TYPE_NAMES[t] for t in needed if t not in usable]
    if model.num_vertexes and missing:
        out.append(f"no usable {', '.join(missing)} array: DarkPlaces refuses the model (missing vertex array data)")
    return out


def skeleton_problems(model: IqmModel) -> list[str]:
    """Blend indexes past the joints; poses that are not one per joint while frames exist."""
    out = []
    indexes = model.array(BLENDINDEXES)
    if indexes is not None and indexes.data.size and len(model.joints):
        weights = model.array(BLENDWEIGHTS)
        used = indexes.data if weights is None or weights.data.shape != indexes.data.shape else \
            np.where(weights.data != 0, indexes.data, 0)
        over = int(np.count_nonzero((used.astype(np.int64) >= len(model.joints)).any(axis=1)))
        if over:
            out.append(f"{over} vertex{'es' if over > 1 else ''} weighted to a joint past the model's "
                       f"{len(model.joints)} joints")
    if model.num_frames and len(model.joints) and len(model.poses) != len(model.joints):
        out.append(f"{len(model.poses)} poses for {len(model.joints)} joints: FTE and Warsow refuse the model")
    return out


def read_warnings(model: IqmModel) -> list[str]:
    """What the reader reports about a model it reads whole."""
    return darkplaces_problems(model) + skeleton_problems(model)
