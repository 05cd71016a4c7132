"""The vertex normals of a mesh of triangles (exporters/sampling/triangle_normals.py, issue 33) are the general
per-corner path's (vertex_normals: polygon normals, corner angles, a bincount sum by group; proven against
Blender's algorithm in tests/export/test_vertex_normals.py and against Blender in test_normals_blender.py) bit
for bit, in float32 and in float64 before rounding, on meshes chosen to break a rewrite: slivers down to
collinear corners (cosines at +-1, where the clip and arccos matter), degenerate triangles, axis-aligned edges
(products and sums that are exactly zero, of either sign), normals that cancel, a fan of 60 triangles, corners
numbered out of triangle order, tiny and huge coordinates, per-corner groups and empty groups, and frame counts
around the chunk size. The bincount test fails on the old code (the work the new code avoids). Also the anorm
cube map's candidate lists (now built in one sort) against the per-row lists."""
from __future__ import annotations

import numpy as np
import pytest

import exporters.sampling.triangle_normals as triangle_normals
import formats.anorms as anorms_module
from exporters.sampling import vertex_normals
from exporters.sampling.vertex_normals import _triangle_corners, custom_coefficients, grouped_normals, polygon_corners


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8), b.view(np.uint8))


def corners_of(tris: np.ndarray, shuffle: np.random.Generator | None = None):
    """Blender corners for triangles; with ``shuffle``, polygons start at shuffled loop positions and each
    triangle's corners are rotated, so corner numbers are not the triangles' order."""
    tris = np.asarray(tris, dtype=np.int64)
    if shuffle is None:
        return polygon_corners(tris.ravel(), np.arange(len(tris)) * 3, np.full(len(tris), 3))
    slot = shuffle.permutation(len(tris))
    rotated = np.array([np.roll(t, k) for t, k in zip(tris, shuffle.integers(0, 3, len(tris)))])
    corner_vertex = np.empty(len(tris) * 3, np.int64)
    for t, s in enumerate(slot):
        corner_vertex[s * 3:s * 3 + 3] = rotated[t]
    return polygon_corners(corner_vertex, slot * 3, np.full(len(tris), 3))


def check(positions, corners, groups=None, count=None):
    """The float32 normals against the general path's, and the float64 ones before that rounding (where a
    different order of the same additions would show: one float64 step seldom moves a float32 rounding)."""
    pos = np.asarray(positions, dtype=np.float64)
    new = grouped_normals(positions, corners, groups, count)
    if groups is None:
        groups, count = corners.corner_vertex, pos.shape[1]
    if not len(pos):                                          # no frames: nothing to sum
        assert same_bits(new, np.zeros((0, count, 3), np.float32))
        return new
    assert same_bits(new, vertex_normals._chunk(pos, corners, np.asarray(groups, np.int64), count).astype(np.float32))
    wide = np.empty((len(pos), count, 3))
    angles = np.full((len(pos), len(corners.corner_vertex)), np.nan)
    triangle_normals.triangle_vertex_normals(pos, corners.corner_vertex, _triangle_corners(corners),
                                             np.asarray(groups, np.int64), count, wide, angles)
    assert same_bits(angles, np.ascontiguousarray(vertex_normals.corner_angles(pos, corners)))
    weighted = (vertex_normals.polygon_normals(pos, corners)[:, corners.corner_polygon]
                * vertex_normals.corner_angles(pos, corners)[..., None])
    assert same_bits(wide, vertex_normals._sum_by(weighted, np.asarray(groups, np.int64), count))
    return new


def grid_mesh(n: int):
    """An n x n grid of squares cut into triangles both ways round, in the plane z = 0."""
    i, j = np.meshgrid(np.arange(n), np.arange(n))
    a = (j * (n + 1) + i).ravel()
    b, c, d = a + 1, a + n + 2, a + n + 1
    flip = (i + j).ravel() % 2 == 1
    first = np.where(flip[:, None], np.column_stack([a, b, d]), np.column_stack([a, b, c]))
    second = np.where(flip[:, None], np.column_stack([b, c, d]), np.column_stack([a, c, d]))
    xy = np.stack(np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0)), -1).reshape(-1, 2)
    return np.column_stack([xy, np.zeros(len(xy))]), np.concatenate([first, second])


def test_slivers_down_to_collinear_corners():
    """A triangle's third corner a small distance off its opposite edge's midpoint, from 1 down to 1e-15 and
    0 (collinear): corner angles near pi and 0, cosines rounding past +-1."""
    offsets = np.concatenate([10.0 ** -np.arange(0, 16), [0.0, 1e-300]])
    rng = np.random.default_rng(41)
    frames = []
    for _ in range(19):
        direction = rng.normal(size=3)
        side = np.cross(direction, rng.normal(size=3))
        a, b = rng.normal(size=3) * 5, rng.normal(size=3) * 5
        frame = [np.stack([a, b, (a + b) / 2 + o * side / np.linalg.norm(side)]) for o in offsets]
        frames.append(np.concatenate(frame))
    positions = np.array(frames)
    tris = np.arange(len(offsets) * 3).reshape(-1, 3)
    tris = np.concatenate([tris, tris[:, ::-1] + 0, tris[:, [1, 2, 0]]])      # both windings, shared vertices
    normals = check(positions, corners_of(tris))
    assert np.isfinite(normals).all()


