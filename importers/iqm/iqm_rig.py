"""IQM joints -> one Blender armature; blend weights -> vertex groups; frames -> pose channels.

A joint's local matrix is ``T(translate) · R(rotate) · S(scale)`` relative to its parent (the IQM SDK's
``iqm.cpp`` and DarkPlaces ``model_alias.c`` ``Mod_INTERQUAKEMODEL_Load`` build the base frame so:
``Matrix3x4(rotate, translate, scale)``, then ``base[i] = base[parent] · base[i]``); its *bind matrix*
``W`` the product down its parents. A frame's pose is the same product of the frame's channels
(:func:`...formats.iqm.animation.frame_poses`), ``F``. The engines skin a vertex of joint j by
``F_j · W_j⁻¹``. Bone j's rest matrix ``R_j`` is ``W_j`` without its scale (Blender's rest has none);
keys make each bone's pose ``P_j = F_j · W_j⁻¹ · R_j``, so Blender's Armature deform
(``P_j · R_j⁻¹``) is the engines' skinning. Blender poses a bone as ``P_parent · L_j · basis_j``
(``L_j`` its rest relative to its parent's, :func:`local_rests`), so ``basis_j = L_j⁻¹ · P_parent⁻¹ ·
P_j``, split into location, quaternion and scale (keyed only where some joint scales).
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.generated_names import mark_made
from ...common.iqm.contract import IQM_JOINT_INDEX
from ...common.quaternions import continuous, matrix_quaternions, quaternion_matrices
from ..armature_bones import add_bones, bone_data_path, bone_lengths, fill_vertex_groups, key_bone_curves

SCALE_TOLERANCE = 1e-5              # a scale this close to 1 keys no scale channel


def local_matrices(translate: np.ndarray, rotate: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(..., 4, 4) ``T · R · S`` of (..., 3) translations, (..., 4) x y z w rotations, (..., 3) scales."""
    out = np.zeros(np.shape(translate)[:-1] + (4, 4))
    out[..., :3, :3] = quaternion_matrices(rotate) * np.asarray(scale, np.float64)[..., None, :]
    out[..., :3, 3] = translate
    out[..., 3, 3] = 1.0
    return out


def world_matrices(local: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """(..., J, 4, 4) each joint's matrix down its parents (parents come before their children)."""
    out = np.array(local, np.float64)
    for j, parent in enumerate(np.asarray(parents, np.int64)):
        if parent >= 0:
            out[..., j, :, :] = out[..., parent, :, :] @ out[..., j, :, :]
    return out


def without_scale(matrices: np.ndarray) -> np.ndarray:
    """(J, 4, 4) rigid matrices: each rotation part's nearest rotation (polar decomposition), the translation kept."""
    out = np.array(matrices, np.float64)
    u, _, vt = np.linalg.svd(out[:, :3, :3])
    rotation = u @ vt
    flip = np.linalg.det(rotation) < 0
    u[flip, :, 2] *= -1
    out[:, :3, :3] = u @ vt
    return out


def build_armature(context: bpy.types.Context, name: str, names: list[str], parents: np.ndarray, rests: np.ndarray,
                   collection: bpy.types.Collection, model_size: float) -> tuple[bpy.types.Object, list[str]]:
    """An armature object in ``collection`` with bone j named ``names[j]`` at rest matrix ``rests[j]``; the
    names Blender gave, per joint."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    mark_made(obj)
    collection.objects.link(obj)
    if not len(names):
        return obj, []
    parent_list = [int(p) for p in parents]
    lengths = bone_lengths(rests[:, :3, 3], parent_list, model_size)
    bone_names = add_bones(context, obj, [n or "joint" for n in names], rests, lengths, parent_list)
    for j, bone_name in enumerate(bone_names):
        data.bones[bone_name][IQM_JOINT_INDEX] = j
        obj.pose.bones[bone_name].rotation_mode = "QUATERNION"
    return obj, bone_names


def pose_channels(frames_world: np.ndarray, bind: np.ndarray, rests: np.ndarray, local_rest: np.ndarray,
                  parents: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F, J, 3) locations, (F, J, 4) Blender quaternions (w x y z) and (F, J, 3) scales of the bases that
    pose each bone at ``F_j · W_j⁻¹ · R_j`` (module docstring) for frames' world matrices ``frames_world``
    (F, J, 4, 4), bind matrices ``bind`` and rests ``rests`` (J, 4, 4)."""
    parents = np.asarray(parents, np.int64)
    with np.errstate(all="ignore"):
        posed = frames_world @ (np.linalg.inv(bind) @ rests)[None]
        rooted = parents >= 0
        parent = np.where(rooted, parents, 0)
        relative = np.where(rooted[None, :, None, None], np.linalg.inv(posed[:, parent]) @ posed, posed)
        bases = np.linalg.inv(local_rest)[None] @ relative
        linear = bases[..., :3, :3]
        sizes = np.linalg.norm(linear, axis=-2)
        rotation = linear / np.where(sizes == 0, 1.0, sizes)[..., None, :]
        quat = continuous(matrix_quaternions(rotation))
    return bases[..., :3, 3], np.concatenate([quat[..., 3:], quat[..., :3]], axis=-1), sizes


def animate(obj: bpy.types.Object, bone_names: list[str], action_name: str, scene_frames: np.ndarray,
            channels: tuple[np.ndarray, np.ndarray, np.ndarray]) -> bpy.types.Action:
    """A new action on ``obj`` keying every bone (linear, as the engines lerp between frames) at
    ``scene_frames``, one per row of ``channels`` (:func:`pose_channels`)."""
    locations, quaternions, sizes = channels
    scaled = bool(len(sizes)) and bool(np.any(np.abs(sizes - 1.0) > SCALE_TOLERANCE))
    kinds = [("location", 3), ("rotation_quaternion", 4)] + ([("scale", 3)] if scaled else [])
    curves = [(bone_data_path(bone_name, kind), axis, bone_name) for bone_name in bone_names for kind, width in kinds
              for axis in range(width)]
    per_frame = np.concatenate([locations, quaternions] + ([sizes] if scaled else []), axis=2)
    key_bone_curves(obj, action_name, curves, scene_frames, per_frame)
    return obj.animation_data.action


def assign_weights(obj: bpy.types.Object, bone_names: list[str], indexes: np.ndarray | None,
                   weights: np.ndarray | None) -> int:
    """One vertex group per joint (joint order, named as its bone) holding the mesh's blend weights
    (``indexes`` and ``weights`` (V, k), weights as fractions); a joint named twice for a vertex summed.
    Returns how many weights name no joint (left out)."""
    if not bone_names:
        return 0
    if indexes is None or weights is None or indexes.shape != weights.shape:
        fill_vertex_groups(obj, bone_names, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
        return 0
    vertex = np.repeat(np.arange(len(indexes)), indexes.shape[1])
    joint, weight = indexes.reshape(-1).astype(np.int64), weights.reshape(-1).astype(np.float64)
    used = weight > 0
    outside = used & ((joint < 0) | (joint >= len(bone_names)))
    keep = used & ~outside
    count = len(bone_names)
    keys = vertex[keep] * count + joint[keep]
    unique, inverse = np.unique(keys, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=weight[keep], minlength=len(unique))
    fill_vertex_groups(obj, bone_names, unique // count, unique % count, np.clip(total, 0.0, 1.0).astype(np.float32))
    return int(outside.sum())
