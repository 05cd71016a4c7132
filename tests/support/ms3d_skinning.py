"""MilkShape's own skeletal animation and skinning, in numpy, for the tests.

A transcription of the MilkShape 3D viewer sample (``msModel.cpp``: ``SetupJoints``,
``SetupTangents``, ``EvaluateJoint``, ``TransformVertex``) and the Quake ``mathlib`` routines it uses
(``AngleMatrix``, ``AngleQuaternion``, ``QuaternionSlerp``, ``QuaternionMatrix``), working on the
independent decode of ``ms3d_reference``; it shares no code with the extension. All in MilkShape's
own (Y-up) space, in float64. Two deliberate differences from the C++:

* joints are evaluated parents first, whatever their order in the file (the viewer evaluates in file
  order and would use a parent's previous-frame matrix for a child listed before its parent);
* ``skin(..., normalize=True)`` divides by the sum of the valid weights, as Blender's Armature
  modifier does; the viewer does not, which only matters when a weight goes to joint -1 (the
  valid weights then sum to less than 100 %, e.g. one vertex of glscene/Woman4.ms3d at 99 %).
"""
from __future__ import annotations

import numpy as np

from .ms3d_reference import RefMs3d

# MilkShape's Y-up space to Blender's Z-up (the importer's default axes: forward -Z, up Y)
Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def angle_matrix(angles) -> np.ndarray:
    """Quake ``AngleMatrix``: (roll, pitch, yaw) = angles[0..2], matrix = (Z · Y) · X."""
    sr, sp, sy = np.sin(angles[0]), np.sin(angles[1]), np.sin(angles[2])
    cr, cp, cy = np.cos(angles[0]), np.cos(angles[1]), np.cos(angles[2])
    return np.array([[cp * cy, sr * sp * cy + cr * -sy, cr * sp * cy + -sr * -sy],
                     [cp * sy, sr * sp * sy + cr * cy, cr * sp * sy + -sr * cy],
                     [-sp, sr * cp, cr * cp]])


def angle_quaternion(angles) -> np.ndarray:
    """Quake ``AngleQuaternion``: (x, y, z, w)."""
    sy, cy = np.sin(angles[2] * 0.5), np.cos(angles[2] * 0.5)
    sp, cp = np.sin(angles[1] * 0.5), np.cos(angles[1] * 0.5)
    sr, cr = np.sin(angles[0] * 0.5), np.cos(angles[0] * 0.5)
    return np.array([sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy, cr * cp * cy + sr * sp * sy])


def quaternion_slerp(p: np.ndarray, q: np.ndarray, t: float) -> np.ndarray:
    q = q.copy()
    if np.sum((p - q) ** 2) > np.sum((p + q) ** 2):
        q = -q
    cosom = float(np.dot(p, q))
    if 1.0 + cosom > 1e-8:
        if 1.0 - cosom > 1e-8:
            omega = np.arccos(cosom)
            sinom = np.sin(omega)
            sclp, sclq = np.sin((1.0 - t) * omega) / sinom, np.sin(t * omega) / sinom
        else:
            sclp, sclq = 1.0 - t, t
        return sclp * p + sclq * q
    qt = np.array([-p[1], p[0], -p[3], p[2]])
    sclp, sclq = np.sin((1.0 - t) * 0.5 * np.pi), np.sin(t * 0.5 * np.pi)
    out = qt.copy()
    out[:3] = sclp * p[:3] + sclq * qt[:3]
    return out


def quaternion_matrix(q: np.ndarray) -> np.ndarray:
    x, y, z, w = q
    return np.array([[1 - 2 * y * y - 2 * z * z, 2 * x * y - 2 * w * z, 2 * x * z + 2 * w * y],
                     [2 * x * y + 2 * w * z, 1 - 2 * x * x - 2 * z * z, 2 * y * z - 2 * w * x],
                     [2 * x * z - 2 * w * y, 2 * y * z + 2 * w * x, 1 - 2 * x * x - 2 * y * y]])


def _affine(rotation: np.ndarray, position) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = rotation
    m[:3, 3] = position
    return m


def parent_indices(ref: RefMs3d) -> list[int]:
    """``FindJointByName`` on the name up to its NUL; -1 when not found (or the joint itself)."""
    names = [j["name"].split(b"\0", 1)[0] for j in ref.joints]
    parents = []
    for i, joint in enumerate(ref.joints):
        key = joint["parent"].split(b"\0", 1)[0]
        p = names.index(key) if key in names else -1
        parents.append(-1 if p == i else p)
    return parents


def _parents_first(parents: list[int]) -> list[int]:
    order, placed = [], set()
    while len(order) < len(parents):
        for i, p in enumerate(parents):
            if i not in placed and (p == -1 or p in placed):
                order.append(i)
                placed.add(i)
    return order


def rest_globals(ref: RefMs3d) -> np.ndarray:
    """``matGlobalSkeleton`` of every joint."""
    parents = parent_indices(ref)
    out = np.zeros((len(ref.joints), 4, 4))
    for i in _parents_first(parents):
        local = _affine(angle_matrix(ref.joints[i]["rotation"]), ref.joints[i]["position"])
        out[i] = local if parents[i] == -1 else out[parents[i]] @ local
    return out


