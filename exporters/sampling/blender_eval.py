"""Blender's own F-curve and pose arithmetic in numpy, to the bit (bpy-free).

What Blender computes at a scene frame when an armature's pose depends on its action's F-curves
alone, operation for operation in the same precision (float32, and float64 where Blender's C code
uses ``double``), so that the pose matrices equal ``PoseBone.matrix`` after ``frame_set`` bit for bit
(checked by ``tests/ms3d/test_ms3d_curve_poses.py``). Followed from Blender's source
(``blenkernel/intern/fcurve.cc``, ``armature.cc``, ``blenlib/intern/math_matrix.cc``,
``math_rotation.cc``; the arithmetic is described in ``docs/dev/format-facts.md``, *MS3D export:
poses from F-curves*):

* F-curve at time t (keys sorted, constant extrapolation): at or before the first key its value,
  at or after the last the last; else a binary search that takes a key within 0.0001 frames as
  exact, then CONSTANT holds, LINEAR is ``change * time / duration + begin``, BEZIER solves the
  handles' cubic for the curve parameter in double (Cardano, cube roots as ``exp(log(x) / 3)``)
  and evaluates the value polynomial in float.
* Pose channel matrix: rotation (Euler in any order via doubles, or the quaternion normalised in
  float then expanded in doubles) times the scale, location in the last column unless the bone is
  connected; the bone's pose matrix is ``(parent pose · offset) · channel`` by Blender's SSE
  4x4 product (pairwise sums), the location column by ``mul_v3_m4v3`` (sums left to right).

Matrices here are in Blender's memory layout, ``M[column][row]``, as ``foreach_get("matrix")`` reads them.
"""
from __future__ import annotations

import numpy as np

F32 = np.float32
CONSTANT, LINEAR, BEZIER = 0, 1, 2
_THRESHOLD = F32(0.0001)
_EPS = F32(1e-8)
_FLT_EPSILON = F32(np.finfo(np.float32).eps)
_SMALL = F32(-1.0e-10)
_ONE_PLUS = F32(1.000001)
_THREE, _TWO = F32(3.0), F32(2.0)

# Blender's RotOrderInfo: axes i, j, k and parity per Euler order.
EULER_ORDERS = {"XYZ": ((0, 1, 2), False), "XZY": ((0, 2, 1), True), "YXZ": ((1, 0, 2), True),
                "YZX": ((1, 2, 0), False), "ZXY": ((2, 0, 1), False), "ZYX": ((2, 1, 0), True)}


