"""The armature's pose at every frame of the frame plan (:mod:`..sampling.frame_plan`, the plan the
MD2 and MDL exports sample by): the timeline at the planned scene times, or each planned action played
alone from rest (:class:`..sampling.action_playback.ActionPlayback`) at its planned frames, so that an
MD5 anim frame k is the pose a classic model's frame k was sampled at. Scene state is restored after.

The poses are computed from the action's F-curves (:mod:`..sampling.curve_pose`, the bits
``PoseBone.matrix`` has after stepping to each frame) where they alone decide them and the armature
object itself cannot move (no parent, no object constraints, an action keying only its bones): on the
timeline from the armature's action, and for planned actions from each one once it is assigned (the
playback puts the bones at rest and assigns it once, not once a frame; the channels of all the actions
of one call then go through the hierarchy together; :func:`sample_files` samples an export's several
files in one such call). Else the timeline is stepped (for the actions where
they do not hold) and the report names why (one line per reason).
"""
from __future__ import annotations

import numpy as np

import bpy

from ...formats.message_text import quoted
from ..export_error import ExportError
from ..sampling.action_playback import ActionPlayback
from ..sampling.action_sampling import animated_ids
from ..sampling.curve_pose import KeyReads, action_fcurves, curve_channels, posed
from ..sampling.frame_plan import ACTION, SHAPE_KEY, FramePlan
from ..sampling.frame_rate import scene_times, set_frame
from .rig import bone_matrices, pose_order

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
                   frames: list, reads: KeyReads | None = None) -> tuple[np.ndarray | None, str | None]:
    """(F, J, 4, 4) the matrices stepping the timeline to ``frames`` gives, from the F-curves; or None and
    why the timeline has to be stepped. ``reads``: what the export read already (the armature's rest and
    its evaluated matrix, which stays as it is while the object cannot move)."""
    reads = reads if reads is not None else KeyReads()
    channels, reason = _channels_now(context, armature, frames, reads)
    if channels is None:
        return None, reason
    return _joint_matrices(context, armature, order, model, channels, reads), None


def _channels_now(context, armature: bpy.types.Object, frames: list, reads: KeyReads):
    """The bone channels at ``frames`` from the F-curves of the action the armature plays now, or None and why not."""
    reason = _moves_itself(armature)
    if reason is not None:
        return None, reason
    return curve_channels(context, armature, scene_times([f.time for f in frames]), reads)


def _joint_matrices(context, armature: bpy.types.Object, order: list[str], model: np.ndarray, channels: list,
                    reads: KeyReads) -> np.ndarray:
    """(F, J, 4, 4) model-space joint matrices of channels from :func:`_channels_now` (one or several calls'
    joined): the pose bones' matrices in the armature's evaluated matrix (read once an export)."""
    front = model @ _world(context, armature, reads)    # as (model @ world) @ joints, frame by frame
    where = pose_order(armature.pose.bones, order)
    poses = posed(armature, channels, reads)             # (F, B, 16) as foreach_get reads each frame's
    return front @ poses.reshape(len(poses), -1, 4, 4).transpose(0, 1, 3, 2).astype(np.float64)[:, where]


def _world(context, armature: bpy.types.Object, reads: KeyReads) -> np.ndarray:
    """The armature's evaluated matrix, read once an export: the first time while an action whose
    poses come from its F-curves plays (nothing moves the object then, and it stays put after)."""
    key = ("world", armature.as_pointer())
    if key not in reads.memo:
        reads.memo[key] = np.array(armature.evaluated_get(context.evaluated_depsgraph_get()).matrix_world, np.float64)
    return reads.memo[key]


def _runs(frames: list) -> list[tuple[str, list[int]]]:
    """The planned frames by action: (action name, the indices of its consecutive frames)."""
    out: list[tuple[str, list[int]]] = []
    for i, frame in enumerate(frames):
        if out and out[-1][0] == frame.action:
            out[-1][1].append(i)
        else:
            out.append((frame.action, [i]))
    return out


