"""Shape-key curves read in one numpy pass (issue 33): the values of many F-curves at many frames are Blender's
own (``FCurve.evaluate``): exactly for the curves Blender evaluates (Bezier, an F-curve modifier, linear
extrapolation), within float32 rounding for piecewise-linear ones and exactly a key's value within ``KEY_SNAP``
of it; on curves with one to six keys on whole frames and subframes, values 0, 1 and between, sampled on whole
frames, on subframes, near keys (within and beyond the snap), before the first key and after the last, in the
one batch and in batches of one curve. That the values are the previous code's bit for bit is checked on demand
by tests/export/test_edited_export_files_identity.py (tools/edited_identity.py)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest


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
        made.append((fcurve, c % 11 != 5 and c % 17 != 3 and c % 19 != 4))     # (curve, piecewise linear)
    return made


def frames_to_sample() -> np.ndarray:
    on_keys = np.arange(0, 62) * 2.4 + 1
    return np.concatenate([np.arange(-3.0, 150.0), on_keys, on_keys + 5e-5, on_keys - 3e-4,
                           np.random.default_rng(1).uniform(-10, 160, 200)])


def assert_blenders(values: np.ndarray, curves, frames: np.ndarray, snap: float) -> None:
    """Each row of ``values`` against Blender's evaluation of its curve at ``frames``."""
    for row, (fcurve, linear) in zip(values, curves):
        blender = np.array([fcurve.evaluate(float(f)) for f in frames])
        if not linear:
            assert np.array_equal(row, blender)
            continue
        assert np.allclose(row, blender, rtol=0, atol=1e-5)
        keys = np.array([tuple(point.co) for point in fcurve.keyframe_points], np.float64)
        distance = np.abs(frames[:, None] - keys[None, :, 0])
        near = distance.min(axis=1) < snap
        assert np.array_equal(row[near], keys[distance.argmin(axis=1)[near], 1])


def test_one_pass_gives_blenders_values(extension, curves):
    module = importlib.import_module(f"{extension}.exporters.sampling.curve_values")
    frames = frames_to_sample()
    values = module.curves_values([fcurve for fcurve, _ in curves], frames)
    assert_blenders(values, curves, frames, module.KEY_SNAP)
    assert len({tuple(row) for row in np.unique(values, axis=1)}) > 50          # the curves differ
    assert sum(linear for _, linear in curves) > 150 and sum(not linear for _, linear in curves) > 20


def test_batches_bound_memory_and_change_nothing(extension, curves, monkeypatch):
    module = importlib.import_module(f"{extension}.exporters.sampling.curve_values")
    frames = frames_to_sample()
    fcurves = [fcurve for fcurve, _ in curves]
    expected = module.curves_values(fcurves, frames)
    for chunk in (len(frames) * 7, 1):
        monkeypatch.setattr(module, "CHUNK", chunk)
        assert np.array_equal(module.curves_values(fcurves, frames), expected)
    assert np.array_equal(module.curve_values(fcurves[4], frames), expected[4])
    assert_blenders(expected[:12], curves[:12], frames, module.KEY_SNAP)
