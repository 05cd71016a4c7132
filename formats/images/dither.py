"""Floyd-Steinberg error diffusion onto a palette by wavefronts (:func:`.palette.match_palette`).

Each pixel's value is its colour plus the error its neighbours passed on (7/16 from the left, 3/16 from
the upper right, 5/16 from above, 1/16 from the upper left), clipped to 0..255; it gets the CIEDE2000-nearest
entry of that value rounded to whole 8-bit numbers (``np.rint``), and passes on the value less the
entry's colour, unrounded. Deciding on the rounded value lets a class with a table (:mod:`.palette_lut`)
look each pixel up instead of comparing it with entries: the entry is then the nearest of a colour at most
half a value per channel from the pixel's value, not always that value's own nearest
(``tools/benchmark_palette.py`` counts the pixels where they differ and by how much).

A pixel depends only on its left neighbour and the three above it, so the pixels on a line x + 2y = k
are independent and the image is swept in w + 2h - 2 such wavefronts, each decided in one vectorised step;
the additions reach each pixel in the same order as in a scan, so the result is exactly the scan's. The
image is stored skewed (wavefront k is row k, a pixel's column its y), so a wavefront and the four places
its error goes are contiguous slices.
"""
from __future__ import annotations

from typing import cast

import numpy as np

from .palette_lut import colour_keys
from .palette_search import _Matcher

_WEIGHTS = np.array([7 / 16, 3 / 16, 5 / 16, 1 / 16])[:, None, None]    # right, down-left, down, down-right


def dither(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """(h, w) uint8 indices of float64 ``work`` (h, w, 3) dithered onto the matcher's classes (``emissive``
    picks the second); ``fixed`` pixels neither take nor spread error (their index is left to the caller)."""
    height, width = work.shape[:2]
    fronts = width + 2 * (height - 1)
    y, x = np.indices((height, width))
    front = x + 2 * y
    skewed = np.zeros((fronts + 3, height + 1, 3))        # three rows and a column more: the dropped error
    skewed[front, y] = work
    lit = np.zeros((fronts, height), dtype=bool)
    lit[front, y] = emissive
    held = np.zeros((fronts, height), dtype=bool)
    held[front, y] = fixed
    out = np.zeros((fronts, height), dtype=np.uint8)
    decide = _Decide(matcher, bool(emissive.any()))
    masked = bool(fixed.any())
    spread = np.empty((4, height, 3))
    for k in range(fronts):
        lo, hi = max(0, (k - width + 2) // 2), min(height - 1, k // 2) + 1
        value = np.clip(skewed[k, lo:hi], 0, 255)
        fixed_here = held[k, lo:hi] if masked else None
        if fixed_here is not None and fixed_here.any():      # kept or skipped pixels: not decided, no error
            live = ~fixed_here
            index = np.zeros(hi - lo, dtype=np.uint8)
            index[live] = decide(value[live], lit[k, lo:hi][live])
            error = np.subtract(value, matcher.rgb[index], out=value)
            error[fixed_here] = 0.0
        else:
            index = decide(value, lit[k, lo:hi])
            error = np.subtract(value, matcher.rgb[index], out=value)
        out[k, lo:hi] = index
        error = np.multiply(error, _WEIGHTS, out=spread[:, :hi - lo])
        skewed[k + 1, lo + 1:hi + 1] += error[1]        # the pixel below-left before the one to the right: a
        skewed[k + 1, lo:hi] += error[0]                # pixel takes its upper right's error first, as in a scan
        skewed[k + 2, lo + 1:hi + 1] += error[2]
        skewed[k + 3, lo + 1:hi + 1] += error[3]
    return out[front, y]


class _Decide:
    """Each pixel's entry: the nearest of its value rounded to whole numbers, from the tables of the classes
    the image uses when all have one, else from the matcher's search."""

    def __init__(self, matcher: _Matcher, emissive: bool) -> None:
        classes = matcher.classes[:2 if emissive else 1]
        tables = [entries.lut for entries in classes]
        self.tables = cast("list[np.ndarray]", tables) if all(table is not None for table in tables) else None
        self.matcher, self.emissive = matcher, emissive

    def __call__(self, value: np.ndarray, lit: np.ndarray) -> np.ndarray:
        whole = np.rint(value)
        if self.tables is None:
            return self.matcher.nearest(whole, lit if self.emissive else np.zeros(len(whole), dtype=bool))
        keys = colour_keys(whole)
        if not self.emissive:
            return self.tables[0][keys]
        return np.where(lit, self.tables[1][keys], self.tables[0][keys])
