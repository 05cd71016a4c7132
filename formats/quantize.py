"""Vertex quantisation onto the 8-bit grids of MD2 (per frame) and MDL (global).

``position = byte * scale + translate``. Bytes are rounded to the nearest step, never truncated,
so the error is at most half a step per axis.
"""
from __future__ import annotations

import numpy as np


def grid_from_bounds(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """float32 (scale, translate) mapping [lo, hi] onto bytes 0..255 (per axis, any leading shape)."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    return ((hi - lo) / 255.0).astype(np.float32), lo.astype(np.float32)


def quantize(positions: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """Nearest bytes for (..., V, 3) positions on the grid (scale, translate of shape (..., 3)).

    Works in the positions' own precision (float32 positions stay float32: on-grid values are
    within a few ulps of an integer, far from a rounding boundary).
    """
    pos = np.asarray(positions)
    dtype = pos.dtype if pos.dtype in (np.float32, np.float64) else np.float64
    s = np.asarray(scale, dtype=dtype)[..., None, :]
    t = np.asarray(translate, dtype=dtype)[..., None, :]
    inverse = np.divide(1.0, s, out=np.zeros_like(s), where=s > 0)
    q = np.rint((pos.astype(dtype, copy=False) - t) * inverse)
    return np.clip(q, 0, 255, out=q).astype(np.uint8)


def dequantize(verts: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """float32 positions as the engine decodes them."""
    return (np.asarray(verts, np.float32) * np.asarray(scale, np.float32)[..., None, :]
            + np.asarray(translate, np.float32)[..., None, :]).astype(np.float32)


def quantize_frames(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-frame grids from each frame's bounds, then bytes: (scale (F,3), translate (F,3), verts)."""
    pos = np.asarray(positions)
    scale, translate = grid_from_bounds(pos.min(axis=-2), pos.max(axis=-2))
    return scale, translate, quantize(pos, scale, translate)


def frames_on_grid(positions: np.ndarray, verts: np.ndarray, scale: np.ndarray,
                   translate: np.ndarray) -> np.ndarray:
    """(F,) True where every position of the frame is the decoded value of its byte.

    The tolerance is a thousandth of a step plus float32 rounding of the largest coordinate.
    """
    scale = np.asarray(scale, np.float32)
    translate = np.asarray(translate, np.float32)
    extent = np.maximum(np.abs(translate) + 255 * np.abs(scale), 1.0)
    tolerance = (1e-3 * scale + 4e-7 * extent)[:, None, :]
    error = np.abs(dequantize(verts, scale, translate) - np.asarray(positions, np.float32))
    return np.all(error <= tolerance, axis=(1, 2))
