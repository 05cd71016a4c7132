"""The IQM export's per-frame bounds (``exporters/iqm/pose_math.py`` ``skinned_bounds``: every frame at once,
the vertices grouped by blend, a few frames a chunk) against the plain form, one frame at a time: each
vertex's blended matrix (the ubyte weights / 255 times its joints' skinning matrices, added k = 0 to 3)
moving the vertex, then the box and the radii of the moved vertices (tests/support/iqm_rig.py
``plain_bounds``). The skinning matrices are the test's own decoding (``skinning_of``) of the corpus's
animated files that hold bounds and of a small file built here (3 joints, 4 frames). The bounds must be
the same float32 values (what the file holds) for any chunk size; the float64 values within 1e-12 of the
plain form's."""
from __future__ import annotations

import struct

import numpy as np
import pytest
from support.environment import corpus_params
from support.iqm_files import build, header_at
from support.iqm_rig import plain_bounds, skinning_of

from exporters.iqm.pose_math import skinned_bounds
from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, POSITION

# the corpus's IQM files whose header has bounds (every one of them animated and skinned)
BOUNDED = [p for p in corpus_params("iqm/**/*.iqm") if p.values[0] is None or
           struct.unpack_from("<I", p.values[0].read_bytes()[:124], header_at("ofs_bounds"))[0]]


def check(model) -> None:
    positions = model.array(POSITION).data.astype(np.float64)
    indexes, weights = model.array(BLENDINDEXES).data, model.array(BLENDWEIGHTS).data
    assert indexes.dtype == weights.dtype == np.uint8
    skinning = skinning_of(model)
    expected = plain_bounds(positions, indexes, weights, skinning)
    got = skinned_bounds(positions, indexes, weights, skinning)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got.astype(np.float32), expected.astype(np.float32))
    for budget in (1, 3 * len(positions) + 1, 1 << 30):       # a frame a chunk, 3 frames, every frame at once
        np.testing.assert_array_equal(skinned_bounds(positions, indexes, weights, skinning, budget), got)


def test_bounds_of_a_built_file_are_the_plain_per_frame_ones():
    model = read_iqm(build()[0])
    assert model.num_frames == 4 and len(model.joints) == 3
    check(model)


@pytest.mark.parametrize("path", BOUNDED)
def test_bounds_of_the_corpus_animated_files_are_the_plain_per_frame_ones(path):
    model = read_iqm(path.read_bytes())
    assert model.num_frames and model.array(BLENDWEIGHTS) is not None
    check(model)
