"""MS3D key reduction (no Blender): MilkShape's interpolation against the tests' own transcription
(``ms3d_skinning``), the greedy fit keeping the given keys and adding the fewest, budgets along chains.
"""
from __future__ import annotations

import numpy as np
import pytest
from support import ms3d_skinning

from formats.ms3d.key_reduction import (
    batch_position_errors,
    batch_rotation_errors,
    chain_counts,
    fit_channel,
    joint_reach,
    mesh_deviation,
    position_error,
    positions_at,
    reduce_keys,
    rotation_at,
    rotation_error,
)
from formats.ms3d.rig import euler_quaternions

RNG = np.random.default_rng(15)


def _random_keys(count: int) -> tuple[np.ndarray, np.ndarray]:
    frames = np.sort(RNG.choice(np.arange(1, 60), size=count, replace=False)).astype(np.float64)
    return frames, RNG.uniform(-2.0, 2.0, size=(count, 3))


@pytest.mark.parametrize("count", [1, 2, 5])
def test_interpolation_matches_milkshape_transcription(count):
    frames, values = _random_keys(count)
    keys = [(f, *v) for f, v in zip(frames, values)]        # fps 1: key time = frame
    probe = np.linspace(-3.0, 65.0, 137)
    hermite, linear = positions_at(frames, values, probe)
    for k, frame in enumerate(probe):
        np.testing.assert_allclose(hermite[k], ms3d_skinning._position(keys, 1.0, frame), atol=1e-12)
        np.testing.assert_allclose(linear[k], ms3d_skinning._position(keys, 1.0, frame, linear=True), atol=1e-12)
        q = rotation_at(frames, values, probe[k:k + 1])[0]
        np.testing.assert_allclose(ms3d_skinning.quaternion_matrix(q / np.linalg.norm(q)),
                                   ms3d_skinning._rotation(keys, 1.0, frame), atol=1e-12)


def test_no_keys_is_the_rest_pose():
    probe = np.arange(5.0)
    np.testing.assert_array_equal(positions_at(np.zeros(0), np.zeros((0, 3)), probe)[0], np.zeros((5, 3)))
    np.testing.assert_array_equal(rotation_at(np.zeros(0), np.zeros((0, 3)), probe), np.tile([0, 0, 0, 1.0], (5, 1)))


def test_rotation_error_is_the_chord_a_unit_point_moves():
    angle = 0.3
    q_rot = np.array([[0.0, 0.0, np.sin(angle / 2), np.cos(angle / 2)]])
    moved = ms3d_skinning.quaternion_matrix(q_rot[0]) @ [1.0, 0.0, 0.0]
    expected = np.linalg.norm(moved - [1.0, 0.0, 0.0])
    np.testing.assert_allclose(rotation_error(q_rot, np.array([[0.0, 0.0, 0.0, 1.0]])), [expected], rtol=1e-12)


def _z_quaternions(angles: np.ndarray) -> np.ndarray:
    return np.column_stack([np.zeros((len(angles), 2)), np.sin(angles / 2), np.cos(angles / 2)])


def test_fit_adds_exactly_the_corners_of_a_piecewise_uniform_turn():
    """A turn about one axis whose speed changes at frames 10, 25 and 31: slerp between keys is uniform,
    so the fewest keys are the ends and those three corners, which the greedy fit finds."""
    frames = np.arange(0.0, 41.0)
    corners = [0.0, 10.0, 25.0, 31.0, 40.0]
    angles = np.interp(frames, corners, [0.0, 0.8, 0.2, 1.1, 0.9])
    targets = _z_quaternions(angles)
    kept = np.array([0.0, 40.0])
    error = lambda kf, kq: rotation_error(_slerp(kf, kq, frames), targets)
    channel, err = fit_channel(frames, targets, kept, targets[[0, 40]], error, 1e-9)
    assert channel.frames.tolist() == corners
    assert channel.added == 3
    assert err.max() <= 1e-9