def _is_eqt(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``IS_EQT(a, b, 0.0001)`` in float (``a - b`` and ``b - a`` round to opposite values, so |a - b|)."""
    return np.abs(a - b) <= _THRESHOLD


def _first_root(candidates: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The first float root in [SMALL, 1.000001] (``solve_cubic`` overwrites o[nr] until one fits)."""
    root = candidates[-1].copy()
    found = np.zeros(len(root), dtype=bool)
    for c in reversed(candidates):
        ok = (c >= _SMALL) & (c <= _ONE_PLUS)
        root = np.where(ok, c, root)
        found |= ok
    return root, found


def _cube_root(d: np.ndarray) -> np.ndarray:
    """``sqrt3d``: 0, or ±exp(log(|d|) / 3)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.exp(np.log(np.abs(d)) / 3.0)
    return np.where(d == 0.0, 0.0, np.where(d < 0.0, -r, r))


def _cubic(c0, c1, c2, c3) -> tuple[np.ndarray, np.ndarray]:
    """``solve_cubic`` where ``c3 != 0``: Cardano by the discriminant's sign."""
    a, b, c = c2 / c3, c1 / c3, c0 / c3
    a = a / 3
    p = b / 3 - a * a
    q = (2 * a * a * a - a * b + c) / 2
    d = q * q + p * p * p
    root = np.zeros(len(c0), dtype=F32)
    found = np.zeros(len(c0), dtype=bool)
    one = np.flatnonzero(d > 0.0)
    if len(one):
        t, qq, aa = np.sqrt(d[one]), q[one], a[one]
        r = (_cube_root(-qq + t) + _cube_root(-qq - t) - aa).astype(F32)
        root[one], found[one] = r, (r >= _SMALL) & (r <= _ONE_PLUS)
    two = np.flatnonzero(d == 0.0)
    if len(two):
        t, aa = _cube_root(-q[two]), a[two]
        root[two], found[two] = _first_root([(2 * t - aa).astype(F32), (-t - aa).astype(F32)])
    three = np.flatnonzero(d < 0.0)
    if len(three):
        pp, qq, aa = p[three], q[three], a[three]
        phi = np.arccos(-qq / np.sqrt(-(pp * pp * pp)))
        t = np.sqrt(-pp)
        pc = np.cos(phi / 3)
        qc = np.sqrt(3 - 3 * pc * pc)
        root[three], found[three] = _first_root([(2 * t * pc - aa).astype(F32), (-t * (pc + qc) - aa).astype(F32),
                                                 (-t * (pc - qc) - aa).astype(F32)])
    return root, found


def _solve_cubic(c0, c1, c2, c3) -> tuple[np.ndarray, np.ndarray]:
    """``solve_cubic`` (doubles in, the first float root in [SMALL, 1.000001] out, and whether there is one)."""
    root = np.zeros(len(c0), dtype=F32)
    found = np.zeros(len(c0), dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        cubic = np.flatnonzero(c3 != 0.0)
        if len(cubic):
            root[cubic], found[cubic] = _cubic(c0[cubic], c1[cubic], c2[cubic], c3[cubic])
        square = (c3 == 0.0) & (c2 != 0.0)
        if square.any():
            a = np.where(square, c2, 1.0)
            disc = c1 * c1 - 4 * a * c0
            sq = np.sqrt(np.where(disc > 0, disc, 0.0))
            two, two_found = _first_root([((-c1 - sq) / (2 * a)).astype(F32), ((-c1 + sq) / (2 * a)).astype(F32)])
            single = (-c1 / (2 * a)).astype(F32)
            single_found = (single >= _SMALL) & (single <= _ONE_PLUS)
            root = np.where(square, np.where(disc > 0, two, single), root)
            found = np.where(square, np.where(disc > 0, two_found, (disc == 0) & single_found), found)
        line = (c3 == 0.0) & (c2 == 0.0) & (c1 != 0.0)
        if line.any():
            r = (-c0 / np.where(line, c1, 1.0)).astype(F32)
            root = np.where(line, r, root)
            found = np.where(line, (r >= _SMALL) & (r <= _ONE_PLUS), found)
        flat = (c3 == 0.0) & (c2 == 0.0) & (c1 == 0.0)
        root = np.where(flat, F32(0.0), root)
        found = np.where(flat, c0 == 0.0, found)
    return root.astype(F32), found


def _bezier(t, v1, v2, v3, v4) -> np.ndarray:
    """One Bezier segment per time: the flat-handles shortcut, ``BKE_fcurve_correct_bezpart``,
    ``findzero`` and ``berekeny`` (0.0 where no root is found)."""
    value = v1[:, 1].copy()
    flat = ((np.abs(v1[:, 1] - v4[:, 1]) < _FLT_EPSILON) & (np.abs(v2[:, 1] - v3[:, 1]) < _FLT_EPSILON)
            & (np.abs(v3[:, 1] - v4[:, 1]) < _FLT_EPSILON))
    bent = np.flatnonzero(~flat)
    if not len(bent):
        return value
    t, v1, v2, v3, v4 = t[bent], v1[bent], v2[bent], v3[bent], v4[bent]
    h1, h2 = v1 - v2, v4 - v3
    span = v4[:, 0] - v1[:, 0]
    len1, len2 = np.abs(h1[:, 0]), np.abs(h2[:, 0])
    some = (len1 + len2) != F32(0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        v2 = np.where((some & (len1 > span))[:, None], v1 - (span / len1)[:, None] * h1, v2)
        v3 = np.where((some & (len2 > span))[:, None], v4 - (span / len2)[:, None] * h2, v3)
    q0, q1, q2, q3 = v1[:, 0], v2[:, 0], v3[:, 0], v4[:, 0]
    c0 = (q0 - t).astype(np.float64)
    c1 = (_THREE * (q1 - q0)).astype(np.float64)
    c2 = (_THREE * (q0 - _TWO * q1 + q2)).astype(np.float64)
    c3 = (q3 - q0 + _THREE * (q1 - q2)).astype(np.float64)
    u, found = _solve_cubic(c0, c1, c2, c3)
    f1, f2, f3, f4 = v1[:, 1], v2[:, 1], v3[:, 1], v4[:, 1]
    k1 = _THREE * (f2 - f1)
    k2 = _THREE * (f1 - _TWO * f2 + f3)
    k3 = f4 - f1 + _THREE * (f2 - f3)
    value[bent] = np.where(found, f1 + u * k1 + u * u * k2 + u * u * u * k3, F32(0.0))
    return value


def _segments(keys: np.ndarray, t: np.ndarray):
    """For one set of key times: which times lie before the first key, after the last, and for those
    inside the binary search's index, whether it lands on a key, and the segment's left key."""
    before = t <= keys[0]
    after = ~before & (keys[-1] <= t)
    inside = np.flatnonzero(~before & ~after)
    ti = t[inside]
    r = np.searchsorted(keys, ti, side="left")           # the first key not before t (float32 compares)
    below = np.maximum(r - 1, 0)
    on_right, on_left = _is_eqt(ti, keys[r]), _is_eqt(ti, keys[below])
    a = np.where(on_right, r, np.where(on_left, below, r))
    on_key = on_right | on_left | (np.abs(keys[a] - ti) < _EPS)
    return before, after, inside, a, on_key


def evaluate_curves(curves: list[tuple[np.ndarray, ...]], times: np.ndarray) -> np.ndarray | None:
    """float32 values (C, F) of C F-curves at ``times``, each curve ``(co, left, right, interpolation)``:
    keys and handles (K, 2) float32 sorted by time, interpolation codes (K,) among CONSTANT, LINEAR,
    BEZIER; constant extrapolation. None when a curve has keys closer than 0.0002 frames (Blender's
    binary search could then settle on either). Curves with the same key times share the search."""
    t = np.asarray(times, dtype=F32)
    out = np.empty((len(curves), len(t)), dtype=F32)
    groups: dict[bytes, list[int]] = {}
    for c, curve in enumerate(curves):
        groups.setdefault(np.ascontiguousarray(curve[0][:, 0]).tobytes(), []).append(c)
    for members in groups.values():
        keys = curves[members[0]][0][:, 0]
        if np.any(np.diff(keys) <= 2 * _THRESHOLD):
            return None
        before, after, inside, a, on_key = _segments(keys, t)
        rest = np.flatnonzero(~on_key)
        co = np.stack([curves[c][0] for c in members])                     # (G, K, 2)
        block = np.where(before, co[:, :1, 1], co[:, -1:, 1])
        block[:, inside] = co[:, a, 1]
        if len(rest):
            g = np.repeat(np.arange(len(members)), len(rest))
            k = len(keys)
            flat = [np.concatenate([curves[c][n] for c in members]) for n in range(4)]
            at, ti = np.tile(a[rest], len(members)) + g * k, np.tile(t[inside][rest], len(members))
            block[:, inside[rest]] = _between(*flat, ti, at, at - 1).reshape(len(members), -1)
        out[members] = block
    return out


def _between(co, left, right, codes, ti, a, prev) -> np.ndarray:
    """Values strictly between keys ``prev`` and ``a`` (not within 0.0001 frames of a key)."""
    keys = co[:, 0]
    begin, end_value = co[prev, 1], co[a, 1]
    duration = keys[a] - keys[prev]
    kind = codes[prev]
    held = (kind == CONSTANT) | (duration == F32(0.0))
    value = np.zeros(len(ti), dtype=F32)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(held, begin, value)
        value = np.where(~held & (kind == LINEAR), (end_value - begin) * (ti - keys[prev]) / duration + begin, value)
    curved = np.flatnonzero(~held & (kind == BEZIER))
    if len(curved):
        p, n = prev[curved], a[curved]
        value[curved] = _bezier(ti[curved], co[p], right[p], left[n], co[n])
    outside = (ti < keys[prev]) | (keys[a] < ti)
    return np.where(outside, F32(0.0), value)


def euler_matrices(angles: np.ndarray, order: str) -> np.ndarray:
    """``eulO_to_mat3``: (F, 3) float32 angles -> (F, 3, 3) float32, layout [column][row]."""
    (i, j, k), parity = EULER_ORDERS[order]
    e = np.asarray(angles, dtype=F32).astype(np.float64)
    ti, tj, th = (-e[:, i], -e[:, j], -e[:, k]) if parity else (e[:, i], e[:, j], e[:, k])
    cos, sin = np.cos(np.stack([ti, tj, th])), np.sin(np.stack([ti, tj, th]))
    (ci, cj, ch), (si, sj, sh) = cos, sin
    cc, cs, sc, ss = ci * ch, ci * sh, si * ch, si * sh
    m = np.empty((len(e), 3, 3))
    m[:, i, i] = cj * ch
    m[:, j, i] = sj * sc - cs
    m[:, k, i] = sj * cc + ss
    m[:, i, j] = cj * sh
    m[:, j, j] = sj * ss + cc
    m[:, k, j] = sj * cs - sc
    m[:, i, k] = -sj
    m[:, j, k] = cj * si
    m[:, k, k] = cj * ci
    return m.astype(F32)


def quaternion_matrices(quats: np.ndarray) -> np.ndarray:
    """``normalize_qt_qt`` then ``quat_to_mat3``: (F, 4) float32 w, x, y, z -> (F, 3, 3) float32."""
    q = np.asarray(quats, dtype=F32)
    length = np.sqrt(q[:, 0] * q[:, 0] + q[:, 1] * q[:, 1] + q[:, 2] * q[:, 2] + q[:, 3] * q[:, 3])
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = q * (F32(1.0) / length)[:, None]
    q = np.where((length != F32(0.0))[:, None], scaled, np.array([0, 1, 0, 0], dtype=F32))   # zero: (0, 1, 0, 0)
    q0, q1, q2, q3 = (np.sqrt(2.0) * q[:, n].astype(np.float64) for n in range(4))
    qda, qdb, qdc = q0 * q1, q0 * q2, q0 * q3
    qaa, qab, qac = q1 * q1, q1 * q2, q1 * q3
    qbb, qbc, qcc = q2 * q2, q2 * q3, q3 * q3
    m = np.empty((len(q), 3, 3))
    m[:, 0, 0], m[:, 0, 1], m[:, 0, 2] = 1.0 - qbb - qcc, qdc + qab, -qdb + qac
    m[:, 1, 0], m[:, 1, 1], m[:, 1, 2] = -qdc + qab, 1.0 - qaa - qcc, qda + qbc
    m[:, 2, 0], m[:, 2, 1], m[:, 2, 2] = qdb + qac, -qda + qbc, 1.0 - qaa - qbb
    return m.astype(F32)


def channel_matrices(rotation: np.ndarray, scale: np.ndarray, location: np.ndarray) -> np.ndarray:
    """``BKE_pchan_to_mat4``: rotation (..., 3, 3) times the scale (..., 3), location (..., 3) (zero
    for a connected bone) -> (..., 4, 4) float32."""
    s = np.asarray(scale, dtype=F32)
    zero = np.zeros(s.shape[:-1] + (1,), dtype=F32)
    out = np.zeros(rotation.shape[:-2] + (4, 4), dtype=F32)
    for col in range(3):             # mul_m3_m3m3(R, A = rotation, B = diag(scale)), sums left to right
        b = [s[..., n, None] if n == col else zero for n in range(3)]
        out[..., col, :3] = (b[0] * rotation[..., 0, :] + b[1] * rotation[..., 1, :]) + b[2] * rotation[..., 2, :]
    out[..., 3, :3] = location
    out[..., 3, 3] = F32(1.0)
    return out


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``mul_m4_m4m4`` (SSE): column i = (A0·B[i][0] + A1·B[i][1]) + (A2·B[i][2] + A3·B[i][3])."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.empty(shape, dtype=F32)
    for i in range(4):
        out[..., i, :] = ((b[..., i, 0, None] * a[..., 0, :] + b[..., i, 1, None] * a[..., 1, :])
                          + (b[..., i, 2, None] * a[..., 2, :] + b[..., i, 3, None] * a[..., 3, :]))
    return out


def bone_pose(rotscale: np.ndarray, channel: np.ndarray) -> np.ndarray:
    """``BKE_bone_parent_transform_apply`` with the default inheritance: ``rotscale · channel``, the
    location column ``mul_v3_m4v3(rotscale, channel location)``."""
    out = multiply(rotscale, channel)
    m, v = np.broadcast_to(rotscale, out.shape), channel[..., 3, :3]
    x, y, z = v[..., 0, None], v[..., 1, None], v[..., 2, None]
    out[..., 3, :3] = ((x * m[..., 0, :3] + y * m[..., 1, :3]) + m[..., 2, :3] * z) + m[..., 3, :3]
    return out


def offset_matrix(bone_matrix: np.ndarray, head: np.ndarray, parent_length: float) -> np.ndarray:
    """``BKE_bone_offset_matrix_get``: the bone's 3x3 rest matrix, its head, plus the parent's length on y."""
    out = np.zeros((4, 4), dtype=F32)
    out[:3, :3] = bone_matrix
    out[3, :3] = head
    out[3, 1] = F32(out[3, 1] + F32(parent_length))
    out[3, 3] = F32(1.0)
    return out
