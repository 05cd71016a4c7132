"""The values of many F-curves at many scene frames, with one numpy pass for every linear curve.

A curve whose keys are all linear (or a single key), with constant extrapolation, no modifiers and
strictly increasing key frames is the piecewise-linear function of its keys: its values are computed
here as ``np.interp`` computes them (``slope * (f - x[j]) + y[j]`` between keys j and j + 1, the first
key's value before it, the last key's from it on), then each sample within ``KEY_SNAP`` of a key takes
that key's value (keys on subframes are stored as float32: an import placed at the scene's rate puts
file frame k at ``start + k * 2.4``, and sampling there in float64 would read 0.9999999, not the key).
All such curves are searched at once: each curve's keys and samples are moved to a band of their own
on one axis (curve c's by ``c * span``, ``span`` wider than every key and sample), so a single
``searchsorted`` finds every sample's keys. Any other curve is evaluated by Blender, frame by frame.
Per curve only Blender's reads remain (its keys' frames, values and interpolation).
"""
from __future__ import annotations

import numpy as np

import bpy

KEY_SNAP = 1e-4     # scene frames: a sample this close to a key reads the key's value
LINEAR = 1          # the interpolation enum's LINEAR, as foreach_get reads it
CHUNK = 1 << 18     # curves x samples searched at once (bounds the temporaries' memory)


def linear_values(keys: np.ndarray, counts: np.ndarray, frames: np.ndarray) -> np.ndarray:
    """(len(counts), F) values at ``frames`` of piecewise-linear curves whose (frame, value) keys, in
    increasing frame order, are ``keys`` (K, 2) float64, ``counts[c]`` of them for curve c in turn."""
    frames = np.asarray(frames, dtype=np.float64)
    step = max(1, CHUNK // max(len(frames), 1))
    starts = np.cumsum(counts) - counts
    if len(counts) > step:
        bounds = [*starts[::step].tolist(), len(keys)]
        return np.concatenate([linear_values(keys[bounds[n]:bounds[n + 1]], counts[i:i + step], frames)
                               for n, i in enumerate(range(0, len(counts), step))])
    if not len(counts) or not len(frames):
        return np.zeros((len(counts), len(frames)))
    x, y = keys[:, 0], keys[:, 1]
    ends = starts + counts - 1
    # before a curve's first key its first value, from its last key on its last value (np.interp's ends;
    # the nearest key there is that end key, so the snap changes nothing): only samples between a
    # curve's first and last keys need their bracket
    values = np.where(frames[None, :] < x[starts][:, None], y[starts][:, None], y[ends][:, None])
    rows, columns = np.nonzero((frames[None, :] >= x[starts][:, None]) & (frames[None, :] < x[ends][:, None]))
    if not len(rows):
        return values
    low = min(x.min(), frames.min())
    span = max(x.max(), frames.max()) - low + 2.0
    curve = np.repeat(np.arange(len(counts), dtype=np.float64), counts)
    key_axis = (x - low) + curve * span
    f = frames[columns]
    first, last = starts[rows], ends[rows]
    at_or_before = np.searchsorted(key_axis, (f - low) + rows * span, side="right") - 1     # np.interp's bracket
    j = np.clip(at_or_before, first, np.maximum(last - 1, first))
    k = np.minimum(j + 1, last)
    dx = x[k] - x[j]
    slope = np.divide(y[k] - y[j], dx, out=np.zeros(dx.shape), where=dx > 0)
    inner = slope * (f - x[j]) + y[j]
    below = np.clip(at_or_before, first, last)                  # the keys either side of each sample:
    above = np.clip(at_or_before + 1, first, last)              # the nearer one, the later on a tie
    nearest = np.where(np.abs(x[below] - f) < np.abs(x[above] - f), below, above)
    values[rows, columns] = np.where(np.abs(x[nearest] - f) < KEY_SNAP, y[nearest], inner)
    return values

def curves_values(fcurves: list[bpy.types.FCurve], frames: np.ndarray) -> np.ndarray:
    """(len(fcurves), F) values of ``fcurves`` at scene ``frames``."""
    frames = np.asarray(frames, dtype=np.float64)
    values = np.empty((len(fcurves), len(frames)))
    listed, cos, interps = [], [], []
    for i, fcurve in enumerate(fcurves):
        points = fcurve.keyframe_points
        count = len(points)
        if count and not len(fcurve.modifiers) and fcurve.extrapolation == "CONSTANT":
            co, interp = np.empty(count * 2, dtype=np.float32), np.empty(count, dtype=np.int32)
            points.foreach_get("co", co)
            points.foreach_get("interpolation", interp)
            listed.append(i)
            cos.append(co)
            interps.append(interp)
    counts = np.array([len(interp) for interp in interps], dtype=np.int64)
    linear = np.zeros(len(fcurves), dtype=bool)
    if listed:
        keys = np.concatenate(cos).reshape(-1, 2).astype(np.float64)
        last = np.cumsum(counts) - 1
        inner = np.ones(len(keys), dtype=bool)
        inner[last] = False                         # the interpolation after a curve's last key is unused
        bent = (np.concatenate(interps) != LINEAR) & inner
        unordered = np.zeros(len(keys), dtype=bool)
        unordered[:-1] = (np.diff(keys[:, 0]) <= 0) & inner[:-1]
        curve = np.repeat(np.arange(len(listed)), counts)
        ok = ~np.bincount(curve, weights=bent | unordered, minlength=len(listed)).astype(bool)
        linear[np.asarray(listed)[ok]] = True
        values[linear] = linear_values(keys[ok[curve]], counts[ok], frames)
    for i in np.flatnonzero(~linear).tolist():
        values[i] = [fcurves[i].evaluate(float(frame)) for frame in frames]
    return values


def curve_values(fcurve: bpy.types.FCurve, frames: np.ndarray) -> np.ndarray:
    """(F,) values of one F-curve at scene ``frames``."""
    return curves_values([fcurve], frames)[0]
