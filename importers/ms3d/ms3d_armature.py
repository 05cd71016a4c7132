"""MS3D joints -> one Blender armature: bone orientation, skin weights and keyframe animation.

MilkShape's skeleton (docs/dev/format-facts.md, "MS3D"; MilkShape's viewer ``msModel.cpp``): a joint's rest local
matrix is ``L = T(position) · R(rotation)`` in its parent's space, with ``R = Rz · Ry · Rx`` (Euler
'XYZ'); its global rest matrix is ``G = G_parent · L``. Keys are relative to the rest pose:
``L(t) = L · T(key position) · R(key rotation)``, and a vertex in bind space moves by
``G(t) · G⁻¹``.

Bones are placed so that this maps one to one onto Blender's pose channels. With ``C`` the axis
conversion (MilkShape -> Blender, a rotation), bone j's rest matrix in armature space is
``B = C · G``. Blender poses a bone as ``P = P_parent · (B_parent⁻¹ · B) · basis``, and
``B_parent⁻¹ · B = G_parent⁻¹ · G = L``, so with ``basis = T(key position) · R(key rotation)``
``P = C · G(t)`` and the skinning ``P · B⁻¹ = C · G(t) · G⁻¹ · C⁻¹`` is MilkShape's, converted.
Hence ``pose_bone.location`` is the key position and ``pose_bone.rotation_euler`` (mode 'XYZ')
the key rotation, unchanged. Each bone's head is the joint's rest position and its Y axis the
joint's Y axis; its length (distance to the nearest child) is only for display.

Key time t (seconds) lands on scene frame t × fps, rounded to a whole frame when that rounding
still gives back exactly the same float32 time. Rotation keys are linear. Position keys are
Bezier curves with MilkShape's own Hermite tangents (handles at a third of each interval), so the
timeline plays positions exactly as MilkShape does; rotations agree at their keys and, through
'generated' keys, at every whole frame between them (MilkShape slerps quaternions between keys).

Skin weights follow docs/dev/format-facts.md ("MS3D", Weights): ``weights[0]`` for the vertex's own joint, ``weights[1]`` and
``weights[2]`` for ``bone_ids[0]`` and ``bone_ids[1]``, ``100 - sum`` for ``bone_ids[2]``; all
three zero means 100 % own joint; a joint id of -1 (or out of range) has no influence. A joint
listed twice gets the sum. Blender weight = percentage / 100.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from ...common.ms3d.contract import COMMENT_PROP, GENERATED_KEY, JOINT_PROP
from ...common.ms3d.data import bone_color, bone_rest_poses, set_bone_color
from ...formats.ms3d.joints import key_frames
from ...formats.ms3d.records import Ms3dModel
from ...formats.ms3d.rig import (
    combined_weights,
    euler_quaternions,
    hermite_tangents,
    nearest_euler,
    quaternion_rotations,
    rest_matrices,
    slerp,
)
from ..armature_bones import add_bones, bone_data_path, bone_lengths, fill_vertex_groups, new_bone_fcurves  # noqa: F401 (tools/benchmark_ms3d.py)

LINEAR = 1
BEZIER = 2
FREE_HANDLE = 0
SLERP_TOLERANCE = 1e-6   # radians a whole frame's rotation may differ from MilkShape's slerp
MAX_WHOLE_FRAMES = 65536  # longer key ranges get generated keys at key times only (memory)


def set_hermite_keys(fcurve: bpy.types.FCurve, frames: np.ndarray, values: np.ndarray) -> None:
    """Bezier keys whose segments are MilkShape's Hermite curves (free handles at thirds)."""
    n = len(frames)
    f, v = np.asarray(frames, dtype=np.float64), np.asarray(values, dtype=np.float64)
    t_in, t_out = hermite_tangents(f, v)
    gap_before = np.concatenate([[1.0], np.diff(f)])
    gap_after = np.concatenate([np.diff(f), [1.0]])
    left = np.column_stack([f - gap_before / 3, v - t_in / 3])
    right = np.column_stack([f + gap_after / 3, v + t_out / 3])
    left[0, 1], right[-1, 1] = v[0], v[-1]
    points = fcurve.keyframe_points
    points.add(n)
    points.foreach_set("co", np.column_stack([f, v]).astype(np.float32).ravel())
    points.foreach_set("interpolation", np.full(n, BEZIER, dtype=np.int32))
    points.foreach_set("handle_left_type", np.full(n, FREE_HANDLE, dtype=np.int32))
    points.foreach_set("handle_right_type", np.full(n, FREE_HANDLE, dtype=np.int32))
    points.foreach_set("handle_left", left.astype(np.float32).ravel())
    points.foreach_set("handle_right", right.astype(np.float32).ravel())
    fcurve.update()


