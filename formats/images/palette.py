"""The Quake, Quake II and Hexen II palettes, and conversion between palette indices and RGBA.

Indices ``FULLBRIGHT_START``..255 are drawn unlit by the engine (format-notes.md, MDL), so
:func:`rgba_to_indices` maps ordinary pixels only onto 0..223 and pixels marked emissive only
onto 224..255.  Colours are matched by Euclidean distance in CIELAB (CIE76, D65 white, from
sRGB).  The Quake palette repeats some colours; within one class the lowest index holding a
colour wins (0 over 48, 16 over 175, 32 over 223, 51-53 over 80-82, 111 over 192, 112 over 207,
141-143 over 157-159).  The one repeat across classes, 76 = 247 (dark red), is settled by the
mask.  So indices -> RGBA -> indices gives back every index except those shadowed repeats, which
come back as an index of the same colour.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import FormatError

FULLBRIGHT_START = 224
TRANSPARENT_INDEX = 255   # Quake II: transparent on alpha-tested surfaces (format-notes "MD2 skins")
PALETTE_SIZE = 768
PALETTES = {"QUAKE": "quake_palette.tsv", "QUAKE2": "quake2_palette.tsv", "HEXEN2": "hexen2_palette.tsv"}
_CHUNK = 4096


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


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of (..., 3) sRGB values in 0..255, float64."""
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array([[0.4124564, 0.2126729, 0.0193339],
                             [0.3575761, 0.7151522, 0.1191920],
                             [0.1804375, 0.0721750, 0.9503041]])
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


class _Matcher:
    """Nearest palette index per class, searching each class's distinct colours (first index wins).

    The squared distance drops the pixel's own |lab|^2 (the same for every candidate); rounding
    in the expansion is ~1e-12, far below the gap between any two distinct palette colours.
    """

    def __init__(self, palette: np.ndarray, ranges=((0, FULLBRIGHT_START), (FULLBRIGHT_START, 256))) -> None:
        self.rgb = palette.astype(np.float64)
        self.classes = []
        for lo, hi in ranges:
            _, first = np.unique(palette[lo:hi], axis=0, return_index=True)
            index = np.sort(first) + lo
            lab = srgb_to_lab(palette[index])
            self.classes.append((index, lab, (lab ** 2).sum(axis=1)))

    def nearest(self, rgb: np.ndarray, emissive: np.ndarray) -> np.ndarray:
        """uint8 indices for (n, 3) float colours; ``emissive`` (n,) bool picks the class."""
        lab = srgb_to_lab(rgb)
        out = np.empty(len(rgb), dtype=np.uint8)
        for (index, pal_lab, pal_norm), members in zip(self.classes, (~emissive, emissive)):
            rows = np.flatnonzero(members)
            for start in range(0, len(rows), _CHUNK):
                part = rows[start:start + _CHUNK]
                if not len(index):
                    raise FormatError("no palette entries for these pixels", field="palette")
                score = pal_norm - 2.0 * (lab[part] @ pal_lab.T)
                out[part] = index[np.argmin(score, axis=1)]
        return out


def rgba_to_indices(rgba: np.ndarray, palette: np.ndarray, emissive_mask: np.ndarray | None = None,
                    dither: bool = False, ordinary: tuple[int, int] = (0, FULLBRIGHT_START)) -> np.ndarray:
    """(h, w) uint8 palette indices for an (h, w, 3 or 4) image with values 0..255 (alpha ignored).

    Pixels where ``emissive_mask`` is True get an index in 224..255, all others one in 0..223
    (``ordinary`` = (lo, hi) sets that range instead; Quake II uses (0, 255) and no mask).
    With ``dither``, Floyd-Steinberg error diffusion (7/16 right, 3/16 down-left, 5/16 down,
    1/16 down-right, in sRGB units, on values clipped to 0..255).  A pixel depends only on its
    left neighbour and the three above it, so all pixels on a line x + 2y = k are independent:
    the image is swept in w + 2h such wavefronts, each matched in one vectorised step, which
    gives exactly the result of the usual pixel-by-pixel scan.  An image made only of palette
    colours has zero error everywhere, so dithering leaves it unchanged.
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
    matcher = _Matcher(palette, (ordinary, (FULLBRIGHT_START, 256)))
    rgb = image[..., :3]
    if not dither:
        return _match_distinct(matcher, rgb, emissive)
    return _dither(matcher, rgb.astype(np.float64), emissive)


def _match_distinct(matcher: _Matcher, rgb: np.ndarray, emissive: np.ndarray) -> np.ndarray:
    """Match each distinct (colour, class) once."""
    values = np.clip(np.rint(rgb.astype(np.float64)), 0, 255).astype(np.int64)
    keys = (values[..., 0] << 16 | values[..., 1] << 8 | values[..., 2]) | (emissive.astype(np.int64) << 24)
    unique, inverse = np.unique(keys.ravel(), return_inverse=True)
    colours = np.stack([(unique >> 16) & 255, (unique >> 8) & 255, unique & 255], axis=1).astype(np.float64)
    found = matcher.nearest(colours, (unique >> 24).astype(bool))
    return found[inverse].reshape(keys.shape)


def _dither(matcher: _Matcher, work: np.ndarray, emissive: np.ndarray) -> np.ndarray:
    height, width = work.shape[:2]
    out = np.empty((height, width), dtype=np.uint8)
    ys_all = np.arange(height)
    for k in range(width + 2 * (height - 1)):
        lo, hi = max(0, (k - width + 2) // 2), min(height - 1, k // 2)
        ys = ys_all[lo:hi + 1]
        xs = k - 2 * ys
        value = np.clip(work[ys, xs], 0, 255)
        found = matcher.nearest(value, emissive[ys, xs])
        out[ys, xs] = found
        error = value - matcher.rgb[found]
        right = xs + 1 < width
        work[ys[right], xs[right] + 1] += error[right] * (7 / 16)
        below = ys + 1 < height
        left = below & (xs > 0)
        work[ys[left] + 1, xs[left] - 1] += error[left] * (3 / 16)
        work[ys[below] + 1, xs[below]] += error[below] * (5 / 16)
        down_right = below & right
        work[ys[down_right] + 1, xs[down_right] + 1] += error[down_right] * (1 / 16)
    return out