def sample_poses(context, armature: bpy.types.Object, order: list[str], meshes: list[bpy.types.Object],
                 plan: FramePlan, frames: list, model: np.ndarray,
                 reads: KeyReads | None = None) -> tuple[np.ndarray, list[str]]:
    """(F, J, 4, 4) model-space joint matrices at ``frames`` (planned frames of ``plan``) and the report
    lines saying why the timeline was stepped, if it was. ``reads``: shared by an export's anims."""
    reads = reads if reads is not None else KeyReads()
    if any(f.source == SHAPE_KEY for f in frames):
        raise ExportError(SHAPE_KEYS_REFUSED)
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    out = np.empty((len(frames), len(order), 4, 4))
    if not any(f.source == ACTION for f in frames):
        computed, reason = curve_matrices(context, armature, order, model, frames, reads)
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
    runs = _runs(frames)
    out, reasons = _sample_runs(context, armature, order, meshes, targets, frames, runs, model, reads)
    return out, _stepped_lines([r for r in reasons if r is not None], len(runs))


def sample_files(context, armature: bpy.types.Object, order: list[str], meshes: list[bpy.types.Object],
                 planned: list[tuple[FramePlan, list]], model: np.ndarray,
                 reads: KeyReads | None = None) -> list[tuple[np.ndarray, list[str]]]:
    """:func:`sample_poses` of several files' (plan, frames) of planned actions, in one playback and one pass
    through the hierarchy (each file's actions played, and their frames' arithmetic done, as on their own:
    the same bits); files of other frames are sampled one by one."""
    reads = reads if reads is not None else KeyReads()
    if len(planned) < 2 or not all(frames and all(f.source == ACTION for f in frames) for _, frames in planned):
        return [sample_poses(context, armature, order, meshes, plan, frames, model, reads) for plan, frames in planned]
    targets: dict = {}
    frames, runs, spans = [], [], []
    for plan, file_frames in planned:
        for planned_action in plan.actions or []:
            targets.setdefault(planned_action.action.name, planned_action)
        first = len(runs)
        runs += [(name, [len(frames) + i for i in indices]) for name, indices in _runs(file_frames)]
        spans.append((len(frames), len(frames) + len(file_frames), first, len(runs)))
        frames += file_frames
    out, reasons = _sample_runs(context, armature, order, meshes, targets, frames, runs, model, reads)
    return [(out[start:end], _stepped_lines([r for r in reasons[first:last] if r is not None], last - first))
            for start, end, first, last in spans]


def _sample_runs(context, armature: bpy.types.Object, order: list[str], meshes: list[bpy.types.Object],
                 targets: dict, frames: list, runs: list, model: np.ndarray, reads: KeyReads):
    """(F, J, 4, 4) the matrices at ``frames`` of planned actions, each run (action name, frame indices) played
    alone from rest, and per run why the timeline was stepped (None: its F-curves decided the poses)."""
    scene = context.scene
    current = scene.frame_current, scene.frame_subframe
    out = np.empty((len(frames), len(order), 4, 4))
    ids: list[bpy.types.ID] = [armature]
    for obj in meshes:
        ids += [i for i in animated_ids(obj) if not any(i == j for j in ids)]
    reasons: list[str | None] = []
    computed: list[tuple[list[int], list]] = []          # (frame indices, channels) of each action read
    with ActionPlayback(ids, set(targets), {}) as playback:
        try:
            for name, indices in runs:
                planned = targets[name]
                playback.play(planned.action, planned.target)       # once per action, then its poses
                channels, reason = _channels_now(context, armature, [frames[i] for i in indices], reads)
                reasons.append(reason if channels is None else None)
                if channels is not None:
                    _world(context, armature, reads)      # before any frame is stepped to
                    computed.append((indices, channels))
                    continue
                for i in indices:
                    set_frame(scene, frames[i].time)
                    out[i] = _now(context, armature, order, model)
            if computed:            # every action's channels through the hierarchy together
                joined = [np.concatenate([c[k] for _, c in computed]) for k in range(3)]
                out[[i for indices, _ in computed for i in indices]] = _joint_matrices(
                    context, armature, order, model, joined, reads)
        finally:
            if any(r is not None for r in reasons):
                scene.frame_set(current[0], subframe=current[1])
    return out, reasons


def _stepped_lines(reasons: list[str], actions: int) -> list[str]:
    """One report line per reason the timeline was stepped, with the count of actions it held for."""
    counts: dict[str, int] = {}
    for reason in reasons:
        counts[reason] = counts.get(reason, 0) + 1
    return [STEPPED + reason + ("" if count == actions else f" ({count} of {actions} actions)")
            for reason, count in counts.items()]