def set_linear_keys(fcurve: bpy.types.FCurve, frames: np.ndarray, values: np.ndarray,
                    generated: np.ndarray | None = None) -> None:
    """Linear keys; those flagged in ``generated`` get Blender's 'Generated' key type."""
    points = fcurve.keyframe_points
    points.add(len(frames))
    points.foreach_set("co", np.column_stack([frames, values]).astype(np.float32).ravel())
    points.foreach_set("interpolation", np.full(len(frames), LINEAR, dtype=np.int32))
    if generated is not None and generated.any():
        points.foreach_set("type", np.where(generated, GENERATED_KEY, 0).astype(np.int32))
    fcurve.update()


def rotation_keys_with_slerp(frames: np.ndarray, angles: np.ndarray, other_frames: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The joint's rotation keys plus 'generated' ones holding MilkShape's slerp: at ``other_frames``
    inside its key range where it has none (so every key time of the model poses exactly), and at
    the whole frames in between where Blender's linear Euler curve would stray from the slerp by
    more than ``SLERP_TOLERANCE`` radians (so the timeline plays MilkShape's rotations; only for key
    ranges up to ``MAX_WHOLE_FRAMES`` frames)."""
    span = np.floor(frames[-1]) - np.ceil(frames[0]) + 1 if len(frames) else 0
    whole = np.arange(np.ceil(frames[0]), np.floor(frames[-1]) + 1) if 0 < span <= MAX_WHOLE_FRAMES else np.zeros(0)
    inside = other_frames[(other_frames > frames[0]) & (other_frames < frames[-1])]
    extra = np.setdiff1d(np.union1d(inside, whole), frames)
    if not len(extra):
        return frames, angles, np.zeros(len(frames), dtype=bool)
    right = np.searchsorted(frames, extra, side="right")
    left = right - 1
    t = (extra - frames[left]) / (frames[right] - frames[left])
    quats = euler_quaternions(angles)
    between = slerp(quats[left], quats[right], t)
    linear = angles[left] + (angles[right] - angles[left]) * t[:, None]
    as_linear = euler_quaternions(linear)
    strays = 1.0 - np.abs(np.sum(between / np.linalg.norm(between, axis=1, keepdims=True) * as_linear, axis=1))
    needed = np.isin(extra, inside) | (strays > 0.5 * SLERP_TOLERANCE ** 2 / 4)
    extra, between, linear = extra[needed], between[needed], linear[needed]
    if not len(extra):
        return frames, angles, np.zeros(len(frames), dtype=bool)
    extra_angles = nearest_euler(quaternion_rotations(between), linear)
    all_frames = np.concatenate([frames, extra])
    order = np.argsort(all_frames, kind="stable")
    generated = np.concatenate([np.zeros(len(frames), dtype=bool), np.ones(len(extra), dtype=bool)])
    return all_frames[order], np.concatenate([angles, extra_angles])[order], generated[order]


@dataclass
class ArmatureBuild:
    obj: bpy.types.Object
    bone_names: list[str]          # per joint, as Blender named the bones
    parents: list[int]


def display_names(model: Ms3dModel) -> list[str]:
    return [joint.name or f"joint{j}" for j, joint in enumerate(model.joints)]


def build_armature(context: bpy.types.Context, name: str, model: Ms3dModel, parents: list[int],
                   conversion: np.ndarray, collection: bpy.types.Collection, model_size: float) -> ArmatureBuild:
    """An armature object linked to ``collection`` with one bone per joint at ``B = C · G``."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    collection.objects.link(obj)
    c4 = np.eye(4)
    c4[:3, :3] = conversion
    bone_matrices = c4 @ rest_matrices(model, parents)
    lengths = bone_lengths(bone_matrices[:, :3, 3], parents, model_size)
    names = display_names(model)
    bone_names = add_bones(context, obj, names, bone_matrices, lengths, parents)
    for pose_bone in obj.pose.bones:
        pose_bone.rotation_mode = "XYZ"
    return ArmatureBuild(obj, bone_names, parents)


def assign_weights(obj: bpy.types.Object, bone_names: list[str], vertex_indices: np.ndarray,
                   joints: np.ndarray, percent: np.ndarray) -> None:
    """One vertex group per joint (in joint order) on ``obj``; weights of the file vertices it holds."""
    fill_vertex_groups(obj, bone_names, *combined_weights(joints[vertex_indices], percent[vertex_indices],
                                                          len(bone_names)))


def animate_joints(obj: bpy.types.Object, model: Ms3dModel, bone_names: list[str], action_name: str,
                   fps: float) -> bpy.types.Action | None:
    """One action with an F-curve per animated channel; None if no joint has keys.

    Rotation channels also get 'generated' keys (see :func:`rotation_keys_with_slerp`) at the
    model's other key times; the exporter leaves keys of that type out.
    """
    sorted_keys = [[k[np.argsort(k[:, 0], kind="stable")] for k in (j.rot_keys, j.pos_keys)] for j in model.joints]
    frames_of = [[key_frames(k[:, 0], fps) for k in keys] for keys in sorted_keys]
    every_frame = np.unique(np.concatenate([f for frames in frames_of for f in frames] + [np.zeros(0)]))
    channels, curves = [], []
    for (rot, pos), (rot_frames, pos_frames), bone_name in zip(sorted_keys, frames_of, bone_names):
        if len(rot):
            frames, angles, generated = rotation_keys_with_slerp(rot_frames, rot[:, 1:].astype(np.float64),
                                                                 every_frame)
            for axis in range(3):
                channels.append((bone_data_path(bone_name, "rotation_euler"), axis, bone_name))
                curves.append((set_linear_keys, (frames, angles[:, axis], generated)))
        if len(pos):
            frames = pos_frames
            for axis in range(3):
                channels.append((bone_data_path(bone_name, "location"), axis, bone_name))
                curves.append((set_hermite_keys, (frames, pos[:, 1 + axis])))
    if not channels:
        return None
    for fcurve, (setter, args) in zip(new_bone_fcurves(obj, action_name, channels), curves):
        setter(fcurve, *args)
    return obj.animation_data.action


def store_joint_data(build: ArmatureBuild, model: Ms3dModel, conversion: np.ndarray) -> None:
    """Keep every joint field on its bone (``bone["ms3d_joint"]``), with a snapshot of the rest pose
    and colour as Blender holds them, so an untouched export writes the file's own values back."""
    bones = build.obj.data.bones
    colors = model.joint_extras.colors if model.joint_extras is not None else None
    comments: dict = {}
    for comment in model.comments.joint if model.comments else []:
        comments.setdefault(comment.index, comment)
    for j, (joint, bone_name) in enumerate(zip(model.joints, build.bone_names)):
        bone = bones[bone_name]
        if colors is not None:
            set_bone_color(bone, colors[j])
        record = {"index": j, "name": bone_name, "name_raw": bytes(joint.name_raw).hex(),
                  "parent_raw": bytes(joint.parent_raw).hex(), "flags": int(joint.flags),
                  "rotation": [float(v) for v in joint.rotation], "position": [float(v) for v in joint.position]}
        if colors is not None:
            record["color"] = [float(v) for v in colors[j]]
            record["color_shown"] = bone_color(bone)
        if j in comments:
            bone[COMMENT_PROP] = comments[j].text
            record["comment_raw"] = bytes(comments[j].text_raw).hex()
            record["comment_shown"] = comments[j].text
        bone[JOINT_PROP] = record
    rest = bone_rest_poses(build.obj, build.bone_names, conversion)
    for bone_name, (rotation, position) in zip(build.bone_names, rest):
        record = bones[bone_name][JOINT_PROP]
        record["rest_shown"] = [float(v) for v in (*rotation, *position)]

