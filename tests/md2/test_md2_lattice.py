"""The shared MD2 lattice (no Blender): bounds, 0-255, half a step, still vertices decode identically."""
from __future__ import annotations

import numpy as np
import pytest

from formats.md2.codec import Md2Model, parse_md2, serialize_md2
from formats.md2.lattice import AUTO_TOLERANCE, frame_grids, lattice_step, shared_lattice


def engine_decode(verts, scale, translate) -> np.ndarray:
    """``byte * scale + translate`` as an engine computes it: float32 multiply, then float32 add."""
    product = np.multiply(np.float32(verts), np.float32(scale)[:, None, :], dtype=np.float32)
    return np.add(product, np.float32(translate)[:, None, :], dtype=np.float32)


def random_frames(rng, frames=40, verts=60, still=12):
    """Random frames: the first ``still`` vertices identical in every frame, the others moving,
    at a random offset from the origin and a random size per frame."""
    centre = rng.uniform(-500, 500, 3)
    size = rng.uniform(1, 80, 3)
    base = centre + rng.uniform(-1, 1, (verts, 3)) * size
    pos = np.repeat(base[None], frames, axis=0)
    motion = rng.normal(0, 1, (frames, verts - still, 3)) * size * rng.uniform(0.05, 1.5)
    pos[:, still:] += motion
    return pos.astype(rng.choice([np.float32, np.float64]))


def half_step_bound(pos, scale, translate) -> np.ndarray:
    """Half a step plus the float32 rounding of the decoded coordinate."""
    magnitude = np.abs(np.asarray(pos, np.float64)).max() + 255 * float(np.abs(scale).max())
    return np.float64(scale)[:, None, :] / 2 + np.float64(np.spacing(np.float32(magnitude)))


@pytest.mark.parametrize("seed", range(25))
def test_shared_lattice_on_random_frames(seed):
    rng = np.random.default_rng(seed)
    pos = random_frames(rng)
    scale, translate, verts = shared_lattice(pos)
    assert verts.dtype == np.uint8 and verts.shape == pos.shape
    assert np.all(scale == scale[0]), "one step per axis for every frame"
    extent = (pos.max(axis=1) - pos.min(axis=1)).astype(np.float64).max(axis=0)
    magnitude = np.abs(pos).astype(np.float64).max(axis=(0, 1))
    bits = np.minimum(16, 24 - np.ceil(np.log2(magnitude / (extent / 254) + 2)))
    assert np.all(scale[0] >= extent / 254) and np.all(scale[0] <= extent / 254 * (1 + 2.0 ** (1 - bits)))
    assert np.array_equal(np.float64(translate) / np.float64(scale), np.rint(np.float64(translate) / np.float64(scale)))
    decoded = engine_decode(verts, scale, translate)
    error = np.abs(decoded.astype(np.float64) - pos)
    assert np.all(error <= half_step_bound(pos, scale, translate))
    lo, hi = decoded.min(axis=1), decoded.max(axis=1)
    assert np.all(lo >= pos.min(axis=1) - scale / 2 - 1e-3) and np.all(hi <= pos.max(axis=1) + scale / 2 + 1e-3)
    still = decoded[:, :12]
    assert np.array_equal(still, np.broadcast_to(still[0], still.shape)), "still vertices must not swim"


@pytest.mark.parametrize("seed", range(10))
def test_same_position_in_different_frames_decodes_identically(seed):
    """Not only still vertices: any vertex at a position another frame also has."""
    rng = np.random.default_rng(100 + seed)
    pos = random_frames(rng, still=0)
    f, g = rng.choice(len(pos), 2, replace=False)
    pos[g, 5] = pos[f, 17]
    scale, translate, verts = shared_lattice(pos)
    decoded = engine_decode(verts, scale, translate)
    assert np.array_equal(decoded[g, 5], decoded[f, 17])
    assert np.array_equal(decoded, engine_decode(*parse_round_trip(scale, translate, verts)))


def parse_round_trip(scale, translate, verts):
    """Through the file: the float32 fields survive serialisation unchanged."""
    frames, count = verts.shape[:2]
    model = Md2Model(skin_width=8, skin_height=8, skins=[], st=np.zeros((1, 2), np.int16),
                     tri_xyz=np.array([[0, 1, 2]], np.uint16), tri_st=np.zeros((1, 3), np.uint16),
                     frame_names=[f"f{i}" for i in range(frames)], frame_scale=scale, frame_translate=translate,
                     frame_verts=verts, frame_normals=np.zeros((frames, count), np.uint8))
    back = parse_md2(serialize_md2(model))
    return back.frame_verts, back.frame_scale, back.frame_translate


def test_frames_using_the_whole_extent_fill_0_to_255_exactly():
    rng = np.random.default_rng(7)
    pos = rng.uniform(0, 1, (3, 50, 3)) * [10.0, 20.0, 30.0] + [3.0, -7.0, 100.0]
    pos[:, 0], pos[:, 1] = pos.min(axis=1), pos.max(axis=1)
    scale, translate, verts = shared_lattice(pos)
    span = verts.max(axis=1).astype(int) - verts.min(axis=1)
    widest = (pos.max(axis=1) - pos.min(axis=1)).argmax(axis=0)
    assert np.all(span <= 255) and np.all(span[widest, [0, 1, 2]] >= 253)


