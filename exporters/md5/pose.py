"""The armature's pose at every frame of the frame plan (:mod:`..sampling.frame_plan`, the plan the
MD2 and MDL exports sample by): the timeline at the planned scene times, or each planned action played
alone from rest (:class:`..sampling.action_playback.ActionPlayback`) at its planned frames, so that an
MD5 anim frame k is the pose a classic model's frame k was sampled at. Scene state is restored after.
"""
from __future__ import annotations

import numpy as np
import bpy

from ..export_error import ExportError
from ..sampling.action_playback import ActionPlayback
from ..sampling.action_sampling import animated_ids
from ..sampling.frame_plan import ACTION, SHAPE_KEY, FramePlan
from ..sampling.frame_rate import set_frame
from .rig import bone_matrices

SHAPE_KEYS_REFUSED = ("MD5 is skeletal: its frames are poses of the armature, which shape keys do not move; "
                      "export Frames: Timeline or Actions")


def _now(context, armature: bpy.types.Object, order: list[str], model: np.ndarray) -> np.ndarray:
    evaluated = armature.evaluated_get(context.evaluated_depsgraph_get())
    world = np.array(evaluated.matrix_world, np.float64)
    return model @ world @ bone_matrices(evaluated.pose.bones, order)


def sample_poses(context, armature: bpy.types.Object, order: list[str], meshes: list[bpy.types.Object],
                 plan: FramePlan, frames: list, model: np.ndarray) -> np.ndarray:
    """(F, J, 4, 4) model-space joint matrices at ``frames`` (planned frames of ``plan``)."""
    if any(f.source == SHAPE_KEY for f in frames):
        raise ExportError(SHAPE_KEYS_REFUSED)
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    out = np.empty((len(frames), len(order), 4, 4))
    if not any(f.source == ACTION for f in frames):
        try:
            for i, frame in enumerate(frames):
                set_frame(scene, frame.time)
                out[i] = _now(context, armature, order, model)
        finally:
            scene.frame_set(current[0], subframe=current[1])
        return out
    targets = {a.action.name: a for a in plan.actions or []}
    ids: list[bpy.types.ID] = [armature]
    for obj in meshes:
        ids += [i for i in animated_ids(obj) if not any(i == j for j in ids)]
    with ActionPlayback(ids, set(targets), {}) as playback:
        try:
            playing = None
            for i, frame in enumerate(frames):
                if frame.action != playing:
                    planned = targets[frame.action]
                    playback.play(planned.action, planned.target)
                    playing = frame.action
                set_frame(scene, frame.time)
                out[i] = _now(context, armature, order, model)
        finally:
            scene.frame_set(current[0], subframe=current[1])
    return out
