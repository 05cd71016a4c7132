"""MD3 tags -> Blender: one empty per tag, animated per frame (location and rotation keys).

Tag t of frame f is the transform :func:`...formats.md3.tags.tag_matrices` gives: its upper 3 x 3
columns are the stored axis vectors, each made unit length as ioquake3 renderergl1 ``R_LerpTag``
(tr_model.c) does, and its translation the stored origin; cgame ``CG_PositionEntityOnTag`` /
``CG_PositionRotatedEntityOnTag`` (cg_ents.c) put a child part there, so a part parented to the empty
sits where the game draws it. The empty's key f sits at the scene frame of file frame f (linear
keys: the game blends two frames' tags, :mod:`..frame_animation`). Rotation is a quaternion (the
nearest of each pair of signs to the previous frame's, so Blender blends the short way). Keys are
written with ``foreach_set`` on the F-curves' keyframe points, through an action slotted on 4.4+.
"""
from __future__ import annotations

import numpy as np

import bpy

from mathutils import Matrix

from ...common.actions import assign_action
from ...common.contract import MD3_TAG_INDEX
from ...common.generated_names import mark_made
from ...common.md3.contract import MD3_TAG_NAME
from ...formats.animations import Animation
from ...formats.md3.records import Md3Model
from ...formats.md3.tags import tag_matrices
from ..frame_animation import list_animation, new_action_fcurves, set_linear_keys

TAG_DISPLAY_SIZE = 4.0     # Quake units: a player is 56 high


def tag_rotations(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F, 4) w, x, y, z rotations and (F,) signs of (F, 4, 4) tag matrices: a tag whose axes are mirrored
    (determinant below 0, as some Nexuiz files have) is the rotation of the negated axes scaled by -1.
    Each frame's quaternion takes the sign nearest the previous one's."""
    signs = np.where(np.linalg.det(matrices[:, :3, :3]) < 0, -1.0, 1.0)
    quats = np.array([tuple(Matrix((m[:3, :3] * s).tolist()).to_quaternion()) for m, s in zip(matrices, signs)],
                     dtype=np.float64)
    for f in range(1, len(quats)):
        if np.dot(quats[f], quats[f - 1]) < 0:
            quats[f] = -quats[f]
    return quats, signs


def add_tag_empties(model: Md3Model, root: bpy.types.Object, collection: bpy.types.Collection,
                    frames: np.ndarray, scale: float, action_stem: str,
                    animations: list[Animation] | None = None) -> list[bpy.types.Object]:
    """An empty per tag (file order) parented to ``root``, keyed at scene ``frames`` (one per file frame);
    with ``animations`` (the import's Actions mode) one action per animation instead, its file frames
    keyed from ``frames[0]`` at the same spacing, listed on the empty (the first one active)."""
    empties = []
    if not model.num_tags:
        return empties
    matrices = tag_matrices(model.tag_origin, model.tag_axis)          # (F, T, 4, 4)
    for index, name in enumerate(model.tag_names):
        empty = bpy.data.objects.new(name or f"tag_{index}", None)
        mark_made(empty)
        empty.empty_display_type = "ARROWS"
        empty.empty_display_size = TAG_DISPLAY_SIZE * scale
        empty[MD3_TAG_INDEX] = index
        empty[MD3_TAG_NAME] = bytes(model.tag_name_raw[0, index]) if model.tag_name_raw is not None else name.encode()
        collection.objects.link(empty)
        empty.parent = root
        empty.rotation_mode = "QUATERNION"
        location = matrices[:, index, :3, 3] * scale
        quats, signs = tag_rotations(matrices[:, index])
        empty.location = location[0]
        empty.rotation_quaternion = quats[0]
        empty.scale = (signs[0],) * 3
        mirrored = signs if (signs < 0).any() else None
        if animations is not None:
            step = frames[1] - frames[0] if len(frames) > 1 else 1.0
            for anim in animations:
                rows = slice(anim.first, anim.last + 1)
                action = _key_tag(empty, f"{anim.name}_{empty.name}", frames[0] + np.arange(anim.frames) * step,
                                  location[rows], quats[rows], None if mirrored is None else mirrored[rows])
                list_animation(empty, anim, int(frames[0]), step, action)
            if animations:
                assign_action(empty, empty.classic_model.animations[0].action)
        elif len(frames) > 1:
            _key_tag(empty, f"{action_stem}_{empty.name}", frames, location, quats, mirrored)
        empties.append(empty)
    return empties


def _key_tag(empty: bpy.types.Object, action_name: str, frames: np.ndarray, location: np.ndarray,
             quats: np.ndarray, signs: np.ndarray | None) -> bpy.types.Action:
    """Location and rotation keys (and scale, for a tag mirrored in some frame) at ``frames``, in a new
    action (returned)."""
    channels = [("location", i) for i in range(3)] + [("rotation_quaternion", i) for i in range(4)]
    values = np.column_stack([location, quats])
    if signs is not None:
        channels += [("scale", i) for i in range(3)]
        values = np.column_stack([values, signs, signs, signs])
    for column, fcurve in enumerate(new_action_fcurves(empty, action_name, channels)):
        set_linear_keys(fcurve, frames, values[:, column])
    return empty.animation_data.action
