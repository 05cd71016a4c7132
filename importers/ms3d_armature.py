"""MS3D joints -> one Blender armature: bone orientation, skin weights and keyframe animation.

MilkShape's skeleton (format-notes "MS3D"; MilkShape's viewer ``msModel.cpp``): a joint's rest local
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
timeline plays positions exactly as MilkShape does; rotations agree at their keys (MilkShape slerps
quaternions between them).

Skin weights follow format-notes: ``weights[0]`` for the vertex's own joint, ``weights[1]`` and
``weights[2]`` for ``bone_ids[0]`` and ``bone_ids[1]``, ``100 - sum`` for ``bone_ids[2]``; all
three zero means 100 % own joint; a joint id of -1 (or out of range) has no influence. A joint
listed twice gets the sum. Blender weight = percentage / 100.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import bpy
from mathutils import Matrix

from ..formats.errors import FormatError
from ..formats.ms3d import Ms3dModel
from ..formats.ms3d_joints import key_frames
from .frame_animation import ensure_channelbag, new_action_fcurves

JOINT_PROP = "ms3d_joint"
COMMENT_PROP = "ms3d_comment"
LINEAR = 1
BEZIER = 2
FREE_HANDLE = 0
GENERATED_KEY = 5          # Keyframe.type 'GENERATED' as stored


def euler_xyz_matrices(angles: np.ndarray) -> np.ndarray:
    """(N, 3) radians -> (N, 3, 3) rotation matrices ``Rz · Ry · Rx`` (MilkShape's AngleMatrix)."""
    a = np.asarray(angles, dtype=np.float64).reshape(-1, 3)
    cx, cy, cz = np.cos(a).T
    sx, sy, sz = np.sin(a).T
    r = np.empty((len(a), 3, 3))
    r[:, 0, 0], r[:, 0, 1], r[:, 0, 2] = cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz
    r[:, 1, 0], r[:, 1, 1], r[:, 1, 2] = cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz
    r[:, 2, 0], r[:, 2, 1], r[:, 2, 2] = -sy, sx * cy, cx * cy
    return r


def euler_xyz_from_matrices(rotations: np.ndarray) -> np.ndarray:
    """(N, 3, 3) rotation matrices -> (N, 3) Euler 'XYZ' angles, the inverse of :func:`euler_xyz_matrices`."""
    r = np.asarray(rotations, dtype=np.float64).reshape(-1, 3, 3)
    cy = np.hypot(r[:, 0, 0], r[:, 1, 0])
    regular = cy > 1e-9
    x = np.where(regular, np.arctan2(r[:, 2, 1], r[:, 2, 2]), np.arctan2(-r[:, 1, 2], r[:, 1, 1]))
    y = np.arctan2(-r[:, 2, 0], cy)
    z = np.where(regular, np.arctan2(r[:, 1, 0], r[:, 0, 0]), 0.0)
    return np.column_stack([x, y, z])


def rigid_inverse(matrices: np.ndarray) -> np.ndarray:
    """Inverse of rotation-plus-translation 4x4 matrices (one or a stack)."""
    m = np.asarray(matrices, dtype=np.float64)
    out = np.zeros_like(m)
    rotation_t = np.swapaxes(m[..., :3, :3], -1, -2)
    out[..., :3, :3] = rotation_t
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", rotation_t, m[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def local_matrices(rotation: np.ndarray, position: np.ndarray) -> np.ndarray:
    """(N, 4, 4) ``T(position) · R(rotation)``."""
    rotation = np.asarray(rotation, dtype=np.float64).reshape(-1, 3)
    out = np.zeros((len(rotation), 4, 4))
    out[:, :3, :3] = euler_xyz_matrices(rotation)
    out[:, :3, 3] = np.asarray(position, dtype=np.float64).reshape(-1, 3)
    out[:, 3, 3] = 1.0
    return out


def hierarchy_order(parents: list[int]) -> list[int]:
    """Joint indices with every parent before its children (file order otherwise kept)."""
    depth = []
    for j in range(len(parents)):
        d, k = 0, parents[j]
        while k != -1:
            d, k = d + 1, parents[k]
        depth.append(d)
    return sorted(range(len(parents)), key=lambda j: (depth[j], j))


def global_matrices(local: np.ndarray, parents: list[int]) -> np.ndarray:
    """(J, 4, 4) global matrices from local ones: ``G = G_parent · L``."""
    out = np.empty_like(local)
    for j in hierarchy_order(parents):
        out[j] = local[j] if parents[j] == -1 else out[parents[j]] @ local[j]
    return out


def rest_matrices(model: Ms3dModel, parents: list[int]) -> np.ndarray:
    """(J, 4, 4) global rest matrices in MilkShape space."""
    if not model.joints:
        return np.zeros((0, 4, 4))
    rotation = np.array([j.rotation for j in model.joints], dtype=np.float64)
    position = np.array([j.position for j in model.joints], dtype=np.float64)
    return global_matrices(local_matrices(rotation, position), parents)


def vertex_influences(model: Ms3dModel) -> tuple[np.ndarray, np.ndarray]:
    """(V, 4) joint indices (-1 = none) and (V, 4) integer percentages, by the format-notes rules."""
    return influences_from_raw(model.vert_bone, model.vertex_extras.bone_ids if model.vertex_extras else None,
                               model.vertex_extras.weights if model.vertex_extras else None, len(model.joints))


def influences_from_raw(bone: np.ndarray, bone_ids: np.ndarray | None, weights: np.ndarray | None,
                        num_joints: int) -> tuple[np.ndarray, np.ndarray]:
    """The four (joint, percentage) slots of each vertex from its raw skin fields."""
    bone = np.asarray(bone, dtype=np.int64)
    count = len(bone)
    joints = np.full((count, 4), -1, dtype=np.int64)
    percent = np.zeros((count, 4), dtype=np.int64)
    joints[:, 0] = bone
    percent[:, 0] = 100
    if bone_ids is not None and weights is not None:
        w = np.asarray(weights, dtype=np.int64).reshape(count, 3)
        weighted = w.any(axis=1)
        joints[weighted, 1:] = np.asarray(bone_ids, dtype=np.int64).reshape(count, 3)[weighted]
        percent[weighted, :3] = w[weighted]
        percent[weighted, 3] = 100 - w[weighted].sum(axis=1)
    valid = (joints >= 0) & (joints < num_joints) & (percent > 0)
    joints[~valid] = -1
    percent[~valid] = 0
    return joints, percent


def combined_weights(joints: np.ndarray, percent: np.ndarray, num_joints: int
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(vertex, joint, weight)`` with a joint listed twice summed; weight = percentage / 100 (float32),
    at most 1 as Blender stores vertex-group weights."""
    rows = np.repeat(np.arange(len(joints)), 4)
    flat_j, flat_p = joints.ravel(), percent.ravel()
    keep = flat_j >= 0
    keys = rows[keep] * max(num_joints, 1) + flat_j[keep]
    unique, inverse = np.unique(keys, return_inverse=True)
    total = np.bincount(inverse, weights=flat_p[keep], minlength=len(unique))
    return (unique // max(num_joints, 1), unique % max(num_joints, 1),
            np.minimum(total / 100.0, 1.0).astype(np.float32))


def hermite_tangents(frames: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MilkShape's position tangents (``SetupTangents``): incoming and outgoing, per key.

    With more than two keys, key k's tangent is ``values[k+1] - values[k-1]`` (neighbours wrap
    around), split by the lengths of the intervals before and after it; otherwise zero.
    """
    n = len(frames)
    t_in, t_out = np.zeros(n), np.zeros(n)
    if n > 2:
        f, v = np.asarray(frames, dtype=np.float64), np.asarray(values, dtype=np.float64)
        prev, nxt = np.roll(np.arange(n), 1), np.roll(np.arange(n), -1)
        tangent = v[nxt] - v[prev]
        dt1, dt2 = f - f[prev], f[nxt] - f
        dt = dt1 + dt2
        ok = dt != 0
        t_in[ok] = tangent[ok] * dt1[ok] / dt[ok]
        t_out[ok] = tangent[ok] * dt2[ok] / dt[ok]
    return t_in, t_out


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


def euler_quaternions(angles: np.ndarray) -> np.ndarray:
    """(N, 3) Euler 'XYZ' -> (N, 4) quaternions (x, y, z, w), as MilkShape's AngleQuaternion."""
    half = np.asarray(angles, dtype=np.float64).reshape(-1, 3) * 0.5
    (sr, sp, sy), (cr, cp, cy) = np.sin(half).T, np.cos(half).T
    return np.column_stack([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                            cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy])


def quaternion_rotations(q: np.ndarray) -> np.ndarray:
    """(N, 4) (x, y, z, w) -> (N, 3, 3)."""
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    x, y, z, w = q.T
    return np.stack([np.column_stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)]),
                     np.column_stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)]),
                     np.column_stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])], axis=1)


