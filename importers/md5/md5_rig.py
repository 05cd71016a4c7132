"""MD5 joints -> one Blender armature; weights -> vertex groups; an ``.md5anim`` -> one action.

Bones: bone j's rest matrix is joint j's bind matrix (:mod:`...common.md5.pose`: head at the joint's
position, the bone's Y axis the joint's Y axis, roll from its X axis; the length, distance to the
nearest child, is only for display), parented as the joints are; ``bone["md5_joint_index"]`` is j.
Blender keeps a bone as head, tail and roll in float32 and rebuilds its matrix from them, which moves
the rest rotation a little (a Y axis within 2.5e-4 of -Y is put on -Y: ``vec_roll_to_mat3_normalized``
in Blender's ``armature.cc``); the keys are made against the rest matrices Blender then holds
(:func:`local_rests`), so each bone's pose is the joint's frame matrix all the same, and the export
writes the file's own bind values while a bone is where the import left it (``exporters/md5/write_back.py``).
Pose channels: ``rotation_quaternion`` and ``location`` of each bone keyed at every anim frame
(linear, as the engines lerp between frames) with the basis that makes the bone's pose the joint's
frame matrix, so Blender's Armature deform is the engines' skinning (Q2PRO ``MD5_BuildFrameSkeleton``).
With a ``.md5scale`` (Q2PRO) each joint's frame matrix also scales by the joint's scale, so ``scale`` is
keyed too (uniform; a bone's pose is then its joint's scaled matrix, its children's not scaled by it).
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.generated_names import mark_made
from ...common.md5.contract import MD5_ANIM_KEYS, MD5_JOINT_INDEX
from ...common.md5.keys import keys_record
from ...common.md5.pose import pose_bases, rigid_matrices
from ...common.quaternions import continuous, matrix_quaternions
from ...formats.md5.skinning import bind_joints, frame_joints
from ..armature_bones import (
    add_bones,
    bone_data_path,
    bone_lengths,
    fill_vertex_groups,
    key_bone_curves,
    local_rests,
)


def bind_matrices(mesh) -> np.ndarray:
    """(J, 4, 4) the joints' bind matrices (the bones' rest matrices)."""
    return rigid_matrices(*bind_joints(mesh))


def build_armature(context: bpy.types.Context, name: str, mesh, collection: bpy.types.Collection,
                   model_size: float) -> tuple[bpy.types.Object, list[str]]:
    """An armature object in ``collection`` with a bone per joint at its bind matrix; the bone names
    Blender gave, per joint."""
    data = bpy.data.armatures.new(name)
    obj = bpy.data.objects.new(name, data)
    mark_made(obj)
    collection.objects.link(obj)
    matrices = bind_matrices(mesh)
    parents = [int(p) for p in mesh.joint_parents]
    lengths = bone_lengths(matrices[:, :3, 3], parents, model_size)
    bone_names = add_bones(context, obj, [n or "joint" for n in mesh.joint_names], matrices, lengths, parents)
    for j, bone_name in enumerate(bone_names):
        data.bones[bone_name][MD5_JOINT_INDEX] = j
        obj.pose.bones[bone_name].rotation_mode = "QUATERNION"
    return obj, bone_names


def vertex_weights(part, num_joints: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows ``(vertex, joint, weight)`` of a mesh block, a joint listed twice for a vertex summed,
    weights at most 1 (what a vertex group holds)."""
    counts = np.asarray(part.weight_count, np.int64)
    vertex = np.repeat(np.arange(len(counts)), counts)
    weight = np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    keys = vertex * max(num_joints, 1) + np.asarray(part.weight_joint, np.int64)[weight]
    unique, inverse = np.unique(keys, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=np.asarray(part.weight_bias, np.float64)[weight],
                        minlength=len(unique))
    return unique // max(num_joints, 1), unique % max(num_joints, 1), np.clip(total, 0.0, 1.0).astype(np.float32)


def assign_weights(obj: bpy.types.Object, bone_names: list[str], part) -> None:
    """One vertex group per joint (joint order, named as its bone) holding the block's weights."""
    fill_vertex_groups(obj, bone_names, *vertex_weights(part, len(bone_names)))