def test_degenerate_triangles_and_unused_vertices():
    rng = np.random.default_rng(42)
    positions = rng.normal(size=(21, 12, 3))
    positions[:, 5] = positions[:, 4]                         # two vertices always at one point
    positions[7] = 0.0                                        # a frame collapsed to the origin
    tris = np.array([[0, 1, 2], [2, 1, 3], [4, 5, 6], [4, 4, 7], [8, 8, 8], [6, 7, 1], [3, 2, 0]])
    check(positions, corners_of(tris))                        # vertices 9-11 in no triangle: +Z


def test_axis_aligned_edges_give_exact_zeros():
    """A flat integer grid (every product off the normal's axis exactly zero, of both signs) and the same
    grid folded along a line, turned by quarter turns."""
    flat, tris = grid_mesh(6)
    folded = flat.copy()
    folded[:, 2] = np.abs(folded[:, 0] - 3.0)
    quarter = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    frames = [flat, folded, flat @ quarter.T, folded @ quarter.T, folded[:, [2, 0, 1]], -flat]
    check(np.array(frames), corners_of(tris))
    check(np.array(frames), corners_of(tris[:, ::-1]))


def test_cancelling_normals_fall_back_to_plus_z():
    """A vertex whose two triangles face opposite ways (the sum is zero), and one where only x cancels."""
    positions = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, 0, 1.0]]] * 3)
    positions[1, 4] = [0.0, 0.5, 2.0]
    positions[2] *= 1e-3
    tris = np.array([[0, 1, 2], [0, 2, 1], [0, 3, 4], [0, 4, 1]])
    normals = check(positions, corners_of(tris))
    assert np.array_equal(normals[0, 2], [0.0, 0.0, 1.0])


def test_a_vertex_in_sixty_triangles():
    rng = np.random.default_rng(43)
    count = 60
    angle = np.sort(rng.uniform(0, 2 * np.pi, count))
    rim = np.column_stack([np.cos(angle), np.sin(angle), rng.normal(scale=0.3, size=count)])
    positions = np.concatenate([np.zeros((1, 3)), rim])[None] + rng.normal(scale=0.01, size=(37, count + 1, 3))
    tris = np.column_stack([np.zeros(count, np.int64), 1 + np.arange(count), 1 + (np.arange(count) + 1) % count])
    check(positions, corners_of(tris))


@pytest.mark.parametrize("seed", range(3))
def test_corners_out_of_triangle_order(seed):
    """bincount adds a vertex's corners in corner order: polygons start at shuffled loop positions and their
    corners are rotated, so that order is not the triangles'."""
    rng = np.random.default_rng(100 + seed)
    positions, tris = grid_mesh(7)
    positions = positions[None] + rng.normal(scale=0.4, size=(23, len(positions), 3))
    check(positions, corners_of(tris, rng))
    check(positions, corners_of(tris[:, ::-1], rng))


@pytest.mark.parametrize("scale", [1e-150, 1e-30, 1e30, 1e150])
def test_tiny_and_huge_coordinates(scale):
    """Lengths whose squares underflow to zero (the clamp and the fallback) or that are far from 1."""
    rng = np.random.default_rng(44)
    positions, tris = grid_mesh(4)
    positions = (positions[None] + rng.normal(scale=0.3, size=(5, len(positions), 3))) * scale
    with np.errstate(over="ignore", under="ignore"):
        check(positions, corners_of(tris))


def test_per_corner_groups_and_empty_groups():
    """More groups than triangles (each corner its own, as Split Normals can make), some groups empty."""
    rng = np.random.default_rng(45)
    positions, tris = grid_mesh(3)
    positions = positions[None] + rng.normal(scale=0.2, size=(4, len(positions), 3))
    corners = corners_of(tris, rng)
    count = len(tris) * 3 + 5
    check(positions, corners, rng.permutation(count)[:len(tris) * 3], count)


