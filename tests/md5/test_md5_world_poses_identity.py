"""World joint poses placed a level of the hierarchy at a time (formats/md5/skinning.py ``world_poses``) are,
bit for bit, those of the joint-by-joint walk the import and export used before (kept below as the
reference), on the corpus anims and on made-up hierarchies: deep chains, wide fans, several roots, zero
and unnormalised quaternions, one frame or many; and a list not in parents-first order (the readers
refuse it) is still walked in order."""
from __future__ import annotations

import numpy as np
import pytest
from support.environment import corpus_params
from support.work_count import measure

from formats.md5.anim import read_md5anim
from formats.md5.skinning import local_poses, quat_multiply, quat_normalize, quat_rotate, quat_w, world_poses


def walked(parents, local_pos, local_quat):
    """The previous ``world_poses``: one joint after the other."""
    pos = np.array(local_pos, np.float64)
    quat = np.array(local_quat, np.float64)
    for joint, parent in enumerate(np.asarray(parents).tolist()):
        if parent < 0:
            continue
        pos[..., joint, :] = quat_rotate(quat[..., parent, :], local_pos[..., joint, :]) + pos[..., parent, :]
        quat[..., joint, :] = quat_normalize(quat_multiply(quat[..., parent, :], local_quat[..., joint, :]))
    return pos, quat


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def hierarchy(kind: str, rng) -> np.ndarray:
    if kind == "chain":
        return np.arange(-1, 39)
    if kind == "fan":
        return np.array([-1] + [0] * 30)
    if kind == "forest":
        return np.array([-1, 0, 1, -1, 3, 3, 0, 6, 4, 8, -1, 10, 2, 12])
    parents = np.array([-1] + [int(rng.integers(0, j)) for j in range(1, 60)])
    return parents


@pytest.mark.parametrize("kind", ["chain", "fan", "forest", "random"])
@pytest.mark.parametrize("frames", [None, 1, 17])
def test_levels_give_the_walk_s_bits(kind, frames):
    rng = np.random.default_rng(len(kind) * 7 + (frames or 0))
    parents = hierarchy(kind, rng)
    shape = (len(parents),) if frames is None else (frames, len(parents))
    pos = rng.normal(scale=20.0, size=shape + (3,))
    quat = quat_w(rng.uniform(-0.7, 0.7, size=shape + (3,)))
    quat[..., 2, :] = 0.0                                  # a zero quaternion stays zero
    quat[..., 3, :] *= 1.5                                 # not a unit quaternion
    for got, expected in zip(world_poses(parents, pos, quat), walked(parents, pos, quat)):
        assert same_bits(got, expected)


def test_a_list_not_parents_first_is_walked_in_order():
    rng = np.random.default_rng(3)
    parents = np.array([-1, 2, 0, 1, 5, 0])
    pos, quat = rng.normal(size=(4, 6, 3)), quat_w(rng.uniform(-0.5, 0.5, size=(4, 6, 3)))
    for got, expected in zip(world_poses(parents, pos, quat), walked(parents, pos, quat)):
        assert same_bits(got, expected)


@pytest.mark.parametrize("path", corpus_params("md5/*/data/actors/*/*.md5anim"))
def test_corpus_anims(path):
    anim = read_md5anim(path.read_bytes())
    pos, quat = local_poses(anim)
    for got, expected in zip(world_poses(anim.joint_parents, pos, quat), walked(anim.joint_parents, pos, quat)):
        assert same_bits(got, expected)


def test_the_work_grows_with_the_levels_not_the_joints():
    """A rig of 30 bones under one root costs as many calls as one of 3 (a level at a time); the walk made
    a dozen calls a joint, so a 40-joint rig took as much again as it has joints."""
    rng = np.random.default_rng(9)

    def calls(parents):
        pos, quat = rng.normal(size=(8, len(parents), 3)), quat_w(rng.uniform(-0.5, 0.5, size=(8, len(parents), 3)))
        return measure(world_poses, parents, pos, quat, memory=False).calls
    small, wide = calls(np.array([-1, 0, 0, 0])), calls(np.array([-1] + [0] * 30))
    assert wide <= small + 40, (small, wide)           # the depth pass is a loop of plain Python per joint
    deep = calls(np.array([-1, 0, 1, 2] + [0] * 36))
    assert deep < 3 * small + 40, (small, deep)
