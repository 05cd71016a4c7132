"""The faster edited export (issue 33): the nearest anorm is the whole table's argmax (the definition, written
out here) and the steady indices follow the frame-to-frame rule (written out here), on awkward and random
normals; and the work the previous code did that the new one avoids (these fail on it): comparing every normal
with all 162 entries, requantising whole frames that are plainly off their grid, comparing most normals with any
entry at all, working out a shared lattice over every vertex when a few show it losing. That the vertex normals,
the kept frames and the grid choice write the same bytes as before is checked on demand against any base commit
by tests/export/test_edited_export_files_identity.py (tools/edited_identity.py); their values are proven by
tests/export/test_vertex_normals.py, tests/export/test_normals_blender.py and tests/md2/test_md2_lattice.py."""
from __future__ import annotations

from importlib import import_module
from pathlib import Path

import numpy as np
import pytest
from support.work_count import measure

import formats.anorms as anorms_module
from formats.anorms import anorms, nearest_normal_index, steady_normal_indices
from formats.errors import FormatError
from formats.md2.codec import parse_md2

MD2_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "md2"
CORPUS = sorted(MD2_DIR.glob("*/*.md2"))


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


def whole_table_argmax(normals: np.ndarray) -> np.ndarray:
    """The definition of a normal's index: the entry of the 162 with the largest dot product (float32)."""
    flat = np.asarray(normals, dtype=np.float32).reshape(-1, 3)
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.concatenate([np.argmax(flat[start:start + (1 << 16)] @ anorms().T, axis=1)
                              for start in range(0, len(flat), 1 << 16)] or [np.zeros(0, np.int64)])
    return out.astype(np.uint8).reshape(np.shape(normals)[:-1])


def steady_rule(normals: np.ndarray, tolerance: float = 1e-6) -> np.ndarray:
    """The steady indices' rule, frame by frame: a vertex whose normal moved by at most ``tolerance`` in every
    component since the previous frame keeps that frame's index, else it gets its nearest entry."""
    normals = np.asarray(normals, dtype=np.float32)
    out = whole_table_argmax(normals)
    for f in range(1, len(out)):
        same = np.all(np.abs(normals[f] - normals[f - 1]) <= tolerance, axis=-1)
        out[f] = np.where(same, out[f - 1], out[f])
    return out


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
    np.testing.assert_array_equal(nearest_normal_index(normals), whole_table_argmax(normals))
    shaped = normals[:60_000].reshape(20, 3000, 3)
    np.testing.assert_array_equal(nearest_normal_index(shaped), whole_table_argmax(shaped))


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
    np.testing.assert_array_equal(nearest_normal_index(normals), whole_table_argmax(normals))
    assert 0 < sum(seen) < len(normals) / 2


def test_steady_indices_follow_the_frame_to_frame_rule():
    """Vertices whose normal stays within the tolerance for a run of frames keep the run's first index, even
    as the normal drifts across an entry's boundary over many small steps; a frame can keep every index or
    none."""
    rng = np.random.default_rng(7)
    frames, vertices = 60, 500
    steps = rng.normal(size=(frames, vertices, 3)) * np.where(rng.random((frames, vertices, 1)) < 0.7, 3e-7, 0.05)
    steps[10] = 0.0
    steps[20] = 0.3
    normals = np.cumsum(steps, axis=0) + rng.normal(size=(1, vertices, 3))
    np.testing.assert_array_equal(steady_normal_indices(normals), steady_rule(normals))
    one = normals[:1]
    np.testing.assert_array_equal(steady_normal_indices(one), steady_rule(one))
    moving = rng.normal(size=(8, 50, 3))                  # no vertex keeps its normal: nothing carried over
    np.testing.assert_array_equal(steady_normal_indices(moving), steady_rule(moving))


def test_steady_check_at_its_tolerance_and_with_nan():
    """Changes of exactly the tolerance (as float32), one float32 step either side, on one component or all
    three, and NaN normals: the indices of the rule written out (np.all over the components)."""
    rng = np.random.default_rng(46)
    tolerance = np.float32(1e-6)
    steps = np.array([0.0, tolerance, np.nextafter(tolerance, np.float32(1)), np.nextafter(tolerance, np.float32(0)),
                      -tolerance, 2e-6, 0.3], dtype=np.float32)
    vertices = 400
    start = rng.normal(size=(vertices, 3)).astype(np.float32)
    frames = [start]
    for _ in range(30):
        change = steps[rng.integers(0, len(steps), (vertices, 1))] * (rng.random((vertices, 3)) < 0.5)
        frames.append((frames[-1] + change).astype(np.float32))
    normals = np.array(frames)
    normals[5, :7] = np.nan
    normals[9, 3, 1] = np.nan
    assert np.array_equal(steady_normal_indices(normals), steady_rule(normals))


# ---- which MD2 frames keep their imported grid ------------------------------------------------------------------

def stored_frames(build, model):
    return build._StoredFrames(model.frame_scale, model.frame_translate, model.frame_verts, model.frame_normals,
                               [b""] * len(model.frame_names))


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

def test_a_plainly_worse_lattice_is_not_worked_out_over_every_vertex(monkeypatch):
    import formats.md2.lattice as lattice
    path, model = max(corpus_models(), key=lambda item: item[1].frame_verts.size)
    seen = []
    original = lattice._shared
    monkeypatch.setattr(lattice, "_shared", lambda comp, *a: seen.append(comp.shape[2]) or original(comp, *a))
    grids = lattice.frame_grids(model.positions().astype(np.float64) * np.float32(1.1), "AUTO")
    assert grids.mode == "PER_FRAME" and seen
    assert max(seen) < model.frame_verts.shape[1], path.name
