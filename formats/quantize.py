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
    """Nearest bytes for (..., V, 3) positions on the grid (scale, translate of shape (..., 3))."""
    pos = np.asarray(positions, dtype=np.float64)
    s = np.asarray(scale, dtype=np.float64)[..., None, :]
    t = np.asarray(translate, dtype=np.float64)[..., None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.where(s > 0, np.rint((pos - t) / np.where(s > 0, s, 1.0)), 0.0)
    return np.clip(q, 0, 255).astype(np.uint8)


def dequantize(verts: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> np.ndarray:
    """float32 positions as the engine decodes them."""
    return (np.asarray(verts, np.float32) * np.asarray(scale, np.float32)[..., None, :]
            + np.asarray(translate, np.float32)[..., None, :]).astype(np.float32)


def quantize_frames(positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-frame grids from each frame's bounds, then bytes: (scale (F,3), translate (F,3), verts)."""
    pos = np.asarray(positions, dtype=np.float64)
    scale, translate = grid_from_bounds(pos.min(axis=1), pos.max(axis=1))
    return scale, translate, quantize(pos, scale, translate)


def on_grid(positions: np.ndarray, verts: np.ndarray, scale: np.ndarray, translate: np.ndarray) -> bool:
    """True if every position is the decoded value of its byte (to float32 precision)."""
    decoded = dequantize(verts, scale, translate).astype(np.float64)
    pos = np.asarray(positions, dtype=np.float64)
    tolerance = 1e-3 * np.asarray(scale, np.float64)[..., None, :] + 4e-7 * np.maximum(np.abs(pos), 1.0)
    return bool(np.all(np.abs(decoded - pos) <= tolerance))
