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

from functools import cache
from pathlib import Path

import numpy as np

from ..errors import FormatError
from .cielab import ciede2000, srgb_to_lab
from .colour_drift import VISIBLE_DIFFERENCE, ColourDrift
from .dither import dither as _dither
from .palette_search import _Matcher
from .pixel_words import shows_index

FULLBRIGHT_START = 224
TRANSPARENT_INDEX = 255   # Quake II: transparent on alpha-tested surfaces (docs/dev/format-facts.md, "MD2")
PALETTE_SIZE = 768
PALETTES = {"QUAKE": "quake_palette.tsv", "QUAKE2": "quake2_palette.tsv", "HEXEN2": "hexen2_palette.tsv"}
# Recoloured on players: shirt and pants (id-Software/Quake WinQuake/render.h TOP_RANGE, BOTTOM_RANGE;
# WinQuake/gl_rmisc.c R_TranslatePlayerSkin)
SHIRT_RANGE = (16, 32)
PANTS_RANGE = (96, 112)
PLAYER_RANGES = (SHIRT_RANGE, PANTS_RANGE)


@cache
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


def _rgb(colour: np.ndarray) -> tuple[int, int, int]:
    r, g, b = (int(c) for c in colour)
    return r, g, b


def measure_drift(colours: np.ndarray, palette: np.ndarray, found: np.ndarray, counts: np.ndarray,
                  difference: np.ndarray | None = None) -> ColourDrift:
    """The :class:`.colour_drift.ColourDrift` of distinct sRGB ``colours`` (n, 3) written as palette
    indices ``found`` (n,), each standing for ``counts`` pixels (``difference``: the CIEDE2000 distances
    of the colours to those indices, when the matching already has them)."""
    if not len(colours):
        return ColourDrift()
    palette = _check_palette(palette)
    if difference is None:
        difference = ciede2000(srgb_to_lab(colours), srgb_to_lab(palette[found]))
    far = difference > VISIBLE_DIFFERENCE
    if not far.any():
        return ColourDrift()
    worst = int(np.argmax(difference))
    return ColourDrift(int(counts[far].sum()), _rgb(colours[worst]), int(found[worst]),
                       _rgb(palette[found[worst]]), float(difference[worst]))


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
    1/16 down-right, in sRGB units, on values clipped to 0..255), each pixel matched as its value
    rounded to whole numbers (:mod:`.dither`); kept pixels neither take nor
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
    out, colours, found, counts, difference = _match_distinct(matcher, rgb, emissive, ~fixed, indices=not dither)
    if dither:
        out = _dither(matcher, rgb.astype(np.float64), emissive, fixed)
        out[fixed] = 0
    if keep is not None:
        out[kept] = np.asarray(keep)[kept]
    ordinary_colours = ~colours[:, 3].astype(bool)
    drift = measure_drift(colours[ordinary_colours, :3], palette, found[ordinary_colours], counts[ordinary_colours],
                          difference[ordinary_colours])
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


def _rounded(rgb: np.ndarray) -> np.ndarray:
    """Colour values rounded and clipped to 0..255 (as float64); uint8 values (an image read from
    Blender) already are, and are returned as they are (the same numbers, without a float copy)."""
    rgb = np.asarray(rgb)
    if rgb.dtype == np.uint8:
        return rgb
    return np.clip(np.rint(rgb.astype(np.float64)), 0, 255)


def _match_distinct(matcher: _Matcher, rgb: np.ndarray, emissive: np.ndarray, todo: np.ndarray,
                    indices: bool = True):
    """Match each distinct (colour, class) of the ``todo`` pixels once (others are left 0): the
    indices (None without ``indices``: a dithered skin needs only the rest, for its drift report), the
    distinct (r, g, b, emissive) values, the index found for each, its pixel count and the CIEDE2000
    distance to the index."""
    values = _rounded(rgb[todo]).astype(np.int64)              # only the pixels to match
    keys = (values[..., 0] << 16 | values[..., 1] << 8 | values[..., 2]) | (emissive[todo].astype(np.int64) << 24)
    if indices:
        unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    else:
        unique, counts = np.unique(keys, return_counts=True)
    colours = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255, unique >> 24], axis=1)
    difference = np.empty(len(colours))
    found = matcher.nearest(colours[:, :3].astype(np.float64), colours[:, 3].astype(bool), difference)
    if not indices:
        return None, colours, found, counts, difference
    out = np.zeros(todo.shape, dtype=np.uint8)
    out[todo] = found[inverse.ravel()]
    return out, colours, found, counts, difference
