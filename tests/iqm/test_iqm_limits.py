"""What the IQM reader warns about (an engine would not draw it; the file is still read): vertex arrays
in formats DarkPlaces ignores, arrays it needs missing, blend indexes past the joints, poses that are
not one per joint. Each model is written with the codec and read back, so the warnings are the reader's."""
from __future__ import annotations

import numpy as np
from support.iqm_files import build

from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, POSITION, IqmVertexArray
from formats.iqm.write import write_iqm

DATA, FACTS = build()


def reread(model):
    return read_iqm(write_iqm(model))


def test_the_built_model_draws_in_darkplaces():
    assert read_iqm(DATA).warnings == []


def test_a_double_position_array_is_ignored_and_the_model_refused_by_darkplaces():
    model = read_iqm(DATA)
    position = model.array(POSITION)
    model.vertex_arrays[0] = IqmVertexArray(type=POSITION, format=8, data=position.data.astype("<f8"))
    assert reread(model).warnings == [
        "1 vertex array in a format DarkPlaces ignores (position)",
        "no usable position array: DarkPlaces refuses the model (missing vertex array data)"]


def test_an_animated_model_without_blend_arrays_is_refused_by_darkplaces():
    model = read_iqm(DATA)
    model.vertex_arrays = [a for a in model.vertex_arrays if a.type not in (BLENDINDEXES, BLENDWEIGHTS)]
    assert reread(model).warnings == [
        "no usable blend indexes, blend weights array: DarkPlaces refuses the model (missing vertex array data)"]
    model.anims, model.frames = model.anims[:0], model.frames[:0]
    model.bounds = model.bounds[:0]
    assert reread(model).warnings == []          # a static model needs no blend arrays


def test_blend_indexes_past_the_joints_are_counted_where_they_weigh():
    model = read_iqm(DATA)
    indexes, weights = model.array(BLENDINDEXES).data, model.array(BLENDWEIGHTS).data
    indexes[1, 0] = indexes[3, 0] = 7               # weighted 255: counted
    indexes[2, 3] = 9                               # weight 0: not counted
    assert weights[2, 3] == 0
    assert reread(model).warnings == ["2 vertexes weighted to a joint past the model's 3 joints"]


def test_poses_not_one_per_joint():
    model = read_iqm(DATA)
    assert int(model.poses[2]["mask"]) == 0         # the last pose animates no channel: the frames stay as they are
    model.poses = model.poses[:2]
    assert reread(model).warnings == ["2 poses for 3 joints: FTE and Warsow refuse the model"]
    np.testing.assert_array_equal(reread(model).frames, read_iqm(DATA).frames)