def _tangents(keys: list) -> tuple[np.ndarray, np.ndarray]:
    n = len(keys)
    t_in, t_out = np.zeros((n, 3)), np.zeros((n, 3))
    if n > 2:
        for k in range(n):
            k0, k2 = (k - 1) % n, (k + 1) % n
            tangent = np.subtract(keys[k2][1:], keys[k0][1:])
            dt1, dt2 = keys[k][0] - keys[k0][0], keys[k2][0] - keys[k][0]
            dt = dt1 + dt2
            if dt != 0:
                t_in[k], t_out[k] = tangent * dt1 / dt, tangent * dt2 / dt
    return t_in, t_out


def _interval(times: list[float], frame: float) -> int | None:
    for i in range(len(times) - 1):
        if times[i] <= frame < times[i + 1]:
            return i
    return None


def _position(keys: list, fps: float, frame: float, linear: bool = False) -> np.ndarray:
    """MilkShape's Hermite curve, or (``linear``) straight lines between keys as engines play them."""
    if not keys:
        return np.zeros(3)
    times = [k[0] * fps for k in keys]
    i = _interval(times, frame)
    if i is None:
        return np.array(keys[0][1:] if frame < times[0] else keys[-1][1:], dtype=np.float64)
    if linear:
        t = (frame - times[i]) / (times[i + 1] - times[i])
        return (1 - t) * np.array(keys[i][1:]) + t * np.array(keys[i + 1][1:])
    t_in, t_out = _tangents([(tt, *k[1:]) for tt, k in zip(times, keys)])
    t = (frame - times[i]) / (times[i + 1] - times[i])
    h1, h2 = 2 * t ** 3 - 3 * t ** 2 + 1, -2 * t ** 3 + 3 * t ** 2
    h3, h4 = t ** 3 - 2 * t ** 2 + t, t ** 3 - t ** 2
    return (h1 * np.array(keys[i][1:]) + h3 * t_out[i] + h2 * np.array(keys[i + 1][1:]) + h4 * t_in[i + 1])


def _rotation(keys: list, fps: float, frame: float) -> np.ndarray:
    if not keys:
        return np.eye(3)
    times = [k[0] * fps for k in keys]
    i = _interval(times, frame)
    if i is None:
        return quaternion_matrix(angle_quaternion(keys[0][1:] if frame < times[0] else keys[-1][1:]))
    t = (frame - times[i]) / (times[i + 1] - times[i])
    return quaternion_matrix(quaternion_slerp(angle_quaternion(keys[i][1:]), angle_quaternion(keys[i + 1][1:]), t))


def animated_globals(ref: RefMs3d, fps: float, frame: float, linear: bool = False) -> np.ndarray:
    """``matGlobal`` of every joint at MilkShape frame ``frame`` (key time × fps); ``linear``: positions
    interpolated linearly instead of by Hermite curves."""
    parents = parent_indices(ref)
    out = np.zeros((len(ref.joints), 4, 4))
    for i in _parents_first(parents):
        joint = ref.joints[i]
        local = _affine(angle_matrix(joint["rotation"]), joint["position"])
        animate = _affine(_rotation(joint["rot_keys"], fps, frame), _position(joint["pos_keys"], fps, frame, linear))
        local = local @ animate
        out[i] = local if parents[i] == -1 else out[parents[i]] @ local
    return out


def joint_weights(ref: RefMs3d) -> tuple[np.ndarray, np.ndarray]:
    """``FillJointIndicesAndWeights`` and the valid-weight count of ``TransformVertex``: per vertex
    four joint indices and four weights (0 after the first invalid one); all-zero rows stay static."""
    count, njoints = len(ref.vertices), len(ref.joints)
    indices = np.full((count, 4), -1, dtype=np.int64)
    weights = np.zeros((count, 4))
    for v, (_, _, bone, _) in enumerate(ref.vertices):
        ids, w = [bone, -1, -1, -1], [100, 0, 0, 0]
        if ref.vertex_extras:
            bone_ids, raw, _ = ref.vertex_extras[v]
            ids = [bone, *bone_ids]
            if any(raw):
                w = [raw[0], raw[1], raw[2], 100 - sum(raw)]
        if not 0 <= bone < njoints:
            continue
        valid = 0
        while valid < 4 and w[valid] > 0 and 0 <= ids[valid] < njoints:
            valid += 1
        if valid == 0:
            indices[v, 0], weights[v, 0] = bone, 1.0
            continue
        indices[v, :valid] = ids[:valid]
        weights[v, :valid] = np.array(w[:valid]) / 100.0
    return indices, weights


def skin(ref: RefMs3d, fps: float, frame: float, normalize: bool = False, linear: bool = False) -> np.ndarray:
    """(V, 3) vertex positions at ``frame``: ``Σ w · matGlobal · matGlobalSkeleton⁻¹ · v``."""
    positions = np.array([v[1] for v in ref.vertices], dtype=np.float64).reshape(-1, 3)
    if not ref.joints:
        return positions
    moves = animated_globals(ref, fps, frame, linear) @ np.linalg.inv(rest_globals(ref))
    indices, weights = joint_weights(ref)
    if normalize:
        total = weights.sum(axis=1, keepdims=True)
        weights = np.divide(weights, total, out=weights.copy(), where=total > 0)
    homogeneous = np.column_stack([positions, np.ones(len(positions))])
    out = np.where((indices[:, :1] >= 0), 0.0, positions)
    for slot in range(4):
        used = indices[:, slot] >= 0
        moved = np.einsum("vij,vj->vi", moves[indices[used, slot]], homogeneous[used])[:, :3]
        out[used] += weights[used, slot, None] * moved
    return out
