"""MD5 joints as Blender bones and pose channels (numpy only; the import builds them, the export inverts them).

A joint's *bind matrix* ``B`` is the 4x4 rigid transform of its ``.md5mesh`` line: rotation of the
joint's quaternion (x y z from the file, w from :func:`...formats.md5.skinning.quat_w`, normalised),
translation its position (object space, no axis change: MD5 is Z-up like Blender). The import makes
bone j's rest matrix in armature space exactly ``B_j`` (``EditBone.matrix = B_j``: head at the joint's
position, the bone's Y axis the joint's Y axis, roll from the joint's X axis; the tail is at a display
length along Y). The export reads it back as ``Bone.matrix_local``: position = its translation,
quaternion = its rotation with w made negative or zero (:func:`..quaternions.matrix_quaternions`, then
:func:`md5_quaternions`), the sign the engines derive.

A frame's joint *world matrix* ``F`` is the joint's pose from :func:`...formats.md5.skinning.frame_joints`
(object space). Blender poses bone j as ``P_j = P_parent · (B_parent⁻¹ · B_j) · basis_j``; with
``basis_j = B_j⁻¹ · B_parent · F_parent⁻¹ · F_j`` (a root: ``B_j⁻¹ · F_j``) every ``P_j = F_j``, and the
Armature modifier moves a vertex of joint j's group by ``F_j · B_j⁻¹``: the engines' skinning wherever
each weight's bind position is the vertex's (what exporters write; :func:`weight_spread` measures it).
"""
from __future__ import annotations

import numpy as np

from ..quaternions import quaternion_matrices


def md5_quaternions(q: np.ndarray) -> np.ndarray:
    """``q`` with the sign that makes w negative or zero: the x y z an MD5 file stores for it."""
    q = np.asarray(q, np.float64)
    return np.where(q[..., 3:] > 0, -q, q)


def rigid_matrices(pos: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """(..., 4, 4) matrices rotating by ``quat`` (x y z w) then moving by ``pos``."""
    pos = np.asarray(pos, np.float64)
    out = np.zeros(pos.shape[:-1] + (4, 4))
    out[..., :3, :3] = quaternion_matrices(quat)
    out[..., :3, 3] = pos
    out[..., 3, 3] = 1.0
    return out


def rigid_inverse(m: np.ndarray) -> np.ndarray:
    out = np.zeros_like(m)
    rotation_t = np.swapaxes(m[..., :3, :3], -1, -2)
    out[..., :3, :3] = rotation_t
    out[..., :3, 3] = -(rotation_t @ m[..., :3, 3:])[..., 0]
    out[..., 3, 3] = 1.0
    return out


def pose_bases(bind: np.ndarray, parents: np.ndarray, world: np.ndarray, scaled: bool = False,
               local_rest: np.ndarray | None = None) -> np.ndarray:
    """(F, J, 4, 4) pose-bone basis matrices making each bone's pose its joint's frame matrix:
    ``bind`` (J, 4, 4) rest matrices, ``world`` (F, J, 4, 4) frame matrices (module docstring);
    ``scaled``: frame matrices that also scale (a ``.md5scale``), inverted as general matrices;
    ``local_rest`` (J, 4, 4), when given, each bone's rest relative to its parent as Blender holds it
    (else ``B_p⁻¹ · B_j``)."""
    parents = np.asarray(parents, np.int64)
    rooted = parents >= 0
    parent = np.where(rooted, parents, 0)
    if local_rest is None:
        local_rest = np.where(rooted[:, None, None], rigid_inverse(bind)[parent] @ bind, bind)  # B_p⁻¹ B_j
    world_inverse = np.linalg.inv(world) if scaled else rigid_inverse(world)
    local_pose = np.where(rooted[None, :, None, None], world_inverse[:, parent] @ world, world)
    inverse = rigid_inverse(local_rest)
    with np.errstate(all="ignore"):
        proper = np.abs(np.linalg.det(local_rest[..., :3, :3]) - 1.0) < 1e-3      # a rotation (Blender's float32)
    inverse[proper] = np.linalg.inv(local_rest[proper])          # exact where Blender's float32 is not orthonormal
    return inverse[None] @ local_pose


def weight_spread(part, joint_pos: np.ndarray, joint_quat: np.ndarray, vertices: np.ndarray) -> np.ndarray:
    """(V,) the largest distance from each vertex (``vertices``, the bind pose) to the bind position of
    one of its weights: 0 where all its weights agree, the only case where a weighted deform (Blender's
    Armature modifier) moves the vertex as the engines do."""
    from ...formats.md5.skinning import quat_rotate
    counts = np.asarray(part.weight_count, np.int64)
    vertex = np.repeat(np.arange(len(counts)), counts)
    weight = np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    joint = np.asarray(part.weight_joint, np.int64)[weight]
    placed = quat_rotate(joint_quat[joint], np.asarray(part.weight_pos, np.float64)[weight]) + joint_pos[joint]
    out = np.zeros(len(counts))
    np.maximum.at(out, vertex, np.linalg.norm(placed - vertices[vertex], axis=1))
    return out
