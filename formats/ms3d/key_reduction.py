"""Fewest MS3D keys that keep MilkShape's playback of a sampled pose within a tolerance (bpy-free).

Input: per scene frame and joint, the key a joint would need there (local rotation as Euler 'XYZ'
and position, relative to the rest pose: ``L(t) = L · T(position) · R(rotation)``), the keys an
action already has (kept at their frames), each joint's reach and the skeleton. MilkShape plays
keys as :mod:`.rig` describes: rotations slerped, positions by Hermite curves (engines and the
format articles interpolate positions linearly; both rules are held to the tolerance). Before the
first key a channel holds the first key, after the last the last; no key = rest.

Mesh error from channel errors (exact telescoping of ``G = L_1 · ... · L_k``, all rigid): a vertex
moved by joint k strays by at most ``Σ_a (|Δp_a| + 2 sin(θ_a / 2) · R_a)`` over k's chain of
ancestors a, with ``Δp_a`` the position error, ``θ_a`` the rotation error angle and ``R_a`` the
largest distance from joint a to a posed point it carries (vertex or joint). Each animated channel
gets an equal share of the tolerance along its longest chain, and keys are added greedily (per
interval between keys, at its worst frame) until every channel is within its share.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from .rig import euler_quaternions, euler_xyz_from_matrices, hierarchy_order, nearest_euler, quaternion_rotations, slerp

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])


def rotation_at(key_frames: np.ndarray, key_angles: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """(F, 4) quaternions MilkShape shows at ``frames`` (slerp between keys, held outside them)."""
    frames = np.asarray(frames, dtype=np.float64)
    if not len(key_frames):
        return np.tile(IDENTITY, (len(frames), 1))
    quats = euler_quaternions(key_angles)
    left, right, t = _intervals(np.asarray(key_frames, dtype=np.float64), frames)
    return slerp(quats[left], quats[right], t)


def positions_at(key_frames: np.ndarray, key_values: np.ndarray, frames: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(F, 3) positions at ``frames`` by MilkShape's Hermite curves and by linear interpolation."""
    frames = np.asarray(frames, dtype=np.float64)
    if not len(key_frames):
        return np.zeros((len(frames), 3)), np.zeros((len(frames), 3))
    f, v = np.asarray(key_frames, dtype=np.float64), np.asarray(key_values, dtype=np.float64).reshape(-1, 3)
    left, right, t = _intervals(f, frames)
    t = t[:, None]
    linear = v[left] + (v[right] - v[left]) * t
    t_in, t_out = tangents(f, v)
    t2, t3 = t * t, t * t * t
    curve = ((2 * t3 - 3 * t2 + 1) * v[left] + (t3 - 2 * t2 + t) * t_out[left] + (3 * t2 - 2 * t3) * v[right]
             + (t3 - t2) * t_in[right])
    return np.where((left != right)[:, None], curve, v[left]), linear


