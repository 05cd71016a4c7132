"""MD2 frame grids on one shared lattice, so that vertices that do not move do not swim.

An MD2 frame stores ``float32 scale[3], translate[3]`` and one byte triple per vertex; engines
decode ``position = byte * scale + translate`` in float32. Per-frame grids (scale and translate
from each frame's bounds) shift from frame to frame, so a still vertex decodes a little differently
in every frame. The shared lattice uses one step ``s`` per axis for every frame and a translate
``k_f * s`` (``k_f`` an integer) per frame, so a vertex decodes to ``n * s`` with ``n = byte + k_f``
the same lattice index in every frame where its position is the same.

Exactness in float32: ``s = m * 2**e`` with ``m`` below ``2**16``, so ``byte * s`` (8 bits times
16 bits) is exact, and ``|k_f| * m < 2**24``, so ``translate`` is exact; the decoded sum is then
the float32 rounding of the exact value ``n * s``, a function of ``n`` alone.

Step: the largest frame extent over 254 (not 255: snapping the translate to the lattice costs up
to one step), rounded up to ``m`` significant bits. Every position is within half a step of its
decoded value, and every frame's bytes fit in 0-255.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..message_text import quoted
from ..quantize import grid_from_bounds

GRID_MODES = ("AUTO", "SHARED", "PER_FRAME")
AUTO_TOLERANCE = 1.25      # AUTO keeps the shared lattice unless its largest error is 25 % above per-frame's
_STEP_BITS = 16            # significant bits of the step: byte (8 bits) x step stays exact in float32
_FLOAT32_BITS = 24


@dataclass
class FrameGrids:
    """Quantised frames: (F, 3) scale and translate, (F, V, 3) bytes, the grid used, largest error."""
    scale: np.ndarray
    translate: np.ndarray
    verts: np.ndarray
    mode: str               # "SHARED" or "PER_FRAME"
    max_error: float        # largest distance between a position and its decoded value, model units


def lattice_step(extent: float, magnitude: float) -> float | None:
    """The shared step for one axis: at least ``extent / 254``, exact with few mantissa bits.

    ``magnitude`` is the largest absolute coordinate; None when no float32 lattice can hold it.
    """
    if extent <= 0.0:
        return 0.0
    step = extent / 254.0
    index_bits = int(np.ceil(np.log2(magnitude / step + 2.0)))
    bits = min(_STEP_BITS, _FLOAT32_BITS - index_bits)
    if bits < 1:
        return None
    exponent = int(np.floor(np.log2(step))) - bits + 1
    step = float(np.ceil(step / 2.0 ** exponent)) * 2.0 ** exponent
    return step if np.float32(step) == step and np.isfinite(np.float32(step * 256.0 + magnitude)) else None


def _components(positions: np.ndarray) -> np.ndarray:
    """(3, F, V) contiguous coordinates (reductions over vertices are much faster this way round)."""
    pos = np.asarray(positions)
    if pos.dtype not in (np.float32, np.float64):
        pos = pos.astype(np.float64)
    return np.ascontiguousarray(np.moveaxis(pos, -1, 0))


def _shared(comp: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The shared lattice of (3, F, V) coordinates with (3, F) bounds, or None."""
    frames = comp.shape[1]
    extent = (hi.astype(np.float64) - lo).max(axis=1)
    magnitude = np.maximum(np.abs(lo), np.abs(hi)).max(axis=1).astype(np.float64)
    scale = np.zeros((frames, 3), np.float32)
    translate = np.empty((frames, 3), np.float32)
    verts = np.zeros(comp.shape[1:] + (3,), np.uint8)
    for axis in range(3):
        step = lattice_step(float(extent[axis]), float(magnitude[axis]))
        if step is None:
            return None
        if step == 0.0:
            translate[:, axis] = lo[axis]
            continue
        index = np.rint(comp[axis].astype(np.float64) / step)
        first = np.rint(lo[axis].astype(np.float64) / step)       # the smallest index of each frame
        offset = index - first[:, None]
        exact = first * step
        if offset.min() < 0 or offset.max() > 255 or not np.array_equal(np.float32(exact).astype(np.float64), exact):
            return None
        scale[:, axis] = step
        translate[:, axis] = exact
        verts[..., axis] = offset
    return scale, translate, verts