def _slerp(kf, kq, frames):
    from formats.ms3d.key_reduction import _slerped
    return _slerped(kf, kq, frames)


def test_fit_keeps_the_given_keys_and_their_values():
    frames = np.arange(1.0, 31.0)
    targets = np.column_stack([np.sin(frames / 5), np.cos(frames / 7), frames / 30])
    kept_frames = np.array([1.0, 12.5, 30.0])              # one between sampled frames
    kept_values = np.array([targets[0], [0.3, 0.2, 0.1], targets[-1]])
    error = lambda kf, kv: position_error(kf, kv, frames, targets)
    channel, err = fit_channel(frames, targets, kept_frames, kept_values, error, 1e-3)
    index = np.searchsorted(channel.frames, kept_frames)
    np.testing.assert_array_equal(channel.frames[index], kept_frames)
    np.testing.assert_array_equal(channel.values[index], kept_values)
    assert channel.added == len(channel.frames) - 3 > 0
    assert err.max() <= 1e-3
    np.testing.assert_allclose(err, position_error(channel.frames, channel.values, frames, targets))


def test_a_key_that_strays_takes_the_sampled_value():
    frames = np.arange(0.0, 5.0)
    targets = np.tile([1.0, 2.0, 3.0], (5, 1))
    error = lambda kf, kv: position_error(kf, kv, frames, targets)
    channel, _ = fit_channel(frames, targets, np.array([2.0]), np.array([[0.0, 0.0, 0.0]]), error, 1e-6)
    assert channel.frames.tolist() == [2.0] and channel.values.tolist() == [[1.0, 2.0, 3.0]]
    assert channel.added == 0 and channel.changed.tolist() == [True]


def test_constant_channels_get_one_key_and_rest_channels_none():
    frames = np.arange(1.0, 11.0)
    count = 2
    rotations = np.tile(np.eye(3), (len(frames), count, 1, 1))
    c, s = np.cos(0.4), np.sin(0.4)
    rotations[:, 1] = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]     # held turn, never keyed
    positions = np.zeros((len(frames), count, 3))
    positions[:, 0] = [0.5, 0.0, 0.0]                                  # held offset
    result = reduce_keys(frames, rotations, positions, [None, None], [None, None], [-1, 0], np.array([2.0, 1.0]),
                         1e-3)
    assert [len(c.frames) for c in result.rotations] == [0, 1]
    assert [len(c.frames) for c in result.positions] == [1, 0]
    np.testing.assert_allclose(result.rotations[1].values, [[0.0, 0.0, 0.4]], atol=1e-12)
    np.testing.assert_allclose(result.positions[0].values, [[0.5, 0.0, 0.0]])
    assert result.added == 2 and result.written == 2 and result.bound < 1e-12


def test_chain_counts_and_reach():
    parents = [-1, 0, 1, 0]
    assert chain_counts(parents, np.array([2, 1, 2, 0])).tolist() == [5, 5, 5, 2]
    origins = np.array([[[0, 0, 0], [1, 0, 0], [1, 2, 0], [0, 0, 3]],
                        [[0, 0, 0], [0, 1, 0], [0, 1, 1], [0, 0, 3]]], dtype=np.float64)
    radii = np.array([0.5, 0.25, 1.0, 0.0])
    expected_root = max(0.5, 1 + 0.25, np.sqrt(5) + 1.0, 3.0)
    np.testing.assert_allclose(joint_reach(origins, parents, radii), [expected_root, 3.0, 1.0, 0.0])


