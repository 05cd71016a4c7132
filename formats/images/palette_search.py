"""The exact CIEDE2000 nearest palette entry of colours, per class of entries (:mod:`.palette`): looked up in
the class's table of every 8-bit colour (:mod:`.palette_lut`) where it has one, else by a search pruned by
lightness."""
from __future__ import annotations

import numpy as np

from ..errors import FormatError
from .cielab import _MAX_S_L, _ciede2000, ciede2000_pairs, pair_features, srgb_to_lab
from .palette_lut import class_key, class_table, colour_keys

_CHUNK = 8192       # colours per search
_PAIRS = 8192       # (colour, entry) pairs per CIEDE2000 call: small enough to stay in cache
_GRID = 16          # cells per RGB axis of the guess grid (cells of 16 x 16 x 16 values)


def cell_of(rgb: np.ndarray) -> np.ndarray:
    """The guess grid's cell of (n, 3) sRGB values in 0..255 (int or float)."""
    side = 256 // _GRID
    cell = np.minimum(np.asarray(rgb, np.float64) // side, _GRID - 1).astype(np.int64)
    return (cell[:, 0] * _GRID + cell[:, 1]) * _GRID + cell[:, 2]


class _Entries:
    """One class's distinct entries (the lowest index holding a colour): palette indices, their positions
    (``position``: the position in the class of each palette index), CIELAB (rows and contiguous columns),
    the lightness order, and the guess grid: for each RGB cell, the CIEDE2000-nearest entry of its centre,
    found the first time a colour falls in the cell (-1 until then).  ``lut``: the class's table of every
    8-bit colour's nearest palette index (:mod:`.palette_lut`), or None (no table for this class, or
    ``use_lut`` False): then every colour is searched in full; so is a colour that is not whole or not
    within 0..255."""

    def __init__(self, palette: np.ndarray, allowed, use_lut: bool = True) -> None:
        allowed = np.asarray(allowed, dtype=np.int64)
        _, first = np.unique(palette[allowed], axis=0, return_index=True)
        self.index = allowed[np.sort(first)]
        self._key = class_key(palette, self.index) if use_lut and len(self.index) else None
        self.position = np.zeros(256, dtype=np.int64)
        self.position[self.index] = np.arange(len(self.index))
        self.lab = srgb_to_lab(palette[self.index])
        self.l, self.a, self.b = (np.ascontiguousarray(self.lab[:, i]) for i in range(3))
        self.features = pair_features(self.lab)
        self.norm = (self.lab ** 2).sum(axis=1)
        self.order = np.argsort(self.l, kind="stable")
        self.sorted_l = self.l[self.order]
        self.guess = np.full(_GRID ** 3, -1, dtype=np.int64)

    @property
    def lut(self) -> np.ndarray | None:
        """The class's table, unpacked the first time a class of these entries is used (:mod:`.palette_lut`)."""
        return class_table(self._key) if self._key is not None else None

    def cie76_nearest(self, lab: np.ndarray) -> np.ndarray:
        return np.argmin(self.norm - 2.0 * (lab @ self.lab.T), axis=1)

    def guesses(self, cells: np.ndarray) -> np.ndarray:
        """The guess grid's entries for ``cells``, searching the cells not yet seen (their centres)."""
        unseen = self.guess[cells] < 0
        if unseen.any():
            missing = np.unique(cells[unseen])
            side = 256 // _GRID
            centres = np.stack([missing // (_GRID * _GRID), missing // _GRID % _GRID, missing % _GRID], axis=1)
            lab = srgb_to_lab(centres * side + (side - 1) / 2)
            self.guess[missing] = _search(self, lab, self.cie76_nearest(lab))[0]
        return self.guess[cells]


class _Matcher:
    """Nearest palette index per class by CIEDE2000 among each class's distinct colours (the lowest index
    holding a colour wins): whole colours looked up in the class's table, when it has one; else searched.

    The search is exact and pruned: the entry nearest to the centre of the colour's RGB cell gives an upper bound ``u``
    on the best CIEDE2000 distance, and an entry with |dL| / S_L > ``u`` cannot beat it (the bound above
    ``_MAX_S_L``), so each colour is compared only with the entries in its own lightness window.
    """

    def __init__(self, palette: np.ndarray, classes, use_lut: bool = True) -> None:
        self.rgb = palette.astype(np.float64)
        self.classes = [_Entries(palette, allowed, use_lut) for allowed in classes]

    def nearest(self, rgb: np.ndarray, emissive: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
        """uint8 indices for (n, 3) float colours in 0..255; ``emissive`` (n,) bool picks the class; the
        CIEDE2000 distances to them go into ``distance`` (n,) when given.  Whole colours of a class with a
        table are looked up in it; others are searched."""
        rgb = np.asarray(rgb, dtype=np.float64)
        out = np.empty(len(rgb), dtype=np.uint8)
        for entries, members in zip(self.classes, (~emissive, emissive)):
            rows = np.flatnonzero(members)
            if not len(rows):
                continue
            if not len(entries.index):
                raise FormatError("no palette entries for these pixels", field="palette")
            colours = rgb[rows]
            table = entries.lut
            if table is not None and _whole_bytes(colours):
                out[rows] = table[colour_keys(colours)]
                if distance is not None:
                    features, position = pair_features(srgb_to_lab(colours)), entries.position[out[rows]]
                    distance[rows] = _pair_distances(entries, features, np.arange(len(rows)), position)
                continue
            lab = srgb_to_lab(colours)
            for start in range(0, len(rows), _CHUNK):
                part = slice(start, start + _CHUNK)
                found, best = _search(entries, lab[part], entries.guesses(cell_of(colours[part])))
                out[rows[part]] = entries.index[found]
                if distance is not None:
                    distance[rows[part]] = best
        return out


def _whole_bytes(colours: np.ndarray) -> bool:
    """Whether every value is a whole number in 0..255 (what a table covers; NaN is not)."""
    return bool(np.array_equal(np.floor(colours), colours) and colours.min() >= 0 and colours.max() <= 255)


def _nearest_pairs(entries: _Entries, colours: np.ndarray, colour_of: np.ndarray,
                   entry: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For (colour, entry) pairs grouped by colour (``colour_of`` ascending, every colour present), each
    colour's CIEDE2000-nearest entry position, ties to the lowest position, and the distance to it."""
    starts = np.concatenate(([0], np.cumsum(np.bincount(colour_of, minlength=len(colours)))[:-1]))
    distance = _pair_distances(entries, pair_features(colours), colour_of, entry)
    best = np.minimum.reduceat(distance, starts)
    tied = np.where(distance == best[colour_of], entry, len(entries.index))   # ties go to the lowest index
    return np.minimum.reduceat(tied, starts), best


def _pair_distances(entries: _Entries, features: np.ndarray, colour_of: np.ndarray, entry: np.ndarray) -> np.ndarray:
    """CIEDE2000 of each (colour, entry) pair: ``features`` the colours' :func:`.cielab.pair_features`."""
    distance = np.empty(len(entry))
    for i in range(0, len(entry), _PAIRS):
        c, e = colour_of[i:i + _PAIRS], entry[i:i + _PAIRS]
        lab = np.empty((5, 2, len(c)))
        lab[:, 0] = np.take(features, c, axis=1)
        lab[:, 1] = np.take(entries.features, e, axis=1)
        distance[i:i + _PAIRS] = ciede2000_pairs(*lab)
    return distance


def _search(entries: _Entries, colours: np.ndarray, first: np.ndarray,
            distance: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Positions in the class of the CIEDE2000-nearest entries of CIELAB ``colours`` (n, 3), given an entry
    ``first`` (n,) for each (and its ``distance``, when known): the distance to it bounds the search to the
    entries in the colour's lightness window, all (colour, entry) pairs flattened into one array; and
    the distances to them."""
    colour_of, entry = _window(entries, colours, first, distance)
    return _nearest_pairs(entries, colours, colour_of, entry)


def _window(entries: _Entries, colours: np.ndarray, first: np.ndarray, distance: np.ndarray | None = None,
            margin: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(colour, entry position) pairs, grouped by colour, of every entry that may lie within ``margin`` of
    the nearest entry of CIELAB ``colours`` (n, 3): the entries whose lightness difference alone does not
    put them further than the distance to ``first`` (n,) (``distance``, when known) plus ``margin``."""
    cl, ca, cb = (np.ascontiguousarray(colours[:, i]) for i in range(3))
    if distance is None:
        distance = _ciede2000(cl, ca, cb, entries.l[first], entries.a[first], entries.b[first])
    bound = distance + (margin + 1e-9)
    reach = bound * _MAX_S_L
    lo = np.searchsorted(entries.sorted_l, cl - reach, side="left")
    counts = np.searchsorted(entries.sorted_l, cl + reach, side="right") - lo
    colour_of = np.repeat(np.arange(len(colours)), counts)
    entry = entries.order[np.arange(len(colour_of)) + np.repeat(lo - (np.cumsum(counts) - counts), counts)]
    # the same bound with each pair's own S_L: drops most pairs before the full formula
    l1, l2 = cl[colour_of], entries.l[entry]
    l_mean = (l1 + l2) / 2 - 50
    l_mean *= l_mean
    near = np.abs(l2 - l1) <= bound[colour_of] * (1 + 0.015 * l_mean / np.sqrt(20 + l_mean))
    near[entry == first[colour_of]] = True
    return colour_of[near], entry[near]