def _per_frame(comp: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each frame's grid from its bounds: :func:`quantize.quantize_frames`, computed axis by axis."""
    scale, translate = grid_from_bounds(lo.T, hi.T)
    dtype = comp.dtype
    verts = np.empty(comp.shape[1:] + (3,), np.uint8)
    q = np.empty(comp.shape[1:], dtype)
    for axis in range(3):
        s = scale[:, axis].astype(dtype)[:, None]
        inverse = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
        np.subtract(comp[axis], translate[:, axis].astype(dtype)[:, None], out=q)
        np.multiply(q, inverse, out=q)
        np.rint(q, out=q)
        verts[..., axis] = np.clip(q, 0, 255, out=q)
    return scale, translate, verts


def _max_error(comp: np.ndarray, scale: np.ndarray, translate: np.ndarray, verts: np.ndarray) -> float:
    """Largest distance between a position and its float32 decoded value ((3, F, V) coordinates)."""
    if verts.size == 0:
        return 0.0
    total = np.zeros(comp.shape[1:], np.float64)
    decoded = np.empty(comp.shape[1:], np.float32)
    delta = np.empty(comp.shape[1:], np.float64)
    for axis in range(3):         # the engine's float32 decoding, its distance in float64
        np.multiply(verts[..., axis], scale[:, axis, None].astype(np.float32), out=decoded, dtype=np.float32)
        np.add(decoded, translate[:, axis, None].astype(np.float32), out=decoded)
        np.subtract(decoded, comp[axis], out=delta, dtype=np.float64)
        np.multiply(delta, delta, out=delta)
        total += delta
    return float(np.sqrt(total.max()))


def shared_lattice(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(scale (F, 3), translate (F, 3), bytes (F, V, 3)) on one lattice; None if float32 cannot hold it."""
    comp = _components(positions)
    return _shared(comp, comp.min(axis=-1), comp.max(axis=-1))


def max_error(positions: np.ndarray, scale: np.ndarray, translate: np.ndarray, verts: np.ndarray) -> float:
    """Largest distance between a position and its float32 decoded value."""
    return _max_error(_components(positions), np.float32(scale), np.float32(translate), verts)


def _shared_plainly_worse(comp: np.ndarray, lo: np.ndarray, hi: np.ndarray, per_frame_error: float,
                          sample: int = 256) -> bool:
    """True when AUTO would refuse the shared lattice, seen on a few vertices: it cannot hold them (then
    it holds no model), or their largest error already exceeds ``AUTO_TOLERANCE`` times per-frame
    grids' (the error over every vertex is at least theirs). An edited model's frames often each sit on
    a grid of their own (a scaled grid is a grid), which per-frame grids fit almost exactly: the whole
    lattice and its error over every vertex are then not worked out."""
    count = comp.shape[2]
    probe = np.unique(np.linspace(0, max(count - 1, 0), min(sample, count)).astype(np.int64))
    part = np.take(comp, probe, axis=2)      # contiguous; much faster than comp[:, :, probe] on the last axis
    lattice = _shared(part, lo, hi)         # each vertex's bytes as for the whole model
    return lattice is None or _max_error(part, *lattice) > AUTO_TOLERANCE * per_frame_error


def frame_grids(positions: np.ndarray, mode: str = "AUTO") -> FrameGrids:
    """Quantise (F, V, 3) positions with per-frame grids, the shared lattice, or whichever AUTO picks.

    AUTO takes the shared lattice unless its largest error exceeds per-frame grids' by more than
    ``AUTO_TOLERANCE`` (frames of very different sizes); SHARED falls back to per-frame grids only
    when no float32 lattice can hold the model.
    """
    if mode not in GRID_MODES:
        raise ValueError(f"grid mode must be one of {GRID_MODES}, not {quoted(mode)}")
    comp = _components(positions)
    lo, hi = comp.min(axis=-1), comp.max(axis=-1)
    per_frame = shared = None
    if mode == "AUTO":
        grids = _per_frame(comp, lo, hi)
        per_frame = FrameGrids(*grids, "PER_FRAME", _max_error(comp, *grids))
        if _shared_plainly_worse(comp, lo, hi, per_frame.max_error):
            return per_frame
    if mode != "PER_FRAME":
        lattice = _shared(comp, lo, hi)
        if lattice is not None:
            shared = FrameGrids(*lattice, "SHARED", _max_error(comp, *lattice))
    if per_frame is None and (mode != "SHARED" or shared is None):
        grids = _per_frame(comp, lo, hi)
        per_frame = FrameGrids(*grids, "PER_FRAME", _max_error(comp, *grids))
    if shared is None:
        return cast(FrameGrids, per_frame)     # made above whenever no shared lattice is
    if per_frame is None or shared.max_error <= AUTO_TOLERANCE * per_frame.max_error:
        return shared
    return per_frame
