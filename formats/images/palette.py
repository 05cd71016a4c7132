"""The Quake, Quake II and Hexen II palettes, and conversion between palette indices and RGBA.

Indices ``FULLBRIGHT_START``..255 are drawn unlit by the engine (docs/dev/format-facts.md, "MDL", Palette), so
:func:`rgba_to_indices` maps ordinary pixels only onto 0..223 and pixels marked emissive only
onto 224..255.  Colours are matched by CIEDE2000 (CIELAB with D65 white, from sRGB): plain
CIELAB distance (CIE76) bends hues in the blue-purple region, so pure magenta went to blue 210
(19 19 223); CIEDE2000 picks pink 144 (187 115 159).  Models that are not players pass
``avoid=PLAYER_RANGES`` to keep new colours out of the ranges Quake recolours on players, and
``keep`` (the imported indices) leaves every unchanged pixel on its index.  The Quake palette
repeats some colours; within one class the lowest index holding a colour wins (0 over 48, 16 over
175, 32 over 223, 51-53 over 80-82, 111 over 192, 112 over 207, 141-143 over 157-159).  The one
repeat across classes, 76 = 247 (dark red), is settled by the mask.  So indices -> RGBA -> indices
without ``keep`` gives back every index except those shadowed repeats, which come back as an index
of the same colour; with ``keep`` every index.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import FormatError
from .colour_drift import VISIBLE_DIFFERENCE, ColourDrift
from .palette_cells import CELLS, cell_of, cell_table, class_key
from .pixel_words import shows_index

FULLBRIGHT_START = 224
TRANSPARENT_INDEX = 255   # Quake II: transparent on alpha-tested surfaces (docs/dev/format-facts.md, "MD2")
PALETTE_SIZE = 768
PALETTES = {"QUAKE": "quake_palette.tsv", "QUAKE2": "quake2_palette.tsv", "HEXEN2": "hexen2_palette.tsv"}
_CHUNK = 8192       # colours per search
_PAIRS = 8192       # (colour, entry) pairs per CIEDE2000 call: small enough to stay in cache
# Recoloured on players: shirt and pants (id-Software/Quake WinQuake/render.h TOP_RANGE, BOTTOM_RANGE;
# WinQuake/gl_rmisc.c R_TranslatePlayerSkin)
SHIRT_RANGE = (16, 32)
PANTS_RANGE = (96, 112)
PLAYER_RANGES = (SHIRT_RANGE, PANTS_RANGE)


@lru_cache(maxsize=None)
def _palette_table(name: str) -> np.ndarray:
    table_path = Path(__file__).with_name(PALETTES[name])
    table = np.loadtxt(table_path, comments="#", dtype=np.int64)
    if table.shape != (256, 4) or not np.array_equal(table[:, 0], np.arange(256)):
        raise FormatError(f"palette table has shape {table.shape}, expected 256 rows of index r g b",
                          filename=str(table_path))
    return table[:, 1:4].astype(np.uint8)


def game_palette(name: str) -> np.ndarray:
    """(256, 3) uint8 palette of ``name``: 'QUAKE' (palette.lmp), 'QUAKE2' (pics/colormap.pcx) or
    'HEXEN2' (gfx/palette.lmp)."""
    return _palette_table(name).copy()


def quake_palette() -> np.ndarray:
    """(256, 3) uint8: Quake's palette.lmp."""
    return game_palette("QUAKE")


def quake2_palette() -> np.ndarray:
    """(256, 3) uint8: Quake II's palette (pics/colormap.pcx)."""
    return game_palette("QUAKE2")


def load_palette_lmp(data: bytes) -> np.ndarray:
    """(256, 3) uint8 from a palette lump: exactly 768 bytes of r, g, b."""
    if len(data) != PALETTE_SIZE:
        raise FormatError(f"a palette lump is {PALETTE_SIZE} bytes, this one is {len(data)}",
                          field="palette", offset=min(len(data), PALETTE_SIZE))
    return np.frombuffer(bytes(data), dtype=np.uint8).reshape(256, 3).copy()


def _check_palette(palette: np.ndarray) -> np.ndarray:
    palette = np.asarray(palette)
    if palette.shape != (256, 3) or palette.dtype != np.uint8:
        raise FormatError(f"palette must be (256, 3) uint8, got {palette.dtype} {palette.shape}",
                          field="palette")
    return palette


