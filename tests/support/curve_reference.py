"""F-curve values as the export read them before the speed work of issue 33 (commit b685f7e,
``exporters/sampling/frame_sampling.py``): one curve at a time, ``np.interp`` of its keys snapped to a
key within ``KEY_SNAP``, Blender's ``evaluate`` for any curve that is not piecewise linear. Kept as the
reference the one-pass evaluation (``exporters/sampling/curve_values.py``) must match bit for bit."""
from __future__ import annotations

import numpy as np

KEY_SNAP = 1e-4


def _on_keys(values: np.ndarray, frames: np.ndarray, co: np.ndarray) -> np.ndarray:
    frames = np.asarray(frames, dtype=np.float64)
    right = np.clip(np.searchsorted(co[:, 0], frames), 0, len(co) - 1)
    left = np.maximum(right - 1, 0)
    nearest = np.where(np.abs(co[left, 0] - frames) < np.abs(co[right, 0] - frames), left, right)
    close = np.abs(co[nearest, 0] - frames) < KEY_SNAP
    return np.where(close, co[nearest, 1], values)


def curve_values(fcurve, frames: np.ndarray) -> np.ndarray:
    points = fcurve.keyframe_points
    count = len(points)
    if count and not len(fcurve.modifiers) and fcurve.extrapolation == "CONSTANT":
        interp = np.empty(count, dtype=np.int32)
        points.foreach_get("interpolation", interp)
        if count == 1 or np.all(interp[:-1] == 1):
            co = np.empty(count * 2, dtype=np.float32)
            points.foreach_get("co", co)
            co = co.reshape(-1, 2).astype(np.float64)
            if np.all(np.diff(co[:, 0]) > 0):
                return _on_keys(np.interp(frames, co[:, 0], co[:, 1]), frames, co)
    return np.array([fcurve.evaluate(float(f)) for f in frames])
