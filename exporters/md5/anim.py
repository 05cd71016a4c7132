"""The ``.md5anim`` of sampled joint poses: the hierarchy with its flags, the base frame, the frames and
the bounds of each frame.

- Each joint's pose relative to its parent: ``pos = rotate(conj(parent.q), world.pos - parent.pos)``,
  ``q = conj(parent.q) * world.q`` (the inverse of Q2PRO ``MD5_BuildFrameSkeleton``), w <= 0.
- The base frame is frame 0. A component is animated (its flag bit set, Tx Ty Tz Qx Qy Qz in that order,
  numbered from the joint's ``startIndex``) when it changes between frames, or when it is not 0:
  ironwail's ``MD5Anim_Load`` starts every frame from zeros instead of the base frame, so a component
  left to the base frame must be 0 for ironwail to draw what Q2PRO and FTE draw.
- Bounds per frame: the box of every vertex skinned as the engines skin it
  (:func:`...formats.md5.skinning.skin_vertices` with the frame's joints from the anim as written, and
  the joints' scales where the export writes a ``.md5scale``); an anim exported without a mesh, the box of
  its joints.
"""
from __future__ import annotations

import numpy as np

from ...formats.md5.records import Md5Anim, Md5Header
from ...formats.md5.skinning import frame_joints, quat_multiply, quat_rotate, skin_vertices

PRINTED = 0.5e-6          # half the last printed decimal (six decimals)


def local_values(world_pos: np.ndarray, world_quat: np.ndarray, parents: np.ndarray) -> np.ndarray:
    """(F, J, 6) Tx Ty Tz Qx Qy Qz of each joint relative to its parent."""
    pos, quat = world_pos.copy(), world_quat.copy()
    child = np.flatnonzero(parents >= 0)
    parent = parents[child]
    conjugate = world_quat[:, parent] * np.array([-1.0, -1.0, -1.0, 1.0])
    pos[:, child] = quat_rotate(conjugate, world_pos[:, child] - world_pos[:, parent])
    quat[:, child] = quat_multiply(conjugate, world_quat[:, child])
    quat /= np.linalg.norm(quat, axis=-1, keepdims=True)
    quat = np.where(quat[..., 3:] > 0, -quat, quat)
    return np.concatenate([pos, quat[..., :3]], axis=-1)


def anim_record(names: list[str], parents: np.ndarray, world_pos: np.ndarray, world_quat: np.ndarray,
                frame_rate: float, mesh_parts: list, header: Md5Header | None = None,
                joint_scale: np.ndarray | None = None, bounds: bool = True) -> Md5Anim:
    """The anim of the poses; its ``bounds`` None unless ``bounds`` (:func:`frame_bounds` later, where the
    kept file's do not hold)."""
    values = local_values(world_pos, world_quat, parents)                   # (F, J, 6)
    moving = np.ptp(values, axis=0) > PRINTED
    flagged = moving | (np.abs(values[0]) >= PRINTED)                       # (J, 6)
    flags = (flagged * (1 << np.arange(6))).sum(axis=1).astype(np.int64)
    widths = flagged.sum(axis=1)
    start = (np.cumsum(widths) - widths).astype(np.int64)
    frames = values[:, flagged]                                             # row-major: joint by joint, Tx..Qz
    anim = Md5Anim(list(names), np.asarray(parents, np.int64), flags, start, float(frame_rate),
                   np.zeros((len(values), 2, 3)), values[0, :, :3].copy(), values[0, :, 3:].copy(),
                   np.ascontiguousarray(frames), header=header or Md5Header())
    anim.bounds = frame_bounds(anim, mesh_parts, joint_scale) if bounds else None
    return anim


def frame_bounds(anim: Md5Anim, mesh_parts: list, joint_scale: np.ndarray | None = None) -> np.ndarray:
    """(F, 2, 3) box of every skinned vertex per frame (with ``joint_scale`` (F, J), a ``.md5scale``'s);
    without a mesh (an anim exported alone) the box of the joints."""
    pos, quat = frame_joints(anim)
    if not mesh_parts:
        return np.stack([pos.min(axis=-2), pos.max(axis=-2)], axis=1)
    points = np.concatenate([skin_vertices(part, pos, quat, joint_scale) for part in mesh_parts], axis=-2)
    return np.stack([points.min(axis=-2), points.max(axis=-2)], axis=1)