def indices_to_rgba(indices: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """(h, w, 4) uint8, alpha 255, for (h, w) uint8 palette indices."""
    palette = _check_palette(palette)
    indices = np.asarray(indices)
    if indices.ndim != 2 or indices.dtype != np.uint8:
        raise FormatError(f"indices must be a 2-D uint8 array, got {indices.dtype} {indices.shape}",
                          field="indices")
    rgba = np.empty(indices.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = palette[indices]
    rgba[..., 3] = 255
    return rgba


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


_SRGB_TO_XYZ = np.array([[0.4124564, 0.2126729, 0.0193339],
                         [0.3575761, 0.7151522, 0.1191920],
                         [0.1804375, 0.0721750, 0.9503041]])
# rows per matrix product: OpenBLAS splits larger ones over threads that spin waiting for each other
_ROWS = 32768
_LINEAR = _srgb_to_linear(np.arange(256, dtype=np.float64) / 255.0)   # the same values for 8-bit inputs


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of (..., 3) sRGB values in 0..255, float64."""
    values = np.asarray(rgb, dtype=np.float64)
    whole = values.astype(np.uint8)
    if values.size > 3072 and np.array_equal(whole, values):     # 8-bit values: the curve from a table
        linear = _LINEAR[whole]
    else:
        linear = _srgb_to_linear(values / 255.0)
    rows = linear.reshape(-1, 3)
    xyz = np.empty_like(rows)
    for start in range(0, len(rows), _ROWS):    # small products: one BLAS thread, the same values
        xyz[start:start + _ROWS] = rows[start:start + _ROWS] @ _SRGB_TO_XYZ
    xyz = xyz.reshape(linear.shape) / np.array([0.95047, 1.0, 1.08883])
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1: np.ndarray, lab2: np.ndarray) -> np.ndarray:
    """CIEDE2000 colour difference (kL = kC = kH = 1) of CIELAB values, broadcast over leading axes.

    Sharma, Wu and Dalal, "The CIEDE2000 colour-difference formula: implementation notes,
    supplementary test data, and mathematical observations" (2005), equations 1-22 (T's cosines of
    multiples of the mean hue expanded from its cosine and sine)."""
    lab1, lab2 = np.asarray(lab1, np.float64), np.asarray(lab2, np.float64)
    return _ciede2000(lab1[..., 0], lab1[..., 1], lab1[..., 2], lab2[..., 0], lab2[..., 1], lab2[..., 2])


def _ciede2000(l1, a1, b1, l2, a2, b2) -> np.ndarray:
    """:func:`ciede2000` of the CIELAB components, each a float64 array (the same operations in the same
    order, so the same values)."""
    c_mean7 = _seventh((np.sqrt(a1 * a1 + b1 * b1) + np.sqrt(a2 * a2 + b2 * b2)) * 0.5)
    scale = 1.5 - 0.5 * np.sqrt(c_mean7 / (c_mean7 + _25_7))           # 1 + G
    a1, a2 = a1 * scale, a2 * scale
    c1, c2 = np.sqrt(a1 * a1 + b1 * b1), np.sqrt(a2 * a2 + b2 * b2)
    h1, h2 = np.arctan2(b1, a1), np.arctan2(b2, a2)
    h1, h2 = np.where(h1 < 0, h1 + _TAU, h1), np.where(h2 < 0, h2 + _TAU, h2)
    chroma_product = c1 * c2
    dh = h2 - h1
    dh = np.where(dh > np.pi, dh - _TAU, np.where(dh < -np.pi, dh + _TAU, dh))
    dh = np.where(chroma_product == 0, 0.0, dh)
    big_h = 2 * np.sqrt(chroma_product) * np.sin(dh * 0.5)
    h_sum = h1 + h2
    h_mean = np.where(chroma_product == 0, h_sum,
                      np.where(np.abs(h1 - h2) <= np.pi, h_sum * 0.5,
                               np.where(h_sum < _TAU, h_sum * 0.5 + np.pi, h_sum * 0.5 - np.pi)))
    cos1, sin1 = np.cos(h_mean), np.sin(h_mean)
    cos2, sin2 = cos1 * cos1 - sin1 * sin1, 2 * sin1 * cos1
    cos3, sin3 = cos2 * cos1 - sin2 * sin1, sin2 * cos1 + cos2 * sin1
    cos4, sin4 = cos2 * cos2 - sin2 * sin2, 2 * sin2 * cos2
    t = (1 - 0.17 * (cos1 * _COS30 + sin1 * _SIN30) + 0.24 * cos2
         + 0.32 * (cos3 * _COS6 - sin3 * _SIN6) - 0.20 * (cos4 * _COS63 + sin4 * _SIN63))
    d_theta = np.exp(-np.square((h_mean * (180 / np.pi) - 275) / 25)) * (np.pi / 3)     # 2 x (30 deg x ...)
    c_mean = (c1 + c2) * 0.5
    c_mean7 = _seventh(c_mean)
    r_t = -np.sin(d_theta) * 2 * np.sqrt(c_mean7 / (c_mean7 + _25_7))
    l_mean = (l1 + l2) * 0.5 - 50
    l_mean *= l_mean
    s_l = 1 + 0.015 * l_mean / np.sqrt(20 + l_mean)
    dl, dc, dh_term = (l2 - l1) / s_l, (c2 - c1) / (1 + 0.045 * c_mean), big_h / (1 + 0.015 * c_mean * t)
    return np.sqrt(np.maximum(dl * dl + dc * dc + dh_term * dh_term + r_t * dc * dh_term, 0.0))


def measure_drift(colours: np.ndarray, palette: np.ndarray, found: np.ndarray, counts: np.ndarray) -> ColourDrift:
    """The :class:`.colour_drift.ColourDrift` of distinct sRGB ``colours`` (n, 3) written as palette
    indices ``found`` (n,), each standing for ``counts`` pixels."""
    if not len(colours):
        return ColourDrift()
    palette = _check_palette(palette)
    difference = ciede2000(srgb_to_lab(colours), srgb_to_lab(palette[found]))
    far = difference > VISIBLE_DIFFERENCE
    if not far.any():
        return ColourDrift()
    worst = int(np.argmax(difference))
    return ColourDrift(int(counts[far].sum()), tuple(int(c) for c in colours[worst]), int(found[worst]),
                       tuple(int(c) for c in palette[found[worst]]), float(difference[worst]))


def _seventh(x: np.ndarray) -> np.ndarray:
    square = x * x
    return square * square * square * x


_TAU, _25_7 = 2 * np.pi, 25.0 ** 7
_COS30, _SIN30 = np.cos(np.radians(30)), np.sin(np.radians(30))
_COS6, _SIN6 = np.cos(np.radians(6)), np.sin(np.radians(6))
_COS63, _SIN63 = np.cos(np.radians(63)), np.sin(np.radians(63))


# dE00 >= |dL| / S_L: the chroma-hue part is a quadratic form x^2 + y^2 + R_T xy with |R_T| < sqrt(3) < 2,
# never negative; S_L <= 1 + 0.015 * 50^2 / sqrt(20 + 50^2) for lightness within 0..100.
_MAX_S_L = 1 + 0.015 * 2500 / np.sqrt(2520) + 1e-9


_GRID = CELLS       # cells per RGB axis of the guess grid (cells of 16 x 16 x 16 values)
# A colour whose two nearest listed entries are closer than this is searched in full: the lists are exact
# for 8-bit colours, and the rare fractional colour (dithering) that a list misses lies at a near-tie of
# its entries (`python tools/palette_cells.py --misses N` counts them and their gaps: 0.001-0.0074 in 4 million
# random fractional colours a class, docs/dev/benchmarks.md).
_NEAR_TIE = 0.02


class _Entries:
    """One class's distinct entries (the lowest index holding a colour): palette indices, CIELAB (rows and
    contiguous columns), the lightness order, and the guess grid: for each RGB cell, the CIEDE2000-nearest
    entry of its centre, found the first time a colour falls in the cell (-1 until then).  ``cells``: the
    class's candidate lists (:mod:`.palette_cells`) as (offsets, positions in the class), or None (no
    table for this class, or ``use_cells`` False): then every colour is searched in full."""

    def __init__(self, palette: np.ndarray, allowed, use_cells: bool = True) -> None:
        allowed = np.asarray(allowed, dtype=np.int64)
        _, first = np.unique(palette[allowed], axis=0, return_index=True)
        self.index = allowed[np.sort(first)]
        table = cell_table(class_key(palette, self.index)) if use_cells and len(self.index) else None
        if table is not None:
            position = np.zeros(256, dtype=np.int64)
            position[self.index] = np.arange(len(self.index))
            table = table[0], position[table[1]]
        self.cells = table
        self.lab = srgb_to_lab(palette[self.index])
        self.l, self.a, self.b = (np.ascontiguousarray(self.lab[:, i]) for i in range(3))
        self.norm = (self.lab ** 2).sum(axis=1)
        self.order = np.argsort(self.l, kind="stable")
        self.sorted_l = self.l[self.order]
        self.guess = np.full(_GRID ** 3, -1, dtype=np.int64)

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
            self.guess[missing] = _search(self, lab, self.cie76_nearest(lab))
        return self.guess[cells]


class _Matcher:
    """Nearest palette index per class by CIEDE2000, searching each class's distinct colours (the
    lowest index holding a colour wins).

    Exact and pruned: the entry nearest to the centre of the colour's RGB cell gives an upper bound ``u``
    on the best CIEDE2000 distance, and an entry with |dL| / S_L > ``u`` cannot beat it (the bound above
    ``_MAX_S_L``), so each colour is compared only with the entries in its own lightness window.
    """

    def __init__(self, palette: np.ndarray, classes, use_cells: bool = True) -> None:
        self.rgb = palette.astype(np.float64)
        self.classes = [_Entries(palette, allowed, use_cells) for allowed in classes]

    def nearest(self, rgb: np.ndarray, emissive: np.ndarray) -> np.ndarray:
        """uint8 indices for (n, 3) float colours in 0..255; ``emissive`` (n,) bool picks the class."""
        rgb = np.asarray(rgb, dtype=np.float64)
        lab = srgb_to_lab(rgb)
        cell = cell_of(rgb)
        fractional = (rgb != np.rint(rgb)).any(axis=1)
        out = np.empty(len(rgb), dtype=np.uint8)
        for entries, members in zip(self.classes, (~emissive, emissive)):
            rows = np.flatnonzero(members)
            if len(rows) and not len(entries.index):
                raise FormatError("no palette entries for these pixels", field="palette")
            for start in range(0, len(rows), _CHUNK):
                part = rows[start:start + _CHUNK]
                out[part] = self._class_nearest(entries, lab[part], cell[part], fractional[part])
        return out

    def nearest_ordinary(self, rgb: np.ndarray) -> np.ndarray:
        """:meth:`nearest` of a few colours all in the first class (the dithering's steps)."""
        if not len(self.classes[0].index):
            raise FormatError("no palette entries for these pixels", field="palette")
        fractional = (rgb != np.rint(rgb)).any(axis=1)
        return self._class_nearest(self.classes[0], srgb_to_lab(rgb), cell_of(rgb), fractional)

    @staticmethod
    def _class_nearest(entries: _Entries, lab: np.ndarray, cell: np.ndarray, fractional: np.ndarray) -> np.ndarray:
        if entries.cells is not None:
            return entries.index[_search_cells(entries, lab, cell, fractional)]
        return entries.index[_search(entries, lab, entries.guesses(cell))]


def _search_cells(entries: _Entries, colours: np.ndarray, cell: np.ndarray, fractional: np.ndarray) -> np.ndarray:
    """Positions in the class of the CIEDE2000-nearest entries of CIELAB ``colours`` (n, 3) in RGB cells
    ``cell`` (n,), comparing each colour only with its cell's candidate list (:mod:`.palette_cells`);
    ``fractional`` (n,) bool, colours not on 8-bit values, are searched in full at a near-tie."""
    offsets, candidates = entries.cells
    lo = offsets[cell]
    counts = offsets[cell + 1] - lo
    colour_of = np.repeat(np.arange(len(colours)), counts)
    entry = candidates[np.arange(len(colour_of)) + np.repeat(lo - (np.cumsum(counts) - counts), counts)]
    found, best, close = _nearest_pairs(entries, colours, colour_of, entry, near_tie=_NEAR_TIE)
    close &= fractional
    if close.any():
        found[close] = _search(entries, colours[close], found[close], best[close])
    return found


def _nearest_pairs(entries: _Entries, colours: np.ndarray, colour_of: np.ndarray, entry: np.ndarray,
                   near_tie: float | None = None):
    """For (colour, entry) pairs grouped by colour (``colour_of`` ascending, every colour present), each
    colour's CIEDE2000-nearest entry position, ties to the lowest position; with ``near_tie``, also its
    distance and (n,) bool: the colour's second nearest pair is within ``near_tie`` of its nearest."""
    cl, ca, cb = colours[:, 0], colours[:, 1], colours[:, 2]
    starts = np.concatenate(([0], np.cumsum(np.bincount(colour_of, minlength=len(colours)))[:-1]))
    distance = np.empty(len(entry))
    for i in range(0, len(entry), _PAIRS):
        c, e = colour_of[i:i + _PAIRS], entry[i:i + _PAIRS]
        distance[i:i + _PAIRS] = _ciede2000(cl[c], ca[c], cb[c], entries.l[e], entries.a[e], entries.b[e])
    best = np.minimum.reduceat(distance, starts)
    tied = np.where(distance == best[colour_of], entry, len(entries.index))   # ties go to the lowest index
    found = np.minimum.reduceat(tied, starts)
    if near_tie is None:
        return found
    distance[entry == found[colour_of]] = np.inf
    return found, best, np.minimum.reduceat(distance, starts) - best < near_tie


def _search(entries: _Entries, colours: np.ndarray, first: np.ndarray, distance: np.ndarray | None = None) -> np.ndarray:
    """Positions in the class of the CIEDE2000-nearest entries of CIELAB ``colours`` (n, 3), given an entry
    ``first`` (n,) for each (and its ``distance``, when known): the distance to it bounds the search to the
    entries in the colour's lightness window, all (colour, entry) pairs flattened into one array."""
    cl, ca, cb = (np.ascontiguousarray(colours[:, i]) for i in range(3))
    if distance is None:
        distance = _ciede2000(cl, ca, cb, entries.l[first], entries.a[first], entries.b[first])
    bound = distance + 1e-9
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
    return _nearest_pairs(entries, colours, colour_of[near], entry[near])


def rgba_to_indices(rgba: np.ndarray, palette: np.ndarray, emissive_mask: np.ndarray | None = None,
                    dither: bool = False, ordinary: tuple[int, int] = (0, FULLBRIGHT_START),
                    avoid: tuple[tuple[int, int], ...] = (), keep: np.ndarray | None = None) -> np.ndarray:
    """(h, w) uint8 palette indices for an (h, w, 3 or 4) image with values 0..255 (alpha ignored);
    :func:`match_palette` without its report."""
    return match_palette(rgba, palette, emissive_mask, dither, ordinary, avoid, keep)[0]


def match_palette(rgba: np.ndarray, palette: np.ndarray, emissive_mask: np.ndarray | None = None,
                  dither: bool = False, ordinary: tuple[int, int] = (0, FULLBRIGHT_START),
                  avoid: tuple[tuple[int, int], ...] = (), keep: np.ndarray | None = None,
                  skip: np.ndarray | None = None) -> tuple[np.ndarray, ColourDrift]:
    """(h, w) uint8 palette indices for an (h, w, 3 or 4) image with values 0..255 (alpha ignored),
    and how far the matched pixels' colours moved (:class:`.colour_drift.ColourDrift`).

    Pixels where ``emissive_mask`` is True get an index in 224..255, all others one in 0..223
    (``ordinary`` = (lo, hi) sets that range instead; Quake II uses (0, 255) and no mask), never
    one in the ``avoid`` ranges ((lo, hi) pairs, e.g. :data:`PLAYER_RANGES`).  ``keep`` (h, w)
    uint8, the indices the image was decoded from: a pixel still showing its kept index's colour,
    in the class the mask gives it (or the ``ordinary`` range), keeps that index (even inside ``avoid``).
    Colours are matched by CIEDE2000 (:func:`ciede2000`).
    With ``dither``, Floyd-Steinberg error diffusion (7/16 right, 3/16 down-left, 5/16 down,
    1/16 down-right, in sRGB units, on values clipped to 0..255); kept pixels neither take nor
    spread error.  A pixel depends only on its
    left neighbour and the three above it, so all pixels on a line x + 2y = k are independent:
    the image is swept in w + 2h such wavefronts, each matched in one vectorised step, which
    gives exactly the result of the usual pixel-by-pixel scan.  An image made only of palette
    colours has zero error everywhere, so dithering leaves it unchanged.
    ``skip`` (h, w) bool: pixels the caller decides (Quake II's transparent ones): not matched, come out
    0, neither take nor spread error.  The drift counts the matched pixels outside the mask (kept and
    skipped ones did not change; masked ones have their own report), each against the nearest colour
    it may take (with dithering too: the colour, not the dither pattern, is what moved).
    """
    palette = _check_palette(palette)
    image = np.asarray(rgba)
    if image.ndim != 3 or image.shape[2] not in (3, 4):
        raise FormatError(f"image must be (h, w, 3 or 4), got {image.shape}", field="rgba")
    height, width = image.shape[:2]
    if emissive_mask is None:
        emissive = np.zeros((height, width), dtype=bool)
    else:
        emissive = np.asarray(emissive_mask, dtype=bool)
        if emissive.shape != (height, width):
            raise FormatError(f"emissive_mask is {emissive.shape}, image is {(height, width)}",
                              field="emissive_mask")
    allowed = np.arange(*ordinary)
    for lo, hi in avoid:
        allowed = allowed[(allowed < lo) | (allowed >= hi)]
    matcher = _Matcher(palette, (allowed, np.arange(FULLBRIGHT_START, 256)))
    rgb = image[..., :3]
    kept = _kept_pixels(rgb, palette, emissive, keep, ordinary)
    fixed = kept if skip is None else kept | np.asarray(skip, dtype=bool)
    out, colours, found, counts = _match_distinct(matcher, rgb, emissive, ~fixed)
    if dither:
        out = _dither(matcher, rgb.astype(np.float64), emissive, fixed)
        out[fixed] = 0
    if keep is not None:
        out[kept] = np.asarray(keep)[kept]
    ordinary_colours = ~colours[:, 3].astype(bool)
    drift = measure_drift(colours[ordinary_colours, :3], palette, found[ordinary_colours], counts[ordinary_colours])
    return out, drift


def _kept_pixels(rgb: np.ndarray, palette: np.ndarray, emissive: np.ndarray, keep, ordinary) -> np.ndarray:
    """Pixels whose ``keep`` index still shows their colour and lies in their class (224-255 where
    emissive, the ``ordinary`` range elsewhere)."""
    if keep is None:
        return np.zeros(emissive.shape, dtype=bool)
    keep = np.asarray(keep)
    if keep.shape != emissive.shape or keep.dtype != np.uint8:
        raise FormatError(f"keep must be {emissive.shape} uint8, got {keep.dtype} {keep.shape}", field="keep")
    if rgb.dtype == np.uint8:
        same = shows_index(rgb, keep, palette)
    else:
        same = np.all(palette[keep] == np.clip(np.rint(rgb), 0, 255), axis=-1)
    return same & np.where(emissive, keep >= FULLBRIGHT_START, (keep >= ordinary[0]) & (keep < ordinary[1]))


def packed_colours(rgb: np.ndarray) -> np.ndarray:
    """(...) int32 ``r << 16 | g << 8 | b`` of (..., 3 or more) uint8 colours: equal exactly where
    the colours are."""
    rgb = np.asarray(rgb)
    out = rgb[..., 0].astype(np.int32)
    out <<= 8
    out |= rgb[..., 1]
    out <<= 8
    out |= rgb[..., 2]
    return out


def _rounded(rgb: np.ndarray) -> np.ndarray:
    """Colour values rounded and clipped to 0..255 (as float64); uint8 values (an image read from
    Blender) already are, and are returned as they are (the same numbers, without a float copy)."""
    rgb = np.asarray(rgb)
    if rgb.dtype == np.uint8:
        return rgb
    return np.clip(np.rint(rgb.astype(np.float64)), 0, 255)


def _match_distinct(matcher: _Matcher, rgb: np.ndarray, emissive: np.ndarray, todo: np.ndarray):
    """Match each distinct (colour, class) of the ``todo`` pixels once (others are left 0): the
    indices, the distinct (r, g, b, emissive) values, the index found for each and its pixel count."""
    values = _rounded(rgb[todo]).astype(np.int64)              # only the pixels to match
    keys = (values[..., 0] << 16 | values[..., 1] << 8 | values[..., 2]) | (emissive[todo].astype(np.int64) << 24)
    out = np.zeros(todo.shape, dtype=np.uint8)
    unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    colours = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255, unique >> 24], axis=1)
    found = matcher.nearest(colours[:, :3].astype(np.float64), colours[:, 3].astype(bool))
    out[todo] = found[inverse.ravel()]
    return out, colours, found, counts


def _dither(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Floyd-Steinberg by wavefronts (see :func:`match_palette`) on a copy of ``work`` padded with a column
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
