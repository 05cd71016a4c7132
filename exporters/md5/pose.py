"""The armature's pose at every frame of the frame plan (:mod:`..sampling.frame_plan`, the plan the
MD2 and MDL exports sample by): the timeline at the planned scene times, or each planned action played
alone from rest (:class:`..sampling.action_playback.ActionPlayback`) at its planned frames, so that an
MD5 anim frame k is the pose a classic model's frame k was sampled at. Scene state is restored after.

On the timeline the poses are computed from the action's F-curves (:mod:`..sampling.curve_pose`, the
bits ``PoseBone.matrix`` has after stepping to each frame) where they alone decide them and the armature
object itself cannot move (no parent, no object constraints, an action keying only its bones); else the
timeline is stepped and the report names why (one line).
"""
from __future__ import annotations

import numpy as np
import bpy

from ..export_error import ExportError
from ..sampling.action_playback import ActionPlayback
from ...formats.shown import quoted
from ..sampling.action_sampling import animated_ids
from ..sampling.curve_pose import action_fcurves, curve_poses
from ..sampling.frame_plan import ACTION, SHAPE_KEY, FramePlan
from ..sampling.frame_rate import scene_times, set_frame
from .rig import bone_matrices, pose_matrices, pose_order

SHAPE_KEYS_REFUSED = ("MD5 is skeletal: its frames are poses of the armature, which shape keys do not move; "
                      "export Frames: Timeline or Actions")
STEPPED = "poses read by stepping the timeline: "


def _now(context, armature: bpy.types.Object, order: list[str], model: np.ndarray) -> np.ndarray:
    evaluated = armature.evaluated_get(context.evaluated_depsgraph_get())
    world = np.array(evaluated.matrix_world, np.float64)
    return model @ world @ bone_matrices(evaluated.pose.bones, order)


def _moves_itself(armature: bpy.types.Object) -> str | None:
    """Why the armature object's own matrix may change between frames (None: it cannot)."""
    if armature.parent is not None:
        return f"the armature {quoted(armature.name)} has a parent"
    if len(armature.constraints):
        return f"the armature {quoted(armature.name)} has object constraints"
    if any(not f.data_path.startswith("pose.bones[") for f in action_fcurves(armature)):
        return "the armature's action keys more than its bones"
    return None


def curve_matrices(context, armature: bpy.types.Object, order: list[str], model: np.ndarray,
                   frames: list) -> tuple[np.ndarray | None, str | None]:
    """(F, J, 4, 4) the matrices stepping the timeline to ``frames`` gives, from the F-curves; or None and
    why the timeline has to be stepped."""
    reason = _moves_itself(armature)
    poses = None
    if reason is None:
        poses, reason = curve_poses(context, armature, scene_times([f.time for f in frames]))
    if poses is None:
        return None, reason
    world = np.array(armature.evaluated_get(context.evaluated_depsgraph_get()).matrix_world, np.float64)
    where = pose_order(armature.pose.bones, order)
    return np.array([model @ world @ pose_matrices(pose.ravel(), where) for pose in poses]), None


def sample_poses(context, armature: bpy.types.Object, order: list[str], meshes: list[bpy.types.Object],
                 plan: FramePlan, frames: list, model: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(F, J, 4, 4) model-space joint matrices at ``frames`` (planned frames of ``plan``) and the report
    line saying why the timeline was stepped, if it was."""
    if any(f.source == SHAPE_KEY for f in frames):
        raise ExportError(SHAPE_KEYS_REFUSED)
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    out = np.empty((len(frames), len(order), 4, 4))
    if not any(f.source == ACTION for f in frames):
        computed, reason = curve_matrices(context, armature, order, model, frames)
        if computed is not None:
            return computed, []
        try:
            for i, frame in enumerate(frames):
                set_frame(scene, frame.time)
                out[i] = _now(context, armature, order, model)
        finally:
            scene.frame_set(current[0], subframe=current[1])
        return out, [STEPPED + reason]
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
    return out, []