def tangents(f: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`.rig.hermite_tangents` for (K, d) values, every column at once."""
    t_in, t_out = np.zeros_like(v), np.zeros_like(v)
    if len(f) > 2:
        prev, nxt = np.arange(-1, len(f) - 1), np.arange(1, len(f) + 1) % len(f)
        dt1, dt2 = f - f[prev], f[nxt] - f
        dt = dt1 + dt2
        ok = dt != 0
        tangent = v[nxt] - v[prev]
        t_in[ok] = tangent[ok] * (dt1[ok] / dt[ok])[:, None]
        t_out[ok] = tangent[ok] * (dt2[ok] / dt[ok])[:, None]
    return t_in, t_out


def _intervals(key_frames: np.ndarray, frames: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per frame: the keys before and after it and the fraction between them (equal keys outside)."""
    right = np.searchsorted(key_frames, frames, side="right")
    left = np.clip(right - 1, 0, len(key_frames) - 1)
    right = np.minimum(right, len(key_frames) - 1)
    before = frames < key_frames[0]
    left[before] = 0
    right[before | (frames >= key_frames[-1])] = left[before | (frames >= key_frames[-1])]
    span = key_frames[right] - key_frames[left]
    t = np.divide(frames - key_frames[left], span, out=np.zeros(len(frames)), where=span > 0)
    return left, right, t


def continuous_euler(rotations: np.ndarray) -> np.ndarray:
    """(F, J, 3, 3) rotations per frame -> (F, J, 3) Euler 'XYZ' angles, each frame's nearest the previous."""
    angles = np.empty(rotations.shape[:2] + (3,))
    if len(rotations):
        angles[0] = euler_xyz_from_matrices(rotations[0])
    for f in range(1, len(rotations)):
        angles[f] = nearest_euler(rotations[f], angles[f - 1])
    return angles


def rotation_error(quats: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``2 sin(θ / 2)``: how far a rotation by the error moves a point at distance 1."""
    q = quats / np.linalg.norm(quats, axis=1, keepdims=True)
    sign = np.where(np.sum(q * targets, axis=1) < 0, -1.0, 1.0)[:, None]
    d = np.minimum(np.linalg.norm(q - sign * targets, axis=1), np.sqrt(2.0))   # |q - q'| = 2 sin(θ / 4)
    return 2.0 * d * np.sqrt(1.0 - d * d / 4.0)


def position_error(key_frames, key_values, frames, targets, linear: bool = True) -> np.ndarray:
    """The larger distance of the Hermite and (if ``linear``) the linear curve from ``targets``."""
    hermite, straight = positions_at(key_frames, key_values, frames)
    error = np.linalg.norm(hermite - targets, axis=1)
    return np.maximum(error, np.linalg.norm(straight - targets, axis=1)) if linear else error


@dataclass
class Channel:
    """One joint's rotation or position keys: frames (K,), values (K, 3); how many were added, and
    which keys were added or took a new value."""
    frames: np.ndarray
    values: np.ndarray
    added: int = 0
    changed: np.ndarray | None = None


def fit_channel(frames: np.ndarray, targets: np.ndarray, key_frames: np.ndarray, key_values: np.ndarray,
                error, budget: float) -> tuple[Channel, np.ndarray]:
    """Keys ``key_frames`` plus the fewest sampled ``frames`` (greedy, worst frame of each failing
    interval first) so that ``error(keys, frames)`` stays within ``budget``; a key already at a failing
    frame takes the sampled value. Returns the channel and its final error per frame."""
    kf = np.asarray(key_frames, dtype=np.float64)
    kv = np.asarray(key_values, dtype=np.float64).reshape(len(kf), np.shape(targets)[1])
    changed = np.zeros(len(kf), dtype=bool)
    added = 0
    while True:
        err = error(kf, kv)
        bad = np.flatnonzero(err > budget)
        if not len(bad):
            return Channel(kf, kv, added, changed), err
        interval = np.searchsorted(kf, frames[bad], side="right")
        order = np.lexsort((-err[bad], interval))
        first = np.concatenate([[True], interval[order][1:] != interval[order][:-1]])
        chosen = bad[order[first]]
        at_key = np.searchsorted(kf, frames[chosen])
        existing = (at_key < len(kf)) & (kf[np.minimum(at_key, max(len(kf) - 1, 0))] == frames[chosen]) \
            if len(kf) else np.zeros(len(chosen), dtype=bool)
        kv[at_key[existing]] = targets[chosen[existing]]
        changed[at_key[existing]] = True
        new = chosen[~existing] if not existing.any() else chosen[:0]     # corrected keys first
        kf = np.concatenate([kf, frames[new]])
        kv = np.concatenate([kv, targets[new]])
        changed = np.concatenate([changed, np.ones(len(new), dtype=bool)])
        order = np.argsort(kf, kind="stable")
        kf, kv, changed = kf[order], kv[order], changed[order]
        added += len(new)


def chain_counts(parents: list[int], animated: np.ndarray) -> np.ndarray:
    """Per joint, the most animated channels on any root-to-joint chain through it."""
    count = len(parents)
    down = np.zeros(count, dtype=np.int64)          # animated channels from the root down to j
    order = hierarchy_order(parents)
    for j in order:
        down[j] = animated[j] + (down[parents[j]] if parents[j] != -1 else 0)
    best = down.copy()                               # the most on a chain from the root through j
    for j in reversed(order):
        if parents[j] != -1:
            best[parents[j]] = max(best[parents[j]], best[j])
    return np.maximum(best, 1)


def joint_reach(origins: np.ndarray, parents: list[int], radii: np.ndarray) -> np.ndarray:
    """Per joint a, ``R_a = max over joints k below a (a included) and frames of |o_k - o_a| + r_k``:
    origins (F, J, 3) posed joint origins, radii (J,) the farthest vertex each joint moves."""
    count = len(parents)
    reach = np.asarray(radii, dtype=np.float64).copy()
    for k in range(count):
        a = parents[k]
        while a != -1:
            distance = float(np.linalg.norm(origins[:, k] - origins[:, a], axis=1).max()) if len(origins) else 0.0
            reach[a] = max(reach[a], distance + radii[k])
            a = parents[a]
    return reach


@dataclass
class Reduction:
    rotations: list[Channel]
    positions: list[Channel]
    bound: float            # the largest mesh deviation the keys leave, at most (model units)
    deviation: float | None = None   # the largest deviation measured by posing the mesh, if it was

    @property
    def largest(self) -> float:
        return self.bound if self.deviation is None else min(self.bound, self.deviation)

    @property
    def added(self) -> int:
        return sum(c.added for c in self.rotations + self.positions)

    @property
    def written(self) -> int:
        return sum(len(c.frames) for c in self.rotations + self.positions)


def reduce_keys(frames: np.ndarray, rotations: np.ndarray, positions: np.ndarray,
                rotation_keys: list[tuple[np.ndarray, np.ndarray] | None],
                position_keys: list[tuple[np.ndarray, np.ndarray] | None], parents: list[int], reach: np.ndarray,
                tolerance: float,
                linear: list[bool] | None = None, verify=None) -> Reduction:
    """Keys per joint so that MilkShape's playback stays within ``tolerance`` of the sampled pose.

    frames (F,); rotations (F, J, 3, 3) and positions (F, J, 3) the sampled keys; rotation_keys /
    position_keys per joint ``(frames, values)`` to keep (or None; rotations as Euler 'XYZ'); reach
    (J,) from :func:`joint_reach`; ``linear`` per joint whether positions must also hold when
    interpolated linearly (default: yes), false where the keys already are MilkShape's Hermite
    curves of the action (an untouched import). Added rotation keys get Euler angles continuous
    from frame to frame (:func:`continuous_euler`); kept ones their own.

    Each channel's share of the tolerance starts large; while the bound from the shares exceeds the
    tolerance, ``verify(reduction)`` (the posed mesh's real largest deviation, e.g.
    :func:`mesh_deviation`) decides: within it, done; else the shares halve, down to the equal share
    along the longest chain, where the bound alone guarantees the tolerance.
    """
    frames = np.asarray(frames, dtype=np.float64)
    count = len(parents)
    linear = [True] * count if linear is None else linear
    empty = (np.zeros(0), np.zeros((0, 3)))
    rot_keys = [k if k is not None else empty for k in rotation_keys]
    pos_keys = [k if k is not None else empty for k in position_keys]
    targets = euler_quaternions(euler_xyz_from_matrices(rotations.reshape(-1, 3, 3))).reshape(len(frames), count, 4)
    if len(frames):
        rot_active = np.abs(targets[..., 3]).min(axis=0) < 1 - 1e-12
        rot_active |= np.abs(np.sum(targets * targets[:1], axis=2)).min(axis=0) < 1 - 1e-12
        pos_active = (np.ptp(positions, axis=0).max(axis=1) > 1e-9) | (np.abs(positions).max(axis=(0, 2)) > 1e-9)
    else:
        rot_active = pos_active = np.zeros(count, dtype=bool)
    rot_active |= np.array([len(k[0]) > 0 for k in rot_keys], dtype=bool)
    pos_active |= np.array([len(k[0]) > 0 for k in pos_keys], dtype=bool)
    counts = chain_counts(parents, rot_active.astype(np.int64) + pos_active.astype(np.int64))
    key_quats = [euler_quaternions(angles) for _, angles in rot_keys]
    rot_first = batch_rotation_errors(frames, [k[0] for k in rot_keys], key_quats, targets)
    pos_first = batch_position_errors(frames, pos_keys, positions, linear)

    def fit(share: np.ndarray) -> Reduction:
        rotation_channels: list[tuple[Channel, np.ndarray | None, np.ndarray]] = []
        moved: list[Channel] = []
        rot_fine = rot_first.max(axis=0, initial=0.0) * reach <= share
        pos_fine = pos_first.max(axis=0, initial=0.0) <= share
        terms = rot_first * reach + pos_first
        for j in range(count):
            kept_frames, kept_angles = rot_keys[j]
            if rot_fine[j] or reach[j] <= 0:
                rotation_channels.append((Channel(kept_frames, kept_angles), None, kept_angles))
            else:
                error = lambda kf, kq, j=j: rotation_error(_slerped(kf, kq, frames), targets[:, j])
                channel, err = fit_channel(frames, targets[:, j], kept_frames, key_quats[j], error,
                                           share[j] / reach[j])
                own = np.isin(channel.frames, kept_frames) & ~cast(np.ndarray, channel.changed)   # fit_channel sets it
                values = np.zeros((len(channel.frames), 3))
                values[own] = kept_angles[np.searchsorted(kept_frames, channel.frames[own])]
                rotation_channels.append((channel, own, values))
                terms[:, j] = err * reach[j] + pos_first[:, j]
            if pos_fine[j]:
                moved.append(Channel(*pos_keys[j]))
                continue
            error = lambda kf, kv, j=j: position_error(kf, kv, frames, positions[:, j], linear[j])
            channel, err = fit_channel(frames, positions[:, j], *pos_keys[j], error, share[j])
            moved.append(channel)
            terms[:, j] += err - pos_first[:, j]
        needs = [j for j, (_, own, _) in enumerate(rotation_channels) if own is not None and not own.all()]
        angles = continuous_euler(rotations[:, needs]) if needs else None
        out = []
        for j, (channel, own, values) in enumerate(rotation_channels):
            if j in needs:
                assert own is not None and angles is not None     # (own is not None for j in needs)
                index = np.searchsorted(frames, channel.frames[~own])
                values[~own] = angles[index, needs.index(j)]
            out.append(Channel(channel.frames, values, channel.added))
        return Reduction(out, moved, chain_bound(terms, parents))

    scale = float(counts.max()) if verify is not None else 1.0
    while True:           # shares as large as the posed mesh allows; at scale 1 the bound holds
        reduction = fit(tolerance * np.minimum(scale / counts, 1.0))
        if reduction.bound <= tolerance or verify is None:
            return reduction
        reduction.deviation = verify(reduction)
        if reduction.deviation <= tolerance or scale <= 1.0:
            return reduction
        scale = max(scale / 2.0, 1.0)


def _slerped(key_frames: np.ndarray, key_quats: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """:func:`rotation_at` with keys given as quaternions."""
    if not len(key_frames):
        return np.tile(IDENTITY, (len(frames), 1))
    left, right, t = _intervals(key_frames, frames)
    return slerp(key_quats[left], key_quats[right], t)


def _segments(key_frames: list, frames: np.ndarray):
    """Every joint's keys in one array and, per (frame, joint), the keys before and after and the
    fraction between them (as :func:`_intervals`, for all joints at once). Joints without keys: -1."""
    counts = np.array([len(k) for k in key_frames], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat = np.concatenate([np.asarray(k, dtype=np.float64) for k in key_frames] + [np.zeros(0)])
    if not len(flat):
        empty = np.full((len(frames), len(counts)), -1)
        return flat, empty, empty, np.zeros(empty.shape), counts, starts
    low = min(flat.min(), frames.min())
    width = max(flat.max(), frames.max()) - low + 1.0
    offset = np.arange(len(counts)) * 2.0 * width - low
    shifted = flat + np.repeat(offset, counts)
    query = frames[:, None] + offset[None, :]
    right = np.searchsorted(shifted, query, side="right")
    first, last = starts[None, :], (starts + counts - 1)[None, :]
    outside = (query < shifted[np.minimum(first, len(flat) - 1)]) | (query >= shifted[np.clip(last, 0, len(flat) - 1)])
    left = np.clip(right - 1, first, np.maximum(last, first))
    right = np.where(outside, np.where(query < shifted[np.minimum(first, len(flat) - 1)], first, last), right)
    left = np.where(outside, right, left)
    none = (counts == 0)[None, :]
    left, right = np.where(none, -1, left), np.where(none, -1, right)
    span = flat[right] - flat[left]
    t = np.divide(frames[:, None] - flat[left], span, out=np.zeros(span.shape), where=(span > 0) & ~none)
    return flat, left, right, t, counts, starts


def batch_rotation_errors(frames: np.ndarray, key_frames: list, key_quats: list, targets: np.ndarray) -> np.ndarray:
    """(F, J) :func:`rotation_error` of every joint's slerped keys, all joints at once."""
    _, left, right, t, counts, _ = _segments(key_frames, frames)
    quats = np.concatenate(key_quats + [np.zeros((0, 4))])
    none = left < 0
    slerped = np.tile(IDENTITY, (left.size, 1))
    keyed = ~none.ravel()
    if keyed.any():
        slerped[keyed] = slerp(quats[left.ravel()[keyed]], quats[right.ravel()[keyed]], t.ravel()[keyed])
    return rotation_error(slerped, targets.reshape(-1, 4)).reshape(left.shape)


def batch_position_errors(frames: np.ndarray, keys: list, targets: np.ndarray, linear: list[bool]) -> np.ndarray:
    """(F, J) :func:`position_error` of every joint's keys, all joints at once."""
    flat, left, right, t, counts, starts = _segments([k[0] for k in keys], frames)
    values = np.concatenate([np.asarray(k[1], dtype=np.float64).reshape(-1, 3) for k in keys] + [np.zeros((0, 3))])
    index = np.arange(len(flat))
    owner = np.repeat(np.arange(len(counts)), counts)
    first, last = starts[owner], starts[owner] + counts[owner] - 1
    prev = np.where(index == first, last, index - 1)
    nxt = np.where(index == last, first, index + 1)
    dt1, dt2 = flat - flat[prev], flat[nxt] - flat
    dt = dt1 + dt2
    ok = (dt != 0) & (counts[owner] > 2)
    safe = np.where(ok, dt, 1.0)
    tangent = values[nxt] - values[prev]
    t_in = np.where(ok[:, None], tangent * (dt1 / safe)[:, None], 0.0)
    t_out = np.where(ok[:, None], tangent * (dt2 / safe)[:, None], 0.0)
    none = left < 0
    lf, rt = np.where(none, 0, left), np.where(none, 0, right)
    padded = np.vstack([values, np.zeros((1, 3))]) if not len(values) else values
    t_in = t_in if len(values) else np.zeros((1, 3))
    t_out = t_out if len(values) else np.zeros((1, 3))
    v0, v1, tt = padded[lf], padded[rt], t[..., None]
    t2, t3 = tt * tt, tt * tt * tt
    curve = ((2 * t3 - 3 * t2 + 1) * v0 + (t3 - 2 * t2 + tt) * t_out[lf] + (3 * t2 - 2 * t3) * v1
             + (t3 - t2) * t_in[rt])
    hermite = np.where(((lf != rt) & ~none)[..., None], curve, np.where(none[..., None], 0.0, v0))
    straight = np.where(none[..., None], 0.0, v0 + (v1 - v0) * tt)
    error = np.linalg.norm(hermite - targets, axis=2)
    both = np.maximum(error, np.linalg.norm(straight - targets, axis=2))
    return np.where(np.asarray(linear, dtype=bool)[None, :], both, error)


def chain_bound(terms: np.ndarray, parents: list[int]) -> float:
    """The largest sum of per-joint terms (F, J) along a chain from the root, over frames."""
    total = np.zeros_like(terms)
    for j in hierarchy_order(parents):
        total[:, j] = terms[:, j] + (total[:, parents[j]] if parents[j] != -1 else 0.0)
    return float(total.max()) if total.size else 0.0


def mesh_deviation(reduction: Reduction, frames: np.ndarray, rest_local: np.ndarray, parents: list[int],
                   sampled_globals: np.ndarray, xyz: np.ndarray, joints: np.ndarray, percent: np.ndarray,
                   linear: list[bool]) -> float:
    """The largest distance, over frames and vertices, between the mesh posed by MilkShape's rules
    from ``reduction`` (Hermite positions, and linear ones where ``linear``) and the mesh posed by
    ``sampled_globals`` (F, J, 4, 4); skin as (V, 4) joints and percentages (normalised)."""
    rest_global = np.empty_like(rest_local)
    for j in hierarchy_order(parents):
        rest_global[j] = rest_local[j] if parents[j] == -1 else rest_global[parents[j]] @ rest_local[j]
    inverse_rest = np.linalg.inv(rest_global)
    rotation = np.stack([quaternion_rotations(_slerped(c.frames, euler_quaternions(c.values), frames))
                         for c in reduction.rotations], axis=1)
    weights = np.where(joints >= 0, percent, 0).astype(np.float64)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.divide(weights, total, out=np.zeros_like(weights), where=total > 0)
    points = np.column_stack([np.asarray(xyz, dtype=np.float64), np.ones(len(xyz))])
    worst = 0.0
    hermite_linear = [positions_at(c.frames, c.values, frames) for c in reduction.positions]
    for rule in (0, 1):
        if rule == 1 and not any(linear):
            break
        local = np.zeros((len(frames), len(parents), 4, 4))
        local[..., :3, :3] = rotation
        local[..., :3, 3] = np.stack([p[rule] if (rule == 0 or linear[j]) else p[0]
                                      for j, p in enumerate(hermite_linear)], axis=1)
        local[..., 3, 3] = 1.0
        posed = np.empty_like(local)
        for j in hierarchy_order(parents):
            own = rest_local[j] @ local[:, j]
            posed[:, j] = own if parents[j] == -1 else posed[:, parents[j]] @ own
        moves = ((posed - sampled_globals) @ inverse_rest)[..., :3, :]           # (F, J, 3, 4)
        chunk = max(1, 200_000 // max(len(points), 1))
        for start in range(0, len(frames), chunk):
            error = np.zeros((min(chunk, len(frames) - start), len(points), 3))
            for slot in range(joints.shape[1]):
                used = weights[:, slot] > 0
                m = moves[start:start + chunk][:, joints[used, slot]]            # (f, v, 3, 4)
                error[:, used] += weights[used, slot, None] * np.einsum("fvij,vj->fvi", m, points[used])
            worst = max(worst, float(np.linalg.norm(error, axis=2).max(initial=0.0)))
    return worst

