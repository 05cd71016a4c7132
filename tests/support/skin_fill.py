"""An independent replay of the fill Quake and Quake II give an 8-bit skin when they load it (ironwail
``gl_model.c`` ``Mod_FloodFillSkin``, Q2PRO ``src/refresh/images.c`` ``IMG_FloodFill``), texel by texel,
to hold the product's region finder and its skins against."""
from __future__ import annotations

from collections import deque

import numpy as np


def engine_fill(skin: np.ndarray) -> np.ndarray:
    """The skin after the load's fill: a queue from the top-left texel; a neighbour of the fill colour is
    queued and marked 255, another neighbour not 255 gives its colour; the texel then takes the last
    colour given, else 0. Nothing when the top-left texel is 0 or 255."""
    skin = np.array(skin, dtype=np.uint8)
    height, width = skin.shape
    fill = int(skin[0, 0])
    if fill in (0, 255):
        return skin
    queue = deque([(0, 0)])
    while queue:
        y, x = queue.popleft()
        colour = 0
        for dy, dx in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            ny, nx = y + dy, x + dx
            if 0 <= ny < height and 0 <= nx < width:
                if skin[ny, nx] == fill:
                    skin[ny, nx] = 255
                    queue.append((ny, nx))
                elif skin[ny, nx] != 255:
                    colour = int(skin[ny, nx])
        skin[y, x] = colour
    return skin


def assert_flat_skin_survives(indices: np.ndarray, colour: np.ndarray, palette: np.ndarray) -> None:
    """A flat skin as the game shows it after loading: every texel but the top-left one (black, index 0,
    so that the load fills nothing) of ``colour``."""
    indices = np.asarray(indices)
    assert indices[0, 0] == 0
    colours = palette[indices].reshape(-1, 3)
    assert (colours[1:] == colour).all()
    assert np.array_equal(engine_fill(indices), indices), "the game's load repaints the skin"