def pose_channels(local_rest: np.ndarray, anim, scale=None, frames=None, joints=None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(F, J, 3) locations, (F, J, 4) Blender quaternions (w x y z) and, with a ``.md5scale``
    (:class:`...formats.md5.scale.Md5Scale`), (F, J) uniform scales of ``frames`` (all by default) of
    ``anim`` for bones whose rests relative to their parents are ``local_rest`` (J, 4, 4, :func:`local_rests`);
    ``joints``: as :func:`animate`."""
    if joints is None:
        joints = frame_joints(anim, frames, scale=scale)
    elif frames is not None:                    # a frame's poses do not depend on the other frames
        joints = tuple(values[np.atleast_1d(frames)] for values in joints)
    world = rigid_matrices(*joints)
    if scale is None:
        bases = pose_bases(None, anim.joint_parents, world, local_rest=local_rest)
        sizes = None
    else:                           # F_j scales its weights' offsets: T(pos) R(q) S(s), s not inherited
        rows = np.asarray(scale.scales, np.float64)
        rows = rows if frames is None else rows[np.atleast_1d(frames)]
        world[..., :3, :3] *= rows[..., None, None]
        bases = pose_bases(None, anim.joint_parents, world, scaled=True, local_rest=local_rest)
        sizes = np.cbrt(np.linalg.det(bases[..., :3, :3]))
        bases[..., :3, :3] /= np.where(sizes == 0, 1.0, sizes)[..., None, None]
    quat = continuous(matrix_quaternions(bases[..., :3, :3]))
    return bases[..., :3, 3], np.concatenate([quat[..., 3:], quat[..., :3]], axis=-1), sizes


def poses_channels(local_rest: np.ndarray, anims: list, joints: list) -> list[tuple]:
    """:func:`pose_channels` of every frame of each anim (none with a ``.md5scale``) from its ``joints``, the
    frames of anims with the same parents worked out together (a frame's arithmetic does not depend on the
    other frames: the same bits), the quaternions made continuous within each anim."""
    out: list = [None] * len(anims)
    groups: dict[bytes, list[int]] = {}
    for index, anim in enumerate(anims):
        groups.setdefault(np.asarray(anim.joint_parents, np.int64).tobytes(), []).append(index)
    for members in groups.values():
        world = rigid_matrices(np.concatenate([joints[i][0] for i in members]),
                               np.concatenate([joints[i][1] for i in members]))
        bases = pose_bases(None, anims[members[0]].joint_parents, world, local_rest=local_rest)
        quats = matrix_quaternions(bases[..., :3, :3])
        bounds = np.cumsum([len(joints[i][0]) for i in members])[:-1]
        for index, base, quat in zip(members, np.split(bases, bounds), np.split(quats, bounds)):
            quat = continuous(quat)
            out[index] = (base[..., :3, 3], np.concatenate([quat[..., 3:], quat[..., :3]], axis=-1), None)
    return out


def animate(obj: bpy.types.Object, bone_names: list[str], anim, action_name: str,
            frames: np.ndarray, scale=None, anim_frames=None, joints=None, local_rest=None,
            channels=None, record: tuple | None = None) -> bpy.types.Action:
    """A new action on ``obj`` keying every bone at scene ``frames``, one per anim frame of ``anim_frames``
    (all by default); with a ``.md5scale`` each bone's uniform scale too. ``joints``: the anim's world joint
    poses of every frame (:func:`...formats.md5.skinning.frame_joints`), when already worked out;
    ``local_rest``: :func:`local_rests` of the bones, ``channels``: :func:`pose_channels`, when worked out;
    ``record``: (file bytes, frameRate, rig digest) of a whole anim, stored with its keys' digest
    (MD5_ANIM_KEYS, :mod:`...common.md5.keys`)."""
    if channels is None:
        rests = local_rests(obj, bone_names) if local_rest is None else local_rest
        channels = pose_channels(rests, anim, scale, anim_frames, joints)
    locations, quaternions, sizes = channels
    kinds = ([("scale", 3)] if sizes is not None else []) + [("rotation_quaternion", 4), ("location", 3)]
    channels = [(path, axis, bone_name) for bone_name in bone_names for kind, width in kinds
                for path in [bone_data_path(bone_name, kind)] for axis in range(width)]
    parts = ([np.repeat(sizes[..., None], 3, axis=2)] if sizes is not None else []) + [quaternions, locations]
    per_frame = np.concatenate(parts, axis=2)                # (F, J, channels of a bone), in that order
    count = len(frames)
    co = key_bone_curves(obj, action_name, channels, frames, per_frame)
    action = obj.animation_data.action
    if record is not None:
        paths = [f"{path}[{axis}]" for path, axis, _ in channels]
        action[MD5_ANIM_KEYS] = keys_record(*record, paths, np.full(len(channels), count), co)
    return action
