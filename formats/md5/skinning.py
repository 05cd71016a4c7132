"""Joint transforms and skinned vertex positions, vectorised, computed as the engines compute them.

- :func:`quat_w`: w of a quaternion stored as x y z: ``w = -sqrt(1 - x² - y² - z²)``, 0 where the term is
  negative (Q2PRO ``src/common/math.c`` ``Quat_ComputeW``; ironwail ``Quake/gl_model.c`` the same in
  ``Mod_LoadMD5MeshModel`` and ``MD5Anim_Load``, "we have no imagination"; FTE ``GenMatrix``).
- :func:`frame_joints`: a frame's local joint pose is the base frame with each component whose flag bit
  (Tx Ty Tz Qx Qy Qz, bits 0..5) is set taken from the frame's numbers, in that order, from the joint's
  ``startIndex`` on (Q2PRO ``MD5_BuildFrameSkeleton``, FTE ``Mod_ParseMD5Anim``; ironwail's ``MD5Anim_Load``
  starts from zeros instead of the base frame, which is the same for joints with all six flags, the
  re-release's files). A child's world pose: ``pos = parent.pos + rotate(parent.q, local.pos)``,
  ``q = normalize(parent.q * local.q)`` (``MD5_BuildFrameSkeleton``).
- :func:`skin_vertices`: a vertex is ``sum(bias * (rotate(joint.q, weight.pos) + joint.pos))`` over its
  weights, with the mesh's joints (the bind pose, object space: Q2PRO ``MD5_ComputeNormals``, ironwail
  ``MD5_BakeInfluences``) or a frame's (Q2PRO ``src/refresh/mesh.c`` skinning with the frame skeleton).
  ironwail keeps only the four largest weights and rescales them to sum 1 (:data:`.limits.MAX_WEIGHTS_PER_VERTEX`);
  :func:`skin_vertices` uses them all, as Q2PRO and the MD5 format do.

``rotate(q, v)`` is the Hamilton product ``q * (v, 0) * conj(q)`` as Q2PRO ``Quat_RotatePoint`` computes it.
"""
from __future__ import annotations

import numpy as np


def quat_w(xyz: np.ndarray) -> np.ndarray:
    """(..., 4) quaternions x y z w from (..., 3) x y z, w derived as the engines derive it."""
    xyz = np.asarray(xyz, np.float64)
    term = 1.0 - (xyz * xyz).sum(axis=-1)
    w = -np.sqrt(np.maximum(term, 0.0))
    return np.concatenate([xyz, w[..., None]], axis=-1)


def quat_multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product of (..., 4) x y z w quaternions (Q2PRO ``Quat_MultiplyQuat``)."""
    ax, ay, az, aw = np.moveaxis(a, -1, 0)
    bx, by, bz, bw = np.moveaxis(b, -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by + ay * bw + az * bx - ax * bz,
                     aw * bz + az * bw + ax * by - ay * bx,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``q * (v, 0) * conj(q)`` for (..., 4) q and (..., 3) v (Q2PRO ``Quat_RotatePoint``):
    ``(w² - u·u) v + 2 (u·v) u + 2 w (u × v)``, a component at a time (dot products summed x, y, z in order)."""
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    a, b, c = v[..., 0], v[..., 1], v[..., 2]
    scale = w * w - ((x * x + y * y) + z * z)
    along = 2.0 * ((x * a + y * b) + z * c)
    twice = 2.0 * w
    return np.stack([(scale * a + along * x) + twice * (y * c - z * b),
                     (scale * b + along * y) + twice * (z * a - x * c),
                     (scale * c + along * z) + twice * (x * b - y * a)], axis=-1)


def quat_normalize(q: np.ndarray) -> np.ndarray:
    """Q2PRO ``Quat_Normalize``: a zero quaternion stays zero."""
    length = np.sqrt((q * q).sum(-1, keepdims=True))
    return np.divide(q, length, out=np.array(q, np.float64), where=length > 0)


def component_columns(flags: np.ndarray, start: np.ndarray) -> np.ndarray:
    """(J, 6) frame column of each joint's Tx Ty Tz Qx Qy Qz, -1 where the base frame gives it."""
    flags = np.asarray(flags, np.int64)
    bits = (flags[:, None] >> np.arange(6)) & 1
    rank = np.cumsum(bits, axis=1) - bits           # set bits before this one
    return np.where(bits == 1, np.asarray(start, np.int64)[:, None] + rank, -1)


def local_poses(anim, frames=None) -> tuple[np.ndarray, np.ndarray]:
    """(F, J, 3) positions and (F, J, 4) quaternions relative to the parent, for ``frames`` (all by
    default) of ``anim`` (an :class:`~.records.Md5Anim`)."""
    rows = np.asarray(anim.frames, np.float64)
    rows = rows if frames is None else rows[np.atleast_1d(frames)]
    columns = component_columns(anim.joint_flags, anim.joint_start)
    base = np.concatenate([anim.base_pos, anim.base_orient], axis=1)          # (J, 6)
    values = np.broadcast_to(base, (len(rows),) + base.shape).copy()
    taken = columns >= 0
    values[:, taken] = rows[:, columns[taken]]
    return values[..., :3], quat_w(values[..., 3:])


