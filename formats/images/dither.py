"""Floyd-Steinberg error diffusion onto a palette by wavefronts (:func:`.palette.match_palette`).

A pixel depends only on its left neighbour and the three above it, so the pixels on a line x + 2y = k
are independent and the image is swept in w + 2h - 2 such wavefronts, each matched in one vectorised
step; the additions reach each pixel in the same order as in a scan, so the result is exactly the scan's.
With candidate lists for the classes the pixels use (:mod:`.palette_cells`), a wavefront costs a fixed
number of numpy calls, whatever its colours: the image is stored skewed (wavefront k is row k, a pixel's
column its y), so a wavefront and the four places its error goes are contiguous slices, and every
(pixel, listed entry) pair of the wavefront is compared in one :func:`.cielab.ciede2000_pairs` call.
"""
from __future__ import annotations

import numpy as np

from .cielab import ciede2000_pairs, fill_chroma, lab_rows
from .palette_cells import CELLS, eighth_of
from .palette_search import _Matcher

_WEIGHTS = np.array([7 / 16, 3 / 16, 5 / 16, 1 / 16])[:, None, None]    # right, down-left, down, down-right


def dither(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    """(h, w) uint8 indices of float64 ``work`` (h, w, 3) dithered onto the matcher's classes (``emissive``
    picks the second); ``fixed`` pixels neither take nor spread error (their index is left to the caller)."""
    lists = _Lists.of(matcher, bool(emissive.any()), work.shape[0])
    if lists is None:
        return _dither_searched(matcher, work, emissive, fixed)
    return _dither_listed(lists, work, emissive, fixed)


class _Lists:
    """The classes' candidate lists as one table of columns of ``features``, looked up by eighth of a cell
    (``fine``: (r // 8 * 32 + g // 8) * 32 + b // 8, plus 32768 for the second class): the first
    ``height`` columns of ``features`` hold a wavefront's pixels, the others each class's entries, one class
    after the other (so a list's lowest column is its lowest palette index); rows L*, a*, b*, C*ab, b*^2."""

    def __init__(self, matcher: _Matcher, classes, height: int) -> None:
        columns, lists, offsets, candidates, fine, index = height, 0, [np.zeros(1, np.int64)], [], [], []
        for entries in classes:
            table_offsets, positions, _, _, eighths = entries.cells
            offsets.append(table_offsets[1:] + offsets[-1][-1])
            candidates.append(positions + columns)
            fine.append(eighths + lists)
            index.append(entries.index)
            columns += len(entries.index)
            lists += len(table_offsets) - 1
        offsets = np.concatenate(offsets)
        self.start, self.count, self.fine = offsets[:-1], np.diff(offsets), np.concatenate(fine)
        self.candidates = np.concatenate(candidates)
        self.index = np.zeros(columns, dtype=np.uint8)
        self.index[height:] = np.concatenate(index)
        self.rgb = matcher.rgb[self.index]
        self.features = np.zeros((5, columns))
        self.features[:, height:] = np.concatenate([entries.features for entries in classes], axis=1)

    @classmethod
    def of(cls, matcher: _Matcher, emissive: bool, height: int):
        """The lists of the classes the pixels use, or None when one of them has none."""
        classes = matcher.classes[:2 if emissive else 1]
        if any(entries.cells is None for entries in classes):
            return None
        return cls(matcher, classes, height)


def _dither_listed(lists: _Lists, work: np.ndarray, emissive: np.ndarray, fixed: np.ndarray) -> np.ndarray:
    height, width = work.shape[:2]
    fronts = width + 2 * (height - 1)
    y, x = np.indices((height, width))
    front = x + 2 * y
    skewed = np.zeros((fronts + 3, height + 1, 3))        # three rows and a column more: the dropped error
    skewed[front, y] = work
    class_cells = np.zeros((fronts, height), dtype=np.int64)
    class_cells[front, y] = emissive * (8 * CELLS ** 3)
    held = np.zeros((fronts, height), dtype=bool)
    held[front, y] = fixed
    out = np.zeros((fronts, height), dtype=np.uint8)
    classes, masked = bool(emissive.any()), bool(fixed.any())
    counting = np.arange(height * int(lists.count.max()))
    spread = np.empty((4, height, 3))
    for k in range(fronts):
        lo, hi = max(0, (k - width + 2) // 2), min(height - 1, k // 2) + 1
        value = np.clip(skewed[k, lo:hi], 0, 255)
        if masked and held[k, lo:hi].any():          # kept or skipped pixels: matched no more, no error
            live = np.flatnonzero(~held[k, lo:hi])
            index, rgb = _nearest(lists, value[live], class_cells[k, lo:hi][live] if classes else None, counting)
            out[k, lo:hi][live] = index
            error = np.zeros_like(value)
            error[live] = value[live] - rgb
        else:
            index, rgb = _nearest(lists, value, class_cells[k, lo:hi] if classes else None, counting)
            out[k, lo:hi] = index
            error = value - rgb
        n = hi - lo
        error = np.multiply(error, _WEIGHTS, out=spread[:, :n])
        skewed[k + 1, lo:hi] += error[0]
        skewed[k + 1, lo + 1:hi + 1] += error[1]
        skewed[k + 2, lo + 1:hi + 1] += error[2]
        skewed[k + 3, lo + 1:hi + 1] += error[3]
    return out[front, y]


def _nearest(lists: _Lists, colour: np.ndarray, class_cells: np.ndarray | None, counting: np.ndarray):
    """Palette indices and their float colours of the nearest listed entries of (n, 3) sRGB ``colour``
    (n >= 0), whose cells are offset by ``class_cells`` (the class's table) when given."""
    n = len(colour)
    if not n:
        return lists.index[:0], lists.rgb[:0]
    pixels = lists.features[:, :n]
    lab_rows(colour, pixels[0], pixels[1], pixels[2])
    fill_chroma(pixels)
    fine = eighth_of(colour)
    if class_cells is not None:
        fine += class_cells
    cell = lists.fine[fine]
    count = lists.count[cell]
    ends = np.cumsum(count)
    starts = ends - count
    pairs = np.empty((2, int(ends[-1])), dtype=np.int64)
    pairs[0] = np.repeat(counting[:n], count)
    shift = np.repeat(lists.start[cell] - starts, count)
    shift += counting[:pairs.shape[1]]
    np.take(lists.candidates, shift, out=pairs[1])
    lab = np.take(lists.features, pairs, axis=1)       # (5, 2, pairs): a third of the time of [:, pairs]
    distance = ciede2000_pairs(lab[0], lab[1], lab[2], lab[3], lab[4])
    best = np.minimum.reduceat(distance, starts)
    found = np.minimum.reduceat(np.where(distance == best[pairs[0]], pairs[1], len(lists.index)), starts)
    return lists.index[found], lists.rgb[found]


def _dither_searched(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Floyd-Steinberg by wavefronts, each step searched by the matcher (a class without candidate lists),
    on a copy of ``work`` padded with a column
    on each side and a row below, so every pixel spreads its error to four places without bounds checks
    (what lands in the padding is dropped); the additions reach each pixel in the same order as a scan."""
    height, width = work.shape[:2]
    stride = width + 2
    padded = np.zeros((height + 1, stride, 3))
    padded[:height, 1:width + 1] = work
    flat = padded.reshape(-1, 3)
    out = np.zeros((height + 1) * stride, dtype=np.uint8)
    emissive_flat, kept_flat = (np.pad(mask, ((0, 1), (1, 1))).ravel() for mask in (emissive, kept))
    masked = bool(emissive.any() or kept.any())
    ys_all = np.arange(height)
    for k in range(width + 2 * (height - 1)):
        lo, hi = max(0, (k - width + 2) // 2), min(height - 1, k // 2)
        ys = ys_all[lo:hi + 1]
        at = ys * (stride - 2) + (k + 1)             # (y, x = k - 2y) in the padded image
        value = np.clip(flat[at], 0, 255)
        if masked:
            fixed = kept_flat[at]
            found = np.zeros(len(ys), dtype=np.uint8)
            found[~fixed] = matcher.nearest(value[~fixed], emissive_flat[at][~fixed])
            error = value - matcher.rgb[found]
            error[fixed] = 0.0
        else:
            found = matcher.nearest_ordinary(value)
            error = value - matcher.rgb[found]
        out[at] = found
        flat[at + 1] += error * (7 / 16)
        flat[at + (stride - 1)] += error * (3 / 16)
        flat[at + stride] += error * (5 / 16)
        flat[at + (stride + 1)] += error * (1 / 16)
    return out.reshape(height + 1, stride)[:height, 1:width + 1]
