"""The IQM export's vertex split (``exporters/iqm/geometry.py`` ``unique_rows``: one ``lexsort`` of the
corners' rows, vertex, UV, normal, colour) gives what ``np.unique(rows, axis=0, return_inverse=True)`` gives,
to the bit: the same rows in the same order and the same row for every corner. The rows are the corners of
each corpus IQM file's triangles (its vertex's position, as a number, texture coordinates and normal: the
file's own splits come out as rows alike but for the UV or normal), and made ones: rows alike but for the
sign of a zero, a NaN, one row, none."""
from __future__ import annotations

from importlib import import_module

import numpy as np
import pytest
from support.environment import corpus_params

from formats.iqm.animation import vertex_values
from formats.iqm.codec import read_iqm
from formats.iqm.records import NORMAL, POSITION, TEXCOORD


def same(extension, rows: np.ndarray) -> None:
    geometry = import_module(f"{extension}.exporters.iqm.geometry")
    unique, inverse = geometry.unique_rows(rows)
    expected, expected_inverse = np.unique(rows, axis=0, return_inverse=True)
    assert unique.shape == expected.shape
    np.testing.assert_array_equal(np.ascontiguousarray(unique).view(np.uint64),
                                  np.ascontiguousarray(expected).view(np.uint64))
    np.testing.assert_array_equal(np.ravel(inverse), np.ravel(expected_inverse))


def corner_rows(model) -> np.ndarray:
    """(3T, 6 or 9) rows of the triangles' corners: position number, texcoord, normal (where the file has them)."""
    positions = vertex_values(model, POSITION).astype(np.float64)
    _, number = np.unique(positions, axis=0, return_inverse=True)
    columns = [np.ravel(number)[:, None].astype(np.float64)]
    for kind in (TEXCOORD, NORMAL):
        values = vertex_values(model, kind)
        if values is not None:
            columns.append(values.astype(np.float32).astype(np.float64))
    return np.concatenate(columns, axis=1)[model.triangles.astype(np.int64).ravel()]


@pytest.mark.parametrize("path", corpus_params("iqm/**/*.iqm"))
def test_the_corners_of_a_corpus_file_split_as_np_unique_splits_them(extension, path):
    model = read_iqm(path.read_bytes())
    if not model.num_vertexes or not len(model.triangles) or vertex_values(model, POSITION) is None:
        pytest.skip("a file of anims alone: no triangle")
    same(extension, corner_rows(model))


def test_made_rows_split_as_np_unique_splits_them(extension):
    rng = np.random.default_rng(47)
    base = np.round(rng.normal(size=(40, 6)), 1)
    rows = base[rng.integers(0, 40, 400)]
    same(extension, rows)
    signed = rows.copy()
    signed[::5, 2] = 0.0
    signed[1::5, 2] = -0.0                      # rows alike but for the sign of a zero
    same(extension, signed)
    with_nan = rows.copy()
    with_nan[::50, 4] = np.nan
    same(extension, with_nan)
    same(extension, rows[:1])
    same(extension, rows[:0])