def world_poses(parents: np.ndarray, local_pos: np.ndarray, local_quat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World (object space) positions and quaternions from local ones (..., J, 3|4); parents first. The
    joints one level below the roots are placed together, then the next level's, ...: each joint's
    arithmetic is the one joint-by-joint walk's, so the same bits."""
    pos = np.array(local_pos, np.float64)
    quat = np.array(local_quat, np.float64)
    parents = np.asarray(parents, np.int64)
    if np.any(parents >= np.arange(len(parents))):       # not parents first (the readers refuse it): in order
        for joint, parent in enumerate(parents.tolist()):
            if parent >= 0:
                pos[..., joint, :] = quat_rotate(quat[..., parent, :], pos[..., joint, :]) + pos[..., parent, :]
                quat[..., joint, :] = quat_normalize(quat_multiply(quat[..., parent, :], quat[..., joint, :]))
        return pos, quat
    for joints, parents_of in _levels(parents):
        pos[..., joints, :] = quat_rotate(quat[..., parents_of, :], pos[..., joints, :]) + pos[..., parents_of, :]
        quat[..., joints, :] = quat_normalize(quat_multiply(quat[..., parents_of, :], quat[..., joints, :]))
    return pos, quat


def _levels(parents: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """(joints, their parents) of each level below the roots, top down (a parent listed before its child)."""
    depth = np.zeros(len(parents), np.int64)
    for joint, parent in enumerate(parents.tolist()):
        depth[joint] = depth[parent] + 1 if parent >= 0 else 0
    return [(np.flatnonzero(depth == d), parents[depth == d]) for d in range(1, int(depth.max(initial=0)) + 1)]


def frame_joints(anim, frames=None, scale=None) -> tuple[np.ndarray, np.ndarray]:
    """(F, J, 3) world positions and (F, J, 4) world quaternions of ``frames`` (all by default). With
    ``scale`` (a :class:`.scale.Md5Scale`), a joint marked ``scale_positions`` has its position relative
    to its parent multiplied by its own scale of that frame first (Q2PRO ``MD5_BuildFrameSkeleton``)."""
    return world_poses(anim.joint_parents, *_scaled_local_poses(anim, frames, scale))


def _scaled_local_poses(anim, frames, scale) -> tuple[np.ndarray, np.ndarray]:
    local_pos, local_quat = local_poses(anim, frames)
    if scale is not None and np.any(scale.scale_positions):
        rows = np.asarray(scale.scales, np.float64)
        rows = rows if frames is None else rows[np.atleast_1d(frames)]
        local_pos = local_pos * np.where(scale.scale_positions, rows, 1.0)[..., None]
    return local_pos, local_quat


def frames_joints(anims: list, scales: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`frame_joints` of every frame of each anim (with its ``.md5scale`` or None). The frames of anims
    whose joints have the same parents are placed together, a level of the hierarchy at a time for all of them:
    a frame's arithmetic does not depend on the other frames, so the same bits with one set of numpy calls."""
    poses = [_scaled_local_poses(anim, None, scale) for anim, scale in zip(anims, scales)]
    groups: dict[bytes, list[int]] = {}
    for index, anim in enumerate(anims):
        groups.setdefault(np.asarray(anim.joint_parents, np.int64).tobytes(), []).append(index)
    out: list = [None] * len(anims)
    for members in groups.values():
        world = world_poses(anims[members[0]].joint_parents, np.concatenate([poses[i][0] for i in members]),
                            np.concatenate([poses[i][1] for i in members]))
        bounds = np.cumsum([len(poses[i][0]) for i in members])[:-1]
        for index, pos, quat in zip(members, *(np.split(values, bounds) for values in world)):
            out[index] = (pos, quat)
    return out


def bind_joints(mesh) -> tuple[np.ndarray, np.ndarray]:
    """The mesh's joints (already in object space): (J, 3) positions, (J, 4) quaternions."""
    return np.asarray(mesh.joint_pos, np.float64), quat_w(mesh.joint_orient)


def skin_vertices(part, joint_pos: np.ndarray, joint_quat: np.ndarray, joint_scale=None) -> np.ndarray:
    """(..., V, 3) vertex positions of ``part`` (an :class:`~.records.Md5MeshPart`) with joints
    (..., J, 3) and (..., J, 4): the bind pose from :func:`bind_joints`, a frame from :func:`frame_joints`.
    ``joint_scale`` (..., J): each weight's rotated position times its joint's scale (Q2PRO
    ``calc_skel_vert`` with a ``.md5scale``)."""
    counts = np.asarray(part.weight_count, np.int64)
    vertex = np.repeat(np.arange(len(counts)), counts)
    weight = np.repeat(np.asarray(part.weight_start, np.int64), counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts))
    joint = np.asarray(part.weight_joint, np.int64)[weight]
    placed = quat_rotate(joint_quat[..., joint, :], np.asarray(part.weight_pos, np.float64)[weight])
    if joint_scale is not None:
        placed = placed * np.asarray(joint_scale, np.float64)[..., joint, None]
    placed = placed + joint_pos[..., joint, :]
    placed = placed * np.asarray(part.weight_bias, np.float64)[weight][:, None]
    out = np.zeros(joint_pos.shape[:-2] + (len(counts), 3))
    np.add.at(out, (..., vertex, slice(None)), placed) if out.ndim == 2 else _add_batched(out, vertex, placed)
    return out


def _add_batched(out: np.ndarray, vertex: np.ndarray, placed: np.ndarray) -> None:
    """``np.add.at`` of each batch (frame): each vertex's weights added to it one after another in slot order,
    ``vertex`` ascending; the k-th weight of every vertex at once, for all batches (the same additions in the
    same order: the same bits)."""
    counts = np.bincount(vertex, minlength=out.shape[-2])
    rank = np.arange(len(vertex)) - (np.cumsum(counts) - counts)[vertex]
    for k in range(int(counts.max(initial=0))):
        at = rank == k
        out[..., vertex[at], :] += placed[..., at, :]
