"""MilkShape skeleton maths shared by the MS3D importer, exporter and tools (bpy-free).

A joint's rest local matrix is ``L = T(position) · R(rotation)`` in its parent's space with
``R = Rz · Ry · Rx`` (Euler 'XYZ', MilkShape's AngleMatrix); its global matrix is
``G = G_parent · L``. Keys are relative to the rest pose: ``L(t) = L · T(key position) · R(key rotation)``.
Rotations are interpolated by quaternion slerp, positions by MilkShape's Hermite curves
(:func:`hermite_tangents`). Skin slots follow docs/dev/format-facts.md ("MS3D", Weights) (:func:`influences_from_raw`).
"""
from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .records import Ms3dModel


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
    """Joint indices with every parent before its children (file order otherwise kept).

    A joint that is its own ancestor (the readers refuse or cut such loops) raises
    :class:`~..errors.FormatError` naming it: a walk up from a joint ends within ``len(parents)`` steps."""
    depth = []
    for j in range(len(parents)):
        d, k = 0, parents[j]
        while k != -1:
            if d >= len(parents):
                raise FormatError(f"joint {j} is its own ancestor: its parents lead back to it, never to a root",
                                  field="joint parents")
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
    """(V, 4) joint indices (-1 = none) and (V, 4) integer percentages, by the rules in docs/dev/format-facts.md ("MS3D")."""
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


def pack_skin(model: Ms3dModel) -> tuple[np.ndarray, np.ndarray]:
    """Per file vertex: (own joint, bone_ids[3]) as int8x4 and weights[3] as uint8x4, viewed as int32."""
    count = model.num_vertices
    joints = np.full((count, 4), -1, dtype=np.int8)
    weights = np.zeros((count, 4), dtype=np.uint8)
    joints[:, 0] = model.vert_bone
    if model.vertex_extras is not None:
        joints[:, 1:] = model.vertex_extras.bone_ids
        weights[:, :3] = model.vertex_extras.weights
    return joints.view("<i4").ravel(), weights.view("<i4").ravel()


def unpack_skin(joints: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of :func:`pack_skin`: own joint (V,), bone_ids (V, 3), weights (V, 3)."""
    j = np.ascontiguousarray(joints, dtype="<i4").view(np.int8).reshape(-1, 4)
    w = np.ascontiguousarray(weights, dtype="<i4").view(np.uint8).reshape(-1, 4)
    return j[:, 0].copy(), j[:, 1:].copy(), w[:, :3].copy()