def test_reduced_chain_stays_within_the_tolerance_when_posed():
    """Two joints turning and sliding with eased motion: the reduced keys, played back by the tests'
    transcription of MilkShape (both position rules), keep points at the reach within the tolerance."""
    frames = np.arange(1.0, 49.0)
    s = (1 - np.cos(np.pi * (frames - 1) / 47)) / 2                    # ease in and out
    turn = np.column_stack([0.3 * s, np.zeros_like(s), 1.2 * s])
    bend = np.column_stack([np.zeros_like(s), 0.8 * np.sin(3 * s), np.zeros_like(s)])
    rotations = np.stack([[ms3d_skinning.angle_matrix(a) for a in turn], [ms3d_skinning.angle_matrix(a) for a in bend]],
                         axis=1)
    positions = np.zeros((len(frames), 2, 3))
    positions[:, 0, 0] = 2.0 * s
    rest = [np.eye(4), np.eye(4)]
    rest[1][:3, 3] = [0.0, 3.0, 0.0]
    tip = np.array([0.0, 2.0, 0.0, 1.0])                               # a point joint 1 carries
    origins = np.zeros((len(frames), 2, 3))
    sampled = np.zeros((len(frames), 2, 4, 4))
    expected = []
    for f in range(len(frames)):
        g0 = _affine(rotations[f, 0], positions[f, 0])
        g1 = g0 @ rest[1] @ _affine(rotations[f, 1], np.zeros(3))
        origins[f] = [g0[:3, 3], g1[:3, 3]]
        sampled[f] = [g0, g1]
        expected.append((g1 @ tip)[:3])
    reach = joint_reach(origins, [-1, 0], np.array([0.0, 2.0]))
    tolerance = 0.01
    result = reduce_keys(frames, rotations, positions, [(np.array([1.0, 48.0]), turn[[0, -1]]), None],
                         [None, None], [-1, 0], reach, tolerance)
    assert result.bound <= tolerance
    assert result.written < 4 * len(frames)
    worst = 0.0
    for linear in (False, True):
        for f, frame in enumerate(frames):
            r0 = ms3d_skinning._rotation([(k, *v) for k, v in zip(result.rotations[0].frames, result.rotations[0].values)],
                                         1.0, frame)
            r1 = ms3d_skinning._rotation([(k, *v) for k, v in zip(result.rotations[1].frames, result.rotations[1].values)],
                                         1.0, frame)
            p0 = ms3d_skinning._position([(k, *v) for k, v in zip(result.positions[0].frames, result.positions[0].values)],
                                         1.0, frame, linear)
            g1 = _affine(r0, p0) @ rest[1] @ _affine(r1, np.zeros(3))
            assert np.linalg.norm((g1 @ tip)[:3] - expected[f]) <= tolerance
            worst = max(worst, float(np.linalg.norm((g1 @ tip)[:3] - expected[f])))
    measured = mesh_deviation(result, frames, np.stack(rest), [-1, 0], sampled, (rest[1] @ tip)[None, :3],
                              np.array([[1, -1, -1, -1]]), np.array([[100, 0, 0, 0]]), [True, True])
    assert measured == pytest.approx(worst, abs=1e-12) and 0 < worst <= result.bound


def _affine(rotation, position):
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rotation, position
    return m


def test_all_joints_at_once_equals_one_at_a_time():
    frames = np.arange(-2.0, 70.0)
    keys = [_random_keys(n) for n in (0, 1, 2, 3, 7)]
    keys[4] = (keys[4][0] + 0.25, keys[4][1])                   # keys between sampled frames
    targets = RNG.normal(size=(len(frames), len(keys), 3))
    linear = [True, False, True, False, True]
    batch = batch_position_errors(frames, keys, targets, linear)
    for j, (kf, kv) in enumerate(keys):
        np.testing.assert_allclose(batch[:, j], position_error(kf, kv, frames, targets[:, j], linear[j]), atol=1e-12)
    quats = RNG.normal(size=(len(frames), len(keys), 4))
    quats /= np.linalg.norm(quats, axis=2, keepdims=True)
    batch = batch_rotation_errors(frames, [k[0] for k in keys], [euler_quaternions(k[1]) for k in keys], quats)
    for j, (kf, kv) in enumerate(keys):
        np.testing.assert_allclose(batch[:, j], rotation_error(rotation_at(kf, kv, frames), quats[:, j]), atol=1e-12)
