"""Pixels compared with their palette colours as 32-bit words (R, G, B bytes, alpha cleared): one
integer comparison a pixel instead of three."""
from __future__ import annotations

import numpy as np

_RGB_BITS = np.array([255, 255, 255, 0], np.uint8).view(np.uint32)     # a word's R, G, B bytes, any byte order


def shows_index(rgb: np.ndarray, indices: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """(h, w) bool: the pixels of 8-bit ``rgb`` (h, w, 3 or 4; alpha ignored) whose colour is exactly
    that of their palette index in ``indices`` (h, w). A contiguous uint8 RGBA image (what
    :func:`exporters.image_files.image_rgba` gives) is read as words in place, its alpha masked off;
    other layouts are copied into words first."""
    table = np.zeros((256, 4), dtype=np.uint8)
    table[:len(palette), :3] = palette[:, :3]
    colours = table.view(np.uint32)[:, 0][indices]
    if rgb.shape[-1] == 4 and rgb.dtype == np.uint8 and rgb.flags.c_contiguous:
        return (rgb.view(np.uint32)[..., 0] & _RGB_BITS) == colours
    words = np.zeros(indices.shape + (4,), dtype=np.uint8)
    words[..., :3] = rgb[..., :3]
    return words.view(np.uint32)[..., 0] == colours
