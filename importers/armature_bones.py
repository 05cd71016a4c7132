"""What the armature imports share (MS3D, MD5, IQM): bones placed at given rest matrices, display lengths,
vertex groups filled from weight rows, pose-bone data paths, and a new action with one F-curve per channel (slotted actions from 4.4, no
``Action.fcurves`` in 5.0)."""
from __future__ import annotations

import numpy as np

import bpy

from mathutils import Matrix

from ..formats.errors import FormatError
from ..formats.ms3d.rig import hierarchy_order
from .frame_animation import ensure_channelbag, new_action_fcurves


def new_bone_fcurves(obj: bpy.types.Object, action_name: str,
                     channels: list[tuple[str, int, str]]) -> list[bpy.types.FCurve]:
    """A new action on ``obj`` (slotted on 4.4+) with one F-curve per (data path, index, group)."""
    new_action_fcurves(obj, action_name, [])
    anim = obj.animation_data
    if hasattr(anim.action, "slots"):
        bag = ensure_channelbag(anim.action, anim.action_slot)
        if bpy.app.version >= (5, 0, 0):
            return [bag.fcurves.new(path, index=index, group_name=group) for path, index, group in channels]
        groups: dict[str, bpy.types.ActionGroup] = {}   # 4.4/4.5: fcurves.new takes no group name
        curves = []
        for path, index, group in channels:
            fcurve = bag.fcurves.new(path, index=index)
            if group not in groups:
                groups[group] = bag.groups.new(group)
            fcurve.group = groups[group]
            curves.append(fcurve)
        return curves
    fcurves = anim.action.fcurves
    return [fcurves.new(path, index=index, action_group=group) for path, index, group in channels]


def key_bone_curves(obj: bpy.types.Object, action_name: str, channels: list[tuple[str, int, str]],
                    frames, per_frame: np.ndarray) -> np.ndarray:
    """A new action on ``obj`` with one F-curve per channel (:func:`new_bone_fcurves`), keyed linearly at
    ``frames`` with ``per_frame`` (F, bones, a bone's channels, in ``channels``' order); returns the keys as
    set, (channels, F, 2) float32 (frame, value)."""
    count = len(frames)
    co = np.empty((len(channels), count, 2), np.float32)      # every curve's (frame, value) keys at once
    co[:, :, 0] = np.asarray(frames, np.float64)
    co[:, :, 1] = per_frame.transpose(1, 2, 0).reshape(len(channels), count)
    linear = np.full(count, 1, np.int32)                      # Blender's LINEAR interpolation
    for fcurve, keys in zip(new_bone_fcurves(obj, action_name, channels), co.reshape(len(channels), 2 * count)):
        points = fcurve.keyframe_points
        points.add(count)
        points.foreach_set("co", keys)
        points.foreach_set("interpolation", linear)
        fcurve.update()
    return co


def bone_data_path(bone_name: str, channel: str) -> str:
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].{channel}'


def bone_lengths(heads: np.ndarray, parents: list[int], model_size: float) -> np.ndarray:
    """Display lengths: distance to the nearest child, else half the parent's, else 5 % of the model;
    never so short that float32 would put the tail on the head."""
    count = len(heads)
    reach = float(np.abs(heads).max()) if count else 0.0
    floor = max(max(model_size, 1e-3) * 1e-3, reach * 1e-5)
    lengths = np.zeros(count)
    for j in range(count):
        children = [c for c in range(count) if parents[c] == j]
        gaps = [float(np.linalg.norm(heads[c] - heads[j])) for c in children]
        gaps = [g for g in gaps if g > floor]
        lengths[j] = min(gaps) if gaps else 0.0
    for j in hierarchy_order(parents):
        if lengths[j] == 0.0:
            lengths[j] = lengths[parents[j]] * 0.5 if parents[j] != -1 else max(model_size, 1e-3) * 0.05
        lengths[j] = max(lengths[j], floor)
    return lengths


def add_bones(context: bpy.types.Context, obj: bpy.types.Object, names: list[str], matrices: np.ndarray,
              lengths: np.ndarray, parents: list[int]) -> list[str]:
    """Bone j of the armature ``obj`` (selected and made active) named ``names[j]`` with rest matrix
    ``matrices[j]`` (4x4, armature space: head at its translation, Y axis its second column) and display
    length ``lengths[j]``, parented as ``parents`` says (-1: none); the names Blender gave, per bone.
    Raises FormatError when Blender drops bones it cannot give a length."""
    data = obj.data
    for other in context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit_bones = []
        for bone_name, matrix, length in zip(names, matrices, lengths):
            edit_bone = data.edit_bones.new(bone_name)
            edit_bone.head = (0.0, 0.0, 0.0)
            edit_bone.tail = (0.0, float(length), 0.0)
            edit_bone.matrix = Matrix(np.asarray(matrix).tolist())
            edit_bones.append(edit_bone)
        for edit_bone, parent in zip(edit_bones, parents):
            if parent >= 0:
                edit_bone.parent = edit_bones[parent]
        bone_names = [b.name for b in edit_bones]
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    if len(data.bones) != len(bone_names):
        raise FormatError(f"{len(bone_names) - len(data.bones)} joint(s) could not become bones "
                          "(their positions are too large for Blender to give them a length)", field="joints")
    return bone_names


def fill_vertex_groups(obj: bpy.types.Object, bone_names: list[str], rows: np.ndarray, joint: np.ndarray,
                       weight: np.ndarray) -> None:
    """One vertex group per bone (in order, named as it) on ``obj`` holding ``weight`` for vertex ``rows``
    of joint ``joint`` (one ``add`` call per joint and weight value, not per vertex)."""
    groups = [obj.vertex_groups.new(name=n) for n in bone_names]
    if not len(rows):
        return
    order = np.lexsort((rows, weight, joint))
    rows, joint, weight = rows[order], joint[order], weight[order]
    starts = np.flatnonzero(np.concatenate([[True], (np.diff(joint) != 0) | (np.diff(weight) != 0)]))
    ends = np.append(starts[1:], len(rows))
    for start, end in zip(starts, ends):
        groups[int(joint[start])].add(rows[start:end].tolist(), float(weight[start]), "REPLACE")


def local_rests(obj: bpy.types.Object, bone_names: list[str]) -> np.ndarray:
    """(J, 4, 4) each bone's rest matrix relative to its parent's as Blender poses with it: the bone's
    own rotation (``Bone.matrix``) at its head, which is relative to the parent's tail (Blender
    ``BKE_bone_parent_transform``: ``offs_bone``); a root's is ``Bone.matrix_local``."""
    bones = obj.data.bones
    out = np.zeros((len(bone_names), 4, 4))
    for j, name in enumerate(bone_names):
        bone = bones[name]
        if bone.parent is None:
            out[j] = np.array(bone.matrix_local, np.float64)
            continue
        out[j, :3, :3] = np.array(bone.matrix, np.float64)
        out[j, :3, 3] = np.array(bone.head, np.float64) + (0.0, bone.parent.length, 0.0)
        out[j, 3, 3] = 1.0
    return out