def test_step_has_few_significant_bits_far_from_the_origin():
    step = lattice_step(1.0, 1e3)
    mantissa, exponent = np.frexp(step)
    bits = 24 - int(np.ceil(np.log2(1e3 / (1 / 254) + 2)))
    assert bits == 6 and 1 / 254 <= step <= 1 / 254 * (1 + 2.0 ** (1 - bits))
    assert float(mantissa * 2 ** bits).is_integer()
    assert 1 / 254 <= lattice_step(1.0, 1.0) <= 1 / 254 * (1 + 2.0 ** -15), "near the origin: 16 bits"
    assert lattice_step(0.0, 5.0) == 0.0
    assert lattice_step(1e-6, 1e9) is None, "no float32 lattice holds a micrometre at a billion units"


def test_flat_axis_and_single_frame():
    pos = np.zeros((4, 6, 3))
    pos[..., 0] = np.arange(6)
    pos[..., 2] = np.arange(4)[:, None] * 2.5       # each frame flat in z, at a different height
    scale, translate, verts = shared_lattice(pos)
    assert np.all(scale[:, 2] == 0) and np.array_equal(translate[:, 2], np.float32(pos[:, 0, 2]))
    np.testing.assert_array_equal(engine_decode(verts, scale, translate)[..., 2], pos[..., 2])
    scale, translate, verts = shared_lattice(pos[1:2])
    error = np.abs(engine_decode(verts, scale, translate) - pos[1:2])
    assert np.all(error <= half_step_bound(pos[1:2], scale, translate))
    assert scale[0, 0] >= 5 / 254 and verts[0, :, 0].max() >= 253


def test_auto_prefers_shared_and_falls_back_when_frames_differ_in_size():
    rng = np.random.default_rng(3)
    cloud = rng.uniform(-1, 1, (200, 3))
    similar = np.stack([cloud * [10, 10, 60] + [0, 0, i * 0.1] for i in range(6)])
    grids = frame_grids(similar, "AUTO")
    assert grids.mode == "SHARED"
    standing, lying = cloud * [10, 10, 60], cloud * [60, 10, 10]
    crouch = np.stack([standing, lying] * 3)
    shared, per_frame = frame_grids(crouch, "SHARED"), frame_grids(crouch, "PER_FRAME")
    assert shared.max_error > AUTO_TOLERANCE * per_frame.max_error
    auto = frame_grids(crouch, "AUTO")
    assert auto.mode == "PER_FRAME" and auto.max_error == per_frame.max_error
    for grid in (shared, per_frame, auto):
        error = np.linalg.norm(engine_decode(grid.verts, grid.scale, grid.translate) - crouch, axis=-1)
        assert grid.max_error == pytest.approx(error.max(), rel=1e-6)


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="grid mode"):
        frame_grids(np.zeros((1, 3, 3)), "SOMETIMES")


def test_unchanged_normals_keep_their_index():
    """A normal at the boundary between two table entries, wobbling by float noise from frame to
    frame, keeps one index; a normal that really turns gets the entry nearest to it."""
    from formats.anorms import anorms, nearest_normal_index, steady_normal_indices
    table = anorms().astype(np.float64)

    def between(s):
        n = table[0] * (1 - s) + table[1] * s
        return n / np.linalg.norm(n)
    def nearest(s):                       # in the same array shape as below (float32 sums may depend on it)
        return nearest_normal_index(np.broadcast_to(between(s), (30, 2, 3)))[0, 0]
    lo, hi = 0.0, 1.0                     # bisect to where the nearest entry flips from 0 to 1
    assert (nearest(lo), nearest(hi)) == (0, 1)
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if nearest(mid) == 0 else (lo, mid)
    wobble = np.array([between(lo), between(hi)])[np.arange(30) % 2]
    assert np.abs(wobble[0] - wobble[1]).max() < 1e-7
    frames = np.stack([wobble, np.repeat(table[None, 5], 30, axis=0)], axis=1)
    frames[20:, 1] = table[9]
    assert set(nearest_normal_index(frames)[:, 0]) == {0, 1}, "the noise flips the plain nearest index"
    steady = steady_normal_indices(frames)
    assert np.all(steady[:, 0] == 0)
    assert np.all(steady[:20, 1] == 5) and np.all(steady[20:, 1] == 9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_per_frame_mode_is_each_frames_grid_from_its_bounds(dtype):
    from formats.quantize import quantize_frames
    pos = random_frames(np.random.default_rng(21)).astype(dtype)
    grids = frame_grids(pos, "PER_FRAME")
    for mine, today in zip((grids.scale, grids.translate, grids.verts), quantize_frames(pos)):
        np.testing.assert_array_equal(mine, today)
