"""The faster edited export (issue 33) gives today's output: the nearest anorm, vertex normals and the MD2
check of which frames keep their imported grid, bit for bit against copies of the previous code
(tests/support/speed_reference.py) on the corpus MD2s (as imported, scaled, turned and squashed) and on
random meshes; and the work the previous code did that the new one avoids (these fail on it): comparing
every normal with all 162 entries, requantising whole frames that are plainly off their grid, comparing
most normals with any entry at all, working out a shared lattice over every vertex when a few show it losing;
and the grid choice (mode, error, bytes) against the previous frame_grids."""
from __future__ import annotations

from importlib import import_module
from pathlib import Path

import numpy as np
import pytest

from exporters.sampling.vertex_normals import grouped_normals, polygon_corners
import formats.anorms as anorms_module
from formats.anorms import anorms, nearest_normal_index, steady_normal_indices
from formats.errors import FormatError
from formats.md2.codec import parse_md2
from support import speed_reference as reference
from support.work_count import measure

MD2_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md2"
CORPUS = sorted(MD2_DIR.glob("*/*.md2"))
EDITS = {"as imported": np.eye(3), "scaled": 1.1 * np.eye(3),
         "turned and squashed": np.array([[0.9, -0.4, 0.1], [0.4, 0.8, 0.0], [0.0, 0.2, 0.6]])}


def corpus_models():
    if not CORPUS:
        pytest.skip(f"corpus not found at {MD2_DIR}")
    models = []
    for path in CORPUS:
        try:
            models.append((path, parse_md2(path.read_bytes())))
        except FormatError:
            continue                    # the corpus's malformed files: no frames to compare
    return models


def triangle_corners(triangles: np.ndarray):
    triangles = np.asarray(triangles, dtype=np.int64)
    return polygon_corners(triangles.ravel(), np.arange(len(triangles)) * 3, np.full(len(triangles), 3))


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


# ---- nearest anorm ----------------------------------------------------------------------------------------------

def awkward_normals(rng) -> np.ndarray:
    """Directions where the lookup could slip: the table itself (scaled), midpoints of every pair of entries
    (ties), cube-face edges and corners, tiny, huge, zero and non-finite vectors, then random ones."""
    table = anorms().astype(np.float64)
    mids = ((table[:, None] + table[None]) / 2.0).reshape(-1, 3)
    signs = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
    edges = np.concatenate([signs * [1, 1, t] for t in (0.0, 0.3, 1.0, 1 - 1e-7)] +
                           [signs * [1, t, 1 + 1e-7] for t in (0.5, 0.999999)])
    special = np.array([[0, 0, 0], [np.nan, 1, 0], [np.inf, 0, 0], [-np.inf, 1, 1], [1e30, 1e30, 0],
                        [1e-30, 0, 0], [3e-39, 1e-39, 0], [1, 0, 0], [0, -1, 0], [0, 0, 1]])
    noise = rng.normal(size=(200_000, 3)) * rng.uniform(1e-3, 1e3, size=(200_000, 1))
    lines = np.linspace(-1.0, 1.0, anorms_module._CELLS + 1).astype(np.float32)   # the cube map's cell edges
    on_lines = np.stack(np.meshgrid(lines, np.nextafter(lines, 2), rng.choice([-1, 1], 1)), -1).reshape(-1, 3)
    on_lines = np.concatenate([np.roll(on_lines, k, axis=1) for k in range(3)])
    return np.concatenate([table, 3 * table, mids, edges, special, noise, on_lines]).astype(np.float32)


def test_nearest_index_is_the_whole_tables_argmax():
    normals = awkward_normals(np.random.default_rng(33))
    np.testing.assert_array_equal(nearest_normal_index(normals), reference.nearest_normal_index(normals))
    shaped = normals[:60_000].reshape(20, 3000, 3)
    np.testing.assert_array_equal(nearest_normal_index(shaped), reference.nearest_normal_index(shaped))


def test_nearest_index_does_not_compare_every_normal_with_the_whole_table():
    normals = np.random.default_rng(1).normal(size=(1 << 16, 3)).astype(np.float32)
    nearest_normal_index(normals[:8])                     # the cube map is built once, outside the count
    whole_table = len(normals) * len(anorms()) * 4        # one float32 dot per entry and normal
    assert measure(nearest_normal_index, normals).peak < whole_table / 2


