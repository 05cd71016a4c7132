"""Shape-key curves read in one numpy pass (issue 33): the values of many F-curves at many frames are
the previous one-curve-at-a-time reading's bit for bit (tests/support/curve_reference.py), on curves
with one to six keys on whole frames and subframes, values 0, 1 and between, some not linear (Bezier,
constant, an F-curve modifier, cyclic extrapolation: Blender evaluates those), sampled on whole frames,
on subframes, near keys (within and beyond the snap), before the first key and after the last, in the
one batch and in batches of one curve."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from support.curve_reference import curve_values as reference_values


@pytest.fixture
def curves(bpy_scene):
    from bpy_extras import anim_utils
    bpy = bpy_scene
    mesh = bpy.data.meshes.new("curves")
    obj = bpy.data.objects.new("curves", mesh)
    action = bpy.data.actions.new("curves")
    anim = obj.animation_data_create()
    anim.action = action
    if hasattr(action, "slots"):
        slot = action.slots.new(id_type="OBJECT", name="curves")
        anim.action_slot = slot
        channels = anim_utils.action_ensure_channelbag_for_slot(action, slot).fcurves \
            if hasattr(anim_utils, "action_ensure_channelbag_for_slot") else \
            action.layers.new("Layer").strips.new(type="KEYFRAME").channelbag(slot, ensure=True).fcurves
    else:
        channels = action.fcurves
    rng = np.random.default_rng(33)
    made = []
    for c in range(240):
        count = int(rng.integers(1, 7))
        step = 2.4 if c % 3 else 1.0                                    # keys on subframes, as a rescaled import
        x = (np.sort(rng.choice(np.arange(60), count, replace=False)) * step + 1).astype(np.float32)
        y = rng.choice([0.0, 1.0, 0.25, 3.0], count).astype(np.float32)
        fcurve = channels.new(f'["curve{c}"]')
        points = fcurve.keyframe_points
        points.add(count)
        points.foreach_set("co", np.column_stack([x, y]).ravel())
        interp = np.ones(count, dtype=np.int32)                         # LINEAR
        if c % 11 == 5:
            interp[0] = 2                                               # BEZIER
        if c % 13 == 7:
            interp[-1] = 0                                              # CONSTANT after the last key: unused
        points.foreach_set("interpolation", interp)
        if c % 17 == 3:
            fcurve.modifiers.new("NOISE")
        if c % 19 == 4:
            fcurve.extrapolation = "LINEAR"
        fcurve.update()
        made.append(fcurve)
    return made


def frames_to_sample() -> np.ndarray:
    on_keys = np.arange(0, 62) * 2.4 + 1
    return np.concatenate([np.arange(-3.0, 150.0), on_keys, on_keys + 5e-5, on_keys - 3e-4,
                           np.random.default_rng(1).uniform(-10, 160, 200)])


def test_one_pass_equals_the_previous_reading_bit_for_bit(extension, curves):
    module = importlib.import_module(f"{extension}.exporters.sampling.curve_values")
    frames = frames_to_sample()
    expected = np.array([reference_values(fcurve, frames) for fcurve in curves])
    assert np.array_equal(module.curves_values(curves, frames), expected)
    assert len({tuple(row) for row in np.unique(expected, axis=1)}) > 50        # the curves differ


def test_batches_bound_memory_and_change_nothing(extension, curves, monkeypatch):
    module = importlib.import_module(f"{extension}.exporters.sampling.curve_values")
    frames = frames_to_sample()
    expected = np.array([reference_values(fcurve, frames) for fcurve in curves])
    for chunk in (len(frames) * 7, 1):
        monkeypatch.setattr(module, "CHUNK", chunk)
        assert np.array_equal(module.curves_values(curves, frames), expected)
    assert np.array_equal(module.curve_values(curves[4], frames), expected[4])
