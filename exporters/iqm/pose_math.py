"""The joint maths of an IQM export, numpy only: 4x4 matrices to the ten channels a joint or a pose
holds (translate x y z, rotate x y z w, scale x y z, relative to the parent), and those channels back
to matrices down the hierarchy, the way the engines build them.

A joint's matrix is ``translate @ rotate @ scale`` (the IQM SDK's ``Matrix3x4(const Quat &rot, const
Vec3 &trans, const Vec3 &scale)`` in ``util.h``: the quaternion's rotation with each column times its
scale, the translation beside), composed parent first: ``world[j] = world[parent[j]] @ local[j]``. A quaternion is stored
with w <= 0, as the SDK's exporters (``blender-5.0/iqm_export/blender_scene.py`` ``collectAnim``) and
DarkPlaces (which negates one with w > 0 as it loads) keep them.
"""
from __future__ import annotations

import numpy as np


def matrix_quaternions(rotation: np.ndarray) -> np.ndarray:
    """(..., 4) x y z w unit quaternions of (..., 3, 3) proper rotations, w <= 0."""
    m = np.asarray(rotation, np.float64)
    trace = m[..., 0, 0] + m[..., 1, 1] + m[..., 2, 2]
    # Shepperd: build from the largest of 1 + trace and 1 + 2 m_ii - trace, so no division is small
    diagonal = np.stack([trace, m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], -1)
    case = diagonal.argmax(-1)
    q = np.empty(m.shape[:-2] + (4,))
    w = np.sqrt(np.maximum(1.0 + trace, 1e-300))
    x = np.sqrt(np.maximum(1.0 + 2 * m[..., 0, 0] - trace, 1e-300))
    y = np.sqrt(np.maximum(1.0 + 2 * m[..., 1, 1] - trace, 1e-300))
    z = np.sqrt(np.maximum(1.0 + 2 * m[..., 2, 2] - trace, 1e-300))
    zy, yz = m[..., 2, 1], m[..., 1, 2]
    xz, zx = m[..., 0, 2], m[..., 2, 0]
    yx, xy = m[..., 1, 0], m[..., 0, 1]
    rows = (np.stack([(zy - yz) / w, (xz - zx) / w, (yx - xy) / w, w], -1),
            np.stack([x, (xy + yx) / x, (xz + zx) / x, (zy - yz) / x], -1),
            np.stack([(xy + yx) / y, y, (yz + zy) / y, (xz - zx) / y], -1),
            np.stack([(xz + zx) / z, (yz + zy) / z, z, (yx - xy) / z], -1))
    for index, row in enumerate(rows):
        q[case == index] = row[case == index]
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:] > 0, -q, q)


def quaternion_matrices(q: np.ndarray) -> np.ndarray:
    """(..., 3, 3) rotations of (..., 4) x y z w quaternions (normalised first)."""
    q = np.asarray(q, np.float64)
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def relative(parents: np.ndarray, world: np.ndarray) -> np.ndarray:
    """(..., J, 4, 4) each joint's matrix relative to its parent's (a root's as it is)."""
    out = np.array(world, np.float64)
    has = np.flatnonzero(parents >= 0)
    if len(has):
        out[..., has, :, :] = np.linalg.inv(world[..., parents[has], :, :]) @ world[..., has, :, :]
    return out


def channels(local: np.ndarray) -> np.ndarray:
    """(..., 10) translate, rotate (x y z w, w <= 0) and scale of (..., 4, 4) matrices. A mirroring
    matrix (negative determinant) has its x scale negative so the rotation stays proper."""
    linear = local[..., :3, :3]
    scale = np.linalg.norm(linear, axis=-2)
    scale = np.where(scale > 0, scale, 1.0)
    flip = np.where(np.linalg.det(linear) < 0, -1.0, 1.0)
    scale[..., 0] *= flip
    rotation = linear / scale[..., None, :]
    return np.concatenate([local[..., :3, 3], matrix_quaternions(rotation), scale], -1)


def sheared(local: np.ndarray, tolerance: float = 1e-4) -> np.ndarray:
    """(...) bool: matrices whose axes are not at right angles (a child rotated under a parent scaled
    unevenly): ten channels cannot hold them, the joint comes back without the shear."""
    linear = local[..., :3, :3]
    unit = linear / np.maximum(np.linalg.norm(linear, axis=-2, keepdims=True), 1e-30)
    gram = np.swapaxes(unit, -1, -2) @ unit
    return np.abs(gram - np.eye(3)).max(axis=(-1, -2)) > tolerance


