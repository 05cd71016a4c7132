"""Faces of an MD2 that Quake II draws black: painted in the colour its load fills from an 8-bit PCX
skin's top-left texel (:mod:`...formats.images.corner_fill`; Q2PRO ``src/refresh/images.c``
``IMG_FloodFill``, called by ``load_pcx`` for skins). Corners are sampled at ``s / skinwidth``,
``t / skinheight`` of the skin image (Q2PRO ``src/refresh/models.c`` ``MOD_LoadMD2``), so a skin of
another size than the header's is scaled to it."""
from __future__ import annotations

import numpy as np

from ..images.corner_fill import QUAKE2, corner_hits, corner_note
from .codec import Md2Model


def corner_fill_note(model: Md2Model, skins: list[tuple[str, np.ndarray]]) -> list[str]:
    """One warning line when faces are painted in the filled corner region of one of ``skins``
    ((label, (H, W) palette indices of an 8-bit PCX)), else none."""
    if not len(model.tri_st) or model.skin_width <= 0 or model.skin_height <= 0:
        return []
    corners = np.asarray(model.st, dtype=np.float64)[np.asarray(model.tri_st, dtype=np.int64)]
    hits = []
    for label, indices in skins:
        scale = np.array([indices.shape[1] / model.skin_width, indices.shape[0] / model.skin_height])
        hits += corner_hits([(label, indices)], corners * scale)
    return corner_note(hits, len(model.tri_st), QUAKE2)