def slerp(p: np.ndarray, q: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Row-wise spherical interpolation the short way round (MilkShape's QuaternionSlerp)."""
    q = np.where((np.sum((p - q) ** 2, axis=1) > np.sum((p + q) ** 2, axis=1))[:, None], -q, q)
    cos = np.clip(np.sum(p * q, axis=1), -1.0, 1.0)
    omega = np.arccos(cos)
    sin = np.sin(omega)
    small = sin < 1e-6
    safe = np.where(small, 1.0, sin)
    a = np.where(small, 1.0 - t, np.sin((1.0 - t) * omega) / safe)
    b = np.where(small, t, np.sin(t * omega) / safe)
    return a[:, None] * p + b[:, None] * q


def nearest_euler(rotations: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Euler 'XYZ' angles of ``rotations`` closest to ``reference`` (both solutions, any turn)."""
    first = euler_xyz_from_matrices(rotations)
    second = np.column_stack([first[:, 0] + np.pi, np.pi - first[:, 1], first[:, 2] + np.pi])
    best, best_distance = None, None
    for candidate in (first, second):
        candidate = candidate + 2 * np.pi * np.rint((reference - candidate) / (2 * np.pi))
        distance = np.sum((candidate - reference) ** 2, axis=1)
        if best is None:
            best, best_distance = candidate, distance
        else:
            closer = distance < best_distance
            best = np.where(closer[:, None], candidate, best)
            best_distance = np.minimum(distance, best_distance)
    return best


def rotation_keys_with_slerp(frames: np.ndarray, angles: np.ndarray, other_frames: np.ndarray
                             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The joint's rotation keys plus 'generated' ones at ``other_frames`` inside its key range where
    it has none, holding MilkShape's slerp there, so every key time of the model poses exactly."""
    inside = other_frames[(other_frames > frames[0]) & (other_frames < frames[-1])]
    extra = np.setdiff1d(inside, frames)
    if not len(extra):
        return frames, angles, np.zeros(len(frames), dtype=bool)
    right = np.searchsorted(frames, extra, side="right")
    left = right - 1
    t = (extra - frames[left]) / (frames[right] - frames[left])
    quats = euler_quaternions(angles)
    between = slerp(quats[left], quats[right], t)
    linear = angles[left] + (angles[right] - angles[left]) * t[:, None]
    extra_angles = nearest_euler(quaternion_rotations(between), linear)
    all_frames = np.concatenate([frames, extra])
    order = np.argsort(all_frames, kind="stable")
    generated = np.concatenate([np.zeros(len(frames), dtype=bool), np.ones(len(extra), dtype=bool)])
    return all_frames[order], np.concatenate([angles, extra_angles])[order], generated[order]


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


def bone_data_path(bone_name: str, channel: str) -> str:
    return f'pose.bones["{bpy.utils.escape_identifier(bone_name)}"].{channel}'


@dataclass
class ArmatureBuild:
    obj: bpy.types.Object
    bone_names: list[str]          # per joint, as Blender named the bones
    parents: list[int]


def display_names(model: Ms3dModel) -> list[str]:
    return [joint.name or f"joint{j}" for j, joint in enumerate(model.joints)]


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
    view_layer = context.view_layer
    for other in context.selected_objects:
        other.select_set(False)
    obj.select_set(True)
    view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        edit_bones = []
        for j, (bone_name, matrix, length) in enumerate(zip(names, bone_matrices, lengths)):
            edit_bone = data.edit_bones.new(bone_name)
            edit_bone.head = (0.0, 0.0, 0.0)
            edit_bone.tail = (0.0, float(length), 0.0)
            edit_bone.matrix = Matrix(matrix.tolist())
            edit_bones.append(edit_bone)
        for edit_bone, parent in zip(edit_bones, parents):
            if parent != -1:
                edit_bone.parent = edit_bones[parent]
        bone_names = [b.name for b in edit_bones]
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    if len(data.bones) != len(bone_names):
        raise FormatError(f"{len(bone_names) - len(data.bones)} joint(s) could not become bones "
                          "(their positions are too large for Blender to give them a length)", field="joints")
    for pose_bone in obj.pose.bones:
        pose_bone.rotation_mode = "XYZ"
    return ArmatureBuild(obj, bone_names, parents)


def bone_color_sets(color: np.ndarray) -> tuple[tuple, tuple, tuple]:
    """Normal, selected and active display colours for a joint colour."""
    c = np.clip(np.asarray(color, dtype=np.float64), 0.0, 1.0)
    return tuple(c), tuple(c + (1 - c) * 0.5), tuple(c + (1 - c) * 0.75)


def set_bone_color(bone: bpy.types.Bone, color: np.ndarray) -> None:
    bone.color.palette = "CUSTOM"
    normal, select, active = bone_color_sets(color)
    bone.color.custom.normal, bone.color.custom.select, bone.color.custom.active = normal, select, active


def bone_color(bone: bpy.types.Bone) -> list[float] | None:
    """The bone's custom display colour, or None when it uses a theme colour."""
    if bone.color.palette != "CUSTOM":
        return None
    return [float(v) for v in bone.color.custom.normal]


def assign_weights(obj: bpy.types.Object, bone_names: list[str], vertex_indices: np.ndarray,
                   joints: np.ndarray, percent: np.ndarray) -> None:
    """One vertex group per joint (in joint order) on ``obj``; weights of the file vertices it holds."""
    groups = [obj.vertex_groups.new(name=n) for n in bone_names]
    rows, joint, weight = combined_weights(joints[vertex_indices], percent[vertex_indices], len(bone_names))
    if not len(rows):
        return
    order = np.lexsort((rows, weight, joint))
    rows, joint, weight = rows[order], joint[order], weight[order]
    starts = np.flatnonzero(np.concatenate([[True], (np.diff(joint) != 0) | (np.diff(weight) != 0)]))
    ends = np.append(starts[1:], len(rows))
    for start, end in zip(starts, ends):
        groups[int(joint[start])].add(rows[start:end].tolist(), float(weight[start]), "REPLACE")


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


def bone_rest_poses(obj: bpy.types.Object, bone_names: list[str],
                    conversion: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """MilkShape rest (rotation, position) of each named bone in its parent's space, read from the
    bones: ``L = B_parent⁻¹ · B``, or ``C⁻¹ · B`` for a root."""
    bones = obj.data.bones
    c4_inv = np.eye(4)
    c4_inv[:3, :3] = np.asarray(conversion).T
    poses = []
    for bone in (bones[name] for name in bone_names):
        matrix = np.array(bone.matrix_local, dtype=np.float64)
        local = (rigid_inverse(np.array(bone.parent.matrix_local, dtype=np.float64)) @ matrix
                 if bone.parent is not None else c4_inv @ matrix)
        poses.append((euler_xyz_from_matrices(local[:3, :3])[0], local[:3, 3].copy()))
    return poses