@pytest.mark.parametrize("sharing", ["corner", "vertex", "mixed"])
@pytest.mark.parametrize("split", [False, True])
def test_custom_normals_on_every_corner_as_the_general_path(split, sharing):
    """A mesh of triangles with a custom normal on every corner (what an MD3 import leaves) takes its
    automatic normals and corner angles from triangle_normals and decodes each distinct (vertex, custom
    normal) once: the same bits as the general per-corner path (vertex_normals._chunk), over frames that
    bend, squash and flip the mesh, per vertex and per corner group (Split Normals), with a normal of its
    own on every corner, one per vertex (an MD3 import) or a mix; a custom array assigned again is
    decoded again."""
    rng = np.random.default_rng(52)
    positions, tris = grid_mesh(4)
    positions[:, 2] = rng.normal(scale=0.3, size=len(positions))
    corners = corners_of(tris, rng)
    automatic = grouped_normals(positions[None], corners)[0]
    lean = rng.uniform(-0.4, 0.4, (len(positions), 3))[corners.corner_vertex]       # one per vertex
    own = rng.uniform(-0.4, 0.4, (len(corners.corner_vertex), 3))                  # one per corner
    if sharing != "vertex":
        lean = own if sharing == "corner" else np.where(corners.corner_vertex[:, None] % 3 == 0, own, lean)
    custom = automatic[corners.corner_vertex] + lean
    corners.custom = custom_coefficients(positions, corners, custom / np.linalg.norm(custom, axis=1)[:, None])
    assert np.isfinite(corners.custom).all()
    distinct = len(np.unique(np.column_stack([corners.corner_vertex, corners.custom]), axis=0))
    assert (distinct == len(positions)) == (sharing == "vertex")
    grouped_normals(positions[None] + 1.0, corners)                # decoded once for these coefficients
    corners.custom = corners.custom.copy()
    corners.custom[::2] = corners.custom[::2][::-1]               # then others, on the same corners
    frames = positions[None] * rng.uniform(0.5, 1.5, (20, 1, 3)) + rng.normal(scale=0.2, size=(20,) + positions.shape)
    frames[3, :, 0] *= -1
    pos = frames.astype(np.float64)
    groups, count = ((rng.permutation(len(tris) * 3 + 2)[:len(tris) * 3], len(tris) * 3 + 2) if split
                     else (corners.corner_vertex, len(positions)))
    new = grouped_normals(frames, corners, groups if split else None, count if split else None)
    old = vertex_normals._chunk(pos, corners, np.asarray(groups, np.int64), count).astype(np.float32)
    assert same_bits(new, old)


@pytest.mark.parametrize("frames", [0, 1, 15, 16, 17, 33])
def test_frame_counts_around_the_chunk(frames):
    rng = np.random.default_rng(frames)
    positions, tris = grid_mesh(3)
    positions = positions[None] + rng.normal(scale=0.3, size=(frames, len(positions), 3))
    assert triangle_normals.CHUNK_FRAMES == 16
    check(positions, corners_of(tris))


@pytest.mark.parametrize("values", [1, 40, 100])
def test_big_meshes_take_fewer_frames_a_chunk(monkeypatch, values):
    """A mesh with more triangles than CHUNK_VALUES / 16 is worked fewer frames at a time (one, at most):
    the buffers stay bounded, the normals the same."""
    monkeypatch.setattr(triangle_normals, "CHUNK_VALUES", values)
    rng = np.random.default_rng(values)
    positions, tris = grid_mesh(4)
    positions = positions[None] + rng.normal(scale=0.3, size=(7, len(positions), 3))
    check(positions, corners_of(tris))


def test_triangle_normals_do_not_sum_corners_with_bincount(monkeypatch):
    """Fails on the old code: it summed each vertex's corners with a weighted np.bincount, three calls per
    chunk of frames (counting corners per vertex once is not a sum)."""
    calls = []
    original = np.bincount

    def counted(x, weights=None, minlength=0):
        if weights is not None:
            calls.append(len(x))
        return original(x, weights, minlength)

    monkeypatch.setattr(np, "bincount", counted)
    positions, tris = grid_mesh(3)
    grouped_normals(np.repeat(positions[None], 40, axis=0), corners_of(tris))
    assert not calls


# ---- the anorm lookup's tables ------------------------------------------------------------

def test_candidate_lists_are_the_per_row_lists():
    """The cube map's lists (built in one stable sort now) are each cell's ascending table indices within the
    bound, padded with the last, as the per-row np.flatnonzero lists were."""
    rows = [np.flatnonzero(row) for row in anorms_module._candidate_mask()]
    width = max(len(r) for r in rows)
    expected = np.array([np.concatenate([r, np.full(width - len(r), r[-1])]) for r in rows])
    assert np.array_equal(anorms_module._candidates(), expected)


def test_unit_vectors_divide_by_what_linalg_norm_gives():
    """Both modules' unit vectors add the squares as np.linalg.norm does (the previous code called it):
    the same bits on random, tiny, huge, zero and axis vectors, in (F, V, 3) and (C, 3) layouts."""
    from exporters.sampling import custom_normals
    rng = np.random.default_rng(61)
    v = rng.normal(size=(5, 400, 3)) * 10.0 ** rng.integers(-150, 150, (5, 400, 1))
    v[0, :20] = 0.0
    v[1, :30] = np.eye(3)[rng.integers(0, 3, 30)] * rng.choice([-1.0, 1.0], (30, 1))
    v[2, :10] = [1e-200, -1e-200, 0.0]
    length = np.linalg.norm(v, axis=-1, keepdims=True)
    assert same_bits(custom_normals._unit(v), v / np.maximum(length, 1e-300))
    assert same_bits(custom_normals._unit(v[3]), v[3] / np.maximum(length[3], 1e-300))
    up = np.array([0.0, 0.0, 1.0])
    assert same_bits(vertex_normals._unit(v, up), np.where(length > 0, v / np.maximum(length, 1e-300), up))