def test_most_normals_are_not_compared_with_any_entry(monkeypatch):
    """Where the cube map's cell lists one candidate, it is the nearest entry by a margin far beyond
    float32 rounding: no dot product. Random directions: about two thirds."""
    seen = []
    original = anorms_module._best_candidate
    monkeypatch.setattr(anorms_module, "_best_candidate",
                        lambda x, y, z, c: seen.append(len(x)) or original(x, y, z, c))
    normals = np.random.default_rng(3).normal(size=(1 << 16, 3)).astype(np.float32)
    np.testing.assert_array_equal(nearest_normal_index(normals), reference.nearest_normal_index(normals))
    assert 0 < sum(seen) < len(normals) / 2


def test_steady_indices_are_todays():
    """Vertices whose normal stays within the tolerance for a run of frames keep the run's first index, even
    as the normal drifts across an entry's boundary over many small steps; a frame can keep every index or
    none."""
    rng = np.random.default_rng(7)
    frames, vertices = 60, 500
    steps = rng.normal(size=(frames, vertices, 3)) * np.where(rng.random((frames, vertices, 1)) < 0.7, 3e-7, 0.05)
    steps[10] = 0.0
    steps[20] = 0.3
    normals = np.cumsum(steps, axis=0) + rng.normal(size=(1, vertices, 3))
    np.testing.assert_array_equal(steady_normal_indices(normals), reference.steady_normal_indices(normals))
    one = normals[:1]
    np.testing.assert_array_equal(steady_normal_indices(one), reference.steady_normal_indices(one))
    moving = rng.normal(size=(8, 50, 3))                  # no vertex keeps its normal: nothing carried over
    np.testing.assert_array_equal(steady_normal_indices(moving), reference.steady_normal_indices(moving))


# ---- vertex normals ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("edit", sorted(EDITS))
def test_vertex_normals_of_corpus_models_bit_for_bit(edit):
    for path, model in corpus_models():
        positions = model.positions().astype(np.float64) @ EDITS[edit].T
        corners = triangle_corners(model.tri_xyz[:, ::-1])
        new = grouped_normals(positions, corners)
        assert same_bits(new, reference.grouped_normals(positions, corners)), path.name
        np.testing.assert_array_equal(nearest_normal_index(new), reference.nearest_normal_index(new),
                                      err_msg=path.name)


@pytest.mark.parametrize("seed", range(4))
def test_vertex_normals_of_random_meshes_bit_for_bit(seed):
    """Random triangles over few vertices (shared edges, both windings), with triangles that repeat a
    vertex, collinear ones and vertices no triangle uses; frames crossing chunk boundaries; and per-copy
    groups (Split Normals)."""
    rng = np.random.default_rng(seed)
    num_vertices, num_tris, frames = 40, 120, 70
    tris = np.array([rng.choice(num_vertices - 3, 3, replace=False) for _ in range(num_tris)])
    tris[:5, 2] = tris[:5, 1]                                   # a repeated vertex
    positions = rng.normal(size=(frames, num_vertices, 3)) * 10.0
    positions[:, tris[5, 2]] = (positions[:, tris[5, 0]] + positions[:, tris[5, 1]]) / 2.0   # collinear
    positions[3] = positions[3, :1]                             # a frame collapsed to one point
    corners = triangle_corners(tris)
    for groups, count in ((None, None), (np.arange(num_tris * 3) % 50, 50)):
        new = grouped_normals(positions, corners, groups, count)
        assert same_bits(new, reference.grouped_normals(positions, corners, groups, count))


def test_meshes_with_quads_keep_the_polygon_path():
    rng = np.random.default_rng(5)
    positions = rng.normal(size=(6, 8, 3))
    corners = polygon_corners(np.array([0, 1, 2, 3, 4, 5, 6, 2, 6, 7]), np.array([0, 4, 7]), np.array([4, 3, 3]))
    assert same_bits(grouped_normals(positions, corners), reference.grouped_normals(positions, corners))


# ---- which MD2 frames keep their imported grid ------------------------------------------------------------------

def stored_frames(build, model):
    return build._StoredFrames(model.frame_scale, model.frame_translate, model.frame_verts, model.frame_normals,
                               [b""] * len(model.frame_names))


