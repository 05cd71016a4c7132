"""Which skin pixels an MDL export writes fullbright (palette indices 224-255, drawn unlit by Quake).

A skin image's fullbright mask (white = fullbright, ``ui/fullbright.py``) decides, except where the
user repainted the skin and left the mask as the import made it: there the fullbright state follows
the new colour (fullbright only when its nearest palette colour is one of 224-255), so glowing eyes
repainted brown come out lit, and repainted with a fire colour stay fullbright. Painting the mask
(white or black) on a pixel decides for it whatever its colour. Without imported indices (a model
made in Blender) the mask alone decides.
"""
from __future__ import annotations

import numpy as np

from ...formats.images.palette import FULLBRIGHT_START, ciede2000, rgba_to_indices, srgb_to_lab
from ...formats.images.pixel_words import shows_index

FAR_FROM_FULLBRIGHT = 10.0     # CIEDE2000: a masked pixel this far from its fullbright colour is reported


def fullbright_pixels(rgba: np.ndarray, mask_rgba: np.ndarray | None, imported: np.ndarray | None,
                      palette: np.ndarray, shown: np.ndarray | None = None) -> np.ndarray | None:
    """(h, w) bool: the pixels to write among 224-255, or None for none. ``mask_rgba``: the mask
    image's pixels (a pixel is white when the mean of its R, G, B is at least 128); ``imported``: the
    (h, w) indices the skin was imported with, if any; ``shown``: :func:`shows_index` of those, if
    the caller has it."""
    if mask_rgba is None:
        return None
    masked = (mask_rgba[..., 0].astype(np.uint16) + mask_rgba[..., 1] + mask_rgba[..., 2]) >= 3 * 128   # <= 765
    if imported is None:
        return masked
    repainted = ~(shows_index(rgba, imported, palette) if shown is None else shown)
    follows = repainted & (masked == (imported >= FULLBRIGHT_START))     # mask left as imported
    if follows.any():
        nearest = rgba_to_indices(rgba[follows][None], palette, ordinary=(0, len(palette)))[0]
        masked = masked.copy()
        masked[follows] = nearest >= FULLBRIGHT_START
    return masked


def far_from_fullbright(rgba: np.ndarray, fullbright: np.ndarray, indices: np.ndarray, palette: np.ndarray,
                        kept: np.ndarray | None = None) -> int:
    """How many ``fullbright`` pixels are more than :data:`FAR_FROM_FULLBRIGHT` (CIEDE2000) from the
    fullbright colour they were written as (a mask painted white over an ordinary colour). ``kept``:
    pixels known to show the colour of their index (kept from the import), not compared again."""
    moved = fullbright if kept is None else fullbright & ~kept
    if not moved.any():
        return 0
    moved = moved.copy()
    moved[moved] = ~shows_index(rgba[moved][None], indices[moved][None], palette)[0]   # the others: distance 0
    if not moved.any():
        return 0
    colours, where = np.unique(rgba[moved][:, :3], axis=0, return_inverse=True)
    chosen = np.zeros(len(colours), np.int64)
    chosen[where.ravel()] = indices[moved]
    far = ciede2000(srgb_to_lab(colours), srgb_to_lab(palette[chosen])) > FAR_FROM_FULLBRIGHT
    return int(far[where.ravel()].sum())
