"""One texture coordinate per MDL vertex: seams shared, splits only where unavoidable."""
from __future__ import annotations

import numpy as np

from formats.mdl.texcoords import SEAM_FLAG, assign_texcoords, effective_st

W = 64


def _check(result, triangles, corner_st, facesfront):
    np.testing.assert_array_equal(
        effective_st(result.onseam, result.s, result.t, result.triangles, np.asarray(facesfront), W), corner_st)
    np.testing.assert_array_equal(result.source_vertex[result.triangles], triangles)


def test_back_corner_half_a_skin_right_shares_one_seam_record():
    triangles = np.array([[0, 1, 2], [0, 2, 3]])
    facesfront = np.array([1, 0])
    corner_st = np.array([[[10, 5], [12, 5], [14, 9]], [[10 + W // 2, 5], [14 + W // 2, 9], [40, 40]]])
    result = assign_texcoords(triangles, corner_st, facesfront, 4, W)
    _check(result, triangles, corner_st, facesfront)
    assert result.vertices_added == 0
    assert result.onseam.tolist() == [SEAM_FLAG, 0, SEAM_FLAG, 0]


def test_disagreeing_corners_split_once_and_keep_original_indices():
    triangles = np.array([[0, 1, 2], [0, 2, 3]])
    facesfront = np.array([1, 1])
    corner_st = np.array([[[1, 1], [2, 2], [3, 3]], [[7, 7], [3, 3], [4, 4]]])
    result = assign_texcoords(triangles, corner_st, facesfront, 4, W)
    _check(result, triangles, corner_st, facesfront)
    assert result.vertices_added == 1
    assert result.source_vertex.tolist() == [0, 1, 2, 3, 0]
    assert result.triangles[0].tolist() == [0, 1, 2]


def test_stored_records_are_kept_when_they_still_fit():
    triangles = np.array([[0, 1, 2]])
    facesfront = np.array([1])
    stored = (np.array([SEAM_FLAG, 0, 0]), np.array([1, 2, 3]), np.array([4, 5, 6]))
    corner_st = effective_st(*stored, triangles, facesfront, W)
    result = assign_texcoords(triangles, corner_st, facesfront, 3, W, stored=stored)
    assert result.onseam.tolist() == [SEAM_FLAG, 0, 0]
    moved = corner_st.copy()
    moved[0, 1] = [9, 9]
    again = assign_texcoords(triangles, moved, facesfront, 3, W, stored=stored)
    _check(again, triangles, moved, facesfront)
    assert again.onseam.tolist() == [0, 0, 0]


def test_random_meshes_always_reproduce_every_corner():
    rng = np.random.default_rng(3)
    for _ in range(30):
        num = int(rng.integers(3, 30))
        triangles = np.array([rng.choice(num, 3, replace=False) for _ in range(int(rng.integers(1, 40)))])
        facesfront = rng.integers(0, 2, len(triangles))
        base = rng.integers(0, W // 2, (num, 2))
        corner_st = base[triangles] + np.where((facesfront[:, None, None] == 0) & (rng.random((len(triangles), 3, 1)) < .5),
                                               [W // 2, 0], 0)
        corner_st[rng.random(corner_st.shape[:2]) < 0.1] = rng.integers(0, W, 2)
        result = assign_texcoords(triangles, corner_st, facesfront, num, W)
        _check(result, triangles, corner_st, facesfront)
        assert len(result.s) <= num + 3 * len(triangles)