def quantize_cases(model):
    """(positions, match) pairs: as imported, edited, one vertex nudged in some frames (the first look at a
    few vertices can miss it), a frame moved by one grid step (on its grid, new bytes), frames reordered
    and new ones mixed in."""
    from formats.quantize import dequantize
    positions = model.positions()
    count = len(positions)
    every = np.arange(count)
    nudged = positions.copy()
    nudged[::3, len(positions[0]) // 2 + 1] += 1e-3
    stepped = positions.copy()
    stepped[0] = dequantize(np.minimum(model.frame_verts[0].astype(np.int64) + 1, 255), model.frame_scale[0],
                            model.frame_translate[0])
    mixed = np.where(every % 4 == 1, -1, every[::-1])
    return [(positions, every), (positions * np.float32(1.1), every), (nudged, every), (stepped, every),
            (positions[::-1].copy(), mixed)]


def test_kept_frames_and_grids_are_todays(extension):
    build = import_module(f"{extension}.exporters.md2.build")
    for path, model in corpus_models():
        stored = stored_frames(build, model)
        for positions, match in quantize_cases(model):
            for grid in ("AUTO", "PER_FRAME"):
                new = build._quantize(positions, match, stored, grid)
                old = reference.md2_quantize(positions, match, stored, grid)
                for got, want in zip(new[:5], old[:5]):
                    assert same_bits(np.asarray(got), np.asarray(want)), path.name
                assert (new[5] is None) == (old[5] is None), path.name
                if new[5] is not None:
                    assert (new[5].mode, new[5].max_error) == (old[5].mode, old[5].max_error), path.name
                    assert same_bits(new[5].verts, old[5].verts), path.name


def test_edited_frames_are_not_requantised_whole_on_their_old_grid(extension, monkeypatch):
    build = import_module(f"{extension}.exporters.md2.build")
    path, model = max(corpus_models(), key=lambda item: item[1].frame_verts.size)
    seen = []
    original = build.quantize
    monkeypatch.setattr(build, "quantize", lambda p, *a: seen.append(np.shape(p)[-2]) or original(p, *a))
    _, _, _, _, kept, grids = build._quantize(model.positions() * np.float32(1.1), np.arange(len(model.frame_names)),
                                              stored_frames(build, model))
    assert not kept.any() and grids is not None
    assert seen and max(seen) < model.frame_verts.shape[1] / 4, path.name


# ---- the grid choice -----------------------------------------------------------------------------------------------

def grid_cases(model):
    """Positions whose best grid differs: as imported and scaled (each frame on a grid of its own: per-frame
    fits), turned and squashed, jittered (the shared lattice close to per-frame), one still vertex among
    moving ones, a far outlier in one vertex (only it breaks the shared lattice), a huge offset (no float32
    lattice)."""
    rng = np.random.default_rng(12)
    positions = model.positions().astype(np.float64)
    jitter = positions + rng.normal(scale=0.3, size=positions.shape)
    outlier = jitter.copy()
    outlier[len(outlier) // 2, len(outlier[0]) // 3] += 400.0
    return [positions, positions * np.float32(1.1), positions @ EDITS["turned and squashed"].T, jitter, outlier,
            jitter + 3e6]


@pytest.mark.parametrize("mode", ["AUTO", "SHARED", "PER_FRAME"])
def test_grid_choice_and_error_are_todays(mode):
    from formats.md2.lattice import frame_grids
    for path, model in corpus_models()[:6]:
        for positions in grid_cases(model):
            new, old = frame_grids(positions, mode), reference.md2_frame_grids(positions, mode)
            assert (new.mode, new.max_error) == (old.mode, old.max_error), path.name
            for got, want in ((new.scale, old.scale), (new.translate, old.translate), (new.verts, old.verts)):
                assert same_bits(np.ascontiguousarray(got), np.ascontiguousarray(want)), path.name


def test_a_plainly_worse_lattice_is_not_worked_out_over_every_vertex(monkeypatch):
    import formats.md2.lattice as lattice
    path, model = max(corpus_models(), key=lambda item: item[1].frame_verts.size)
    seen = []
    original = lattice._shared
    monkeypatch.setattr(lattice, "_shared", lambda comp, *a: seen.append(comp.shape[2]) or original(comp, *a))
    grids = lattice.frame_grids(model.positions().astype(np.float64) * np.float32(1.1), "AUTO")
    assert grids.mode == "PER_FRAME" and seen
    assert max(seen) < model.frame_verts.shape[1], path.name