def local_matrices(values: np.ndarray) -> np.ndarray:
    """(..., 4, 4) ``translate @ rotate @ scale`` of (..., 10) channels."""
    values = np.asarray(values, np.float64)
    out = np.zeros(values.shape[:-1] + (4, 4))
    out[..., :3, :3] = quaternion_matrices(values[..., 3:7]) * values[..., None, 7:10]
    out[..., :3, 3] = values[..., 0:3]
    out[..., 3, 3] = 1.0
    return out


def world_matrices(parents: np.ndarray, local: np.ndarray) -> np.ndarray:
    """(..., J, 4, 4) joints' matrices down the hierarchy (a parent precedes its children)."""
    out = np.array(local, np.float64)
    for joint, parent in enumerate(parents):
        if parent >= 0:
            out[..., joint, :, :] = out[..., parent, :, :] @ local[..., joint, :, :]
    return out


def skinned_bounds(positions: np.ndarray, indexes: np.ndarray, weights: np.ndarray, joints: np.ndarray,
                   budget: int = 1 << 14) -> np.ndarray:
    """(F, 8) bbmin[3], bbmax[3], xyradius, radius (the IQM SDK's ``iqmbounds``) of (V, 3) ``positions``
    moved by each frame's (F, J, 4, 4) skinning ``joints`` (frame matrix @ inverse bind), each vertex by
    its (V, K) ubyte ``indexes`` and ``weights`` as the file holds them (weights sum to 255).

    The vertices sharing a blend (the same indexes and weights) are moved by one blended matrix
    ``sum_k weight_k / 255 * joint_k``. The vertices are sorted by blend (a bound does not depend on
    their order); a few frames at a time (about ``budget`` vertex positions or blend weights, so the
    arrays stay in the cache) each entry of the blended matrices is repeated over its blend's vertices
    and the vertices moved. The sums run in the order the earlier ``einsum`` form of this function added
    them (k = 0, 1, 2, 3; a coordinate ``m0 * x + m2 * z``, then ``+ m1 * y``, then the translation), so
    the bounds are the same to the bit; a radius is the root of the largest sum of squares (the root is
    monotonic)."""
    out = np.zeros((len(joints), 8))
    if not len(positions):
        return out
    width = indexes.shape[1]
    rows = np.zeros((len(positions), -(-2 * width // 8) * 8), np.uint8)     # a row of whole 8-byte words
    rows[:, :width], rows[:, width:2 * width] = indexes, weights
    words = rows.view(np.uint64)
    keys, blend_of = np.unique(words[:, 0] if words.shape[1] == 1 else words, axis=0, return_inverse=True)
    blend_of = blend_of.ravel()
    blends = keys.view(np.uint8).reshape(len(keys), -1)
    blend_index, blend_weight = blends[:, :width].T.astype(np.int64), blends[:, width:2 * width].T / 255.0
    counts = np.bincount(blend_of, minlength=len(keys))
    ordered = np.asarray(positions, np.float64)[np.argsort(blend_of, kind="stable")]
    x, y, z = (np.ascontiguousarray(ordered[:, c]) for c in range(3))
    frame_entries = np.ascontiguousarray(joints[:, :, :3, :].transpose(0, 2, 3, 1))   # (F, 3, 4, J)
    step = max(1, budget // max(len(positions), len(keys) * width))
    for start in range(0, len(joints), step):
        chunk = frame_entries[start:start + step]
        entries = chunk[..., blend_index[0]] * blend_weight[0]                       # (f, 3, 4, B)
        for k in range(1, width):
            entries += chunk[..., blend_index[k]] * blend_weight[k]
        each = np.repeat(entries, counts, axis=-1)                                   # (f, 3, 4, V)
        moved = each[:, :, 0] * x                                                     # (f, 3, V)
        term = each[:, :, 2] * z
        moved += term
        np.multiply(each[:, :, 1], y, out=term)
        moved += term
        moved += each[:, :, 3]
        out[start:start + step, 0:3] = moved.min(axis=2)
        out[start:start + step, 3:6] = moved.max(axis=2)
        squares = moved[:, 0] * moved[:, 0]
        squares += moved[:, 1] * moved[:, 1]
        out[start:start + step, 6] = np.sqrt(squares.max(axis=1))
        squares += moved[:, 2] * moved[:, 2]
        out[start:start + step, 7] = np.sqrt(squares.max(axis=1))
    return out
