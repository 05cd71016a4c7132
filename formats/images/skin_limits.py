"""How large a skin the games load, and fitting an image inside that (aspect kept).

Quake II (id-Software/Quake-2):

- ``ref_gl/gl_model.c`` and ``ref_soft/r_model.c``, Mod_LoadAliasModel: ``skinheight`` over
  ``MAX_LBM_HEIGHT`` (480) drops the model ("model %s has a skin taller than %d"). No limit on
  ``skinwidth``; ``MAX_MD2SKINS`` (32) skins of ``MAX_SKINNAME`` (64) bytes are in
  :data:`...md2.codec.LIMITS`.
- ``ref_gl/gl_image.c`` LoadPCX: a PCX with ``xmax >= 640`` or ``ymax >= 480`` is a "Bad pcx file"
  (not loaded): at most 640x480.
- ``ref_gl/gl_image.c`` GL_Upload8: an 8-bit image of more than ``512*256`` pixels drops the level
  ("GL_Upload8: too large"): a PCX skin has at most 131072 pixels. 32-bit images (TGA) are scaled
  to 256x256 at most by GL_Upload32, so they have no such limit.

Quake (id-Software/Quake ``WinQuake/model.c`` Mod_LoadAliasModel): ``skinheight`` at most
``MAX_LBM_HEIGHT`` (480), ``skinwidth`` a multiple of 4, 1 to ``MAX_SKINS`` (32) skins (these are in
:class:`...mdl.codec.MdlLimits`); GLQuake (``WinQuake/gl_draw.c`` GL_Upload8) copies each skin into
``static unsigned trans[640*480]`` without a bound check: at most 307200 pixels.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_LBM_HEIGHT = 480


@dataclass(frozen=True)
class SkinBox:
    """The largest skin a game loads: height, width and pixel count (0: no limit)."""
    height: int = MAX_LBM_HEIGHT
    width: int = 0
    pixels: int = 0

    def fits(self, width: int, height: int) -> bool:
        return (height <= self.height and (not self.width or width <= self.width)
                and (not self.pixels or width * height <= self.pixels))

    def problems(self, width: int, height: int, what: str) -> list[str]:
        """What about a ``width`` x ``height`` skin the game refuses, in words."""
        out = []
        if height > self.height:
            out.append(f"{what} height {height} exceeds {self.height}")
        if self.width and width > self.width:
            out.append(f"{what} width {width} exceeds {self.width}")
        if self.pixels and width * height > self.pixels:
            out.append(f"{what} has {width * height} pixels ({width}x{height}), over {self.pixels}")
        return out


MD2_HEADER = SkinBox()                                   # skinheight in the model's header
QUAKE2_PCX = SkinBox(height=480, width=640, pixels=512 * 256)   # the PCX file itself (ref_gl)
QUAKE_MDL = SkinBox(pixels=640 * 480)                    # GLQuake's upload buffer


def fit_size(width: int, height: int, box: SkinBox, width_multiple: int = 1) -> tuple[int, int]:
    """The largest size inside ``box`` with ``width``:``height``'s aspect (each side rounded down,
    at least 1), the width a multiple of ``width_multiple``; the size itself when it fits."""
    if box.fits(width, height) and width % width_multiple == 0:
        return width, height
    factor = min(1.0, box.height / height, box.width / width if box.width else 1.0,
                 (box.pixels / (width * height)) ** 0.5 if box.pixels else 1.0)
    new_h = max(1, int(height * factor))
    new_w = max(width_multiple, int(width * factor) // width_multiple * width_multiple)
    while not box.fits(new_w, new_h) and new_h > 1:
        new_h -= 1
        new_w = max(width_multiple, int(new_h * width / height) // width_multiple * width_multiple)
    return new_w, new_h


def _box_weights(size: int, new: int) -> np.ndarray:
    """(new, size) weights: output pixel i averages the source pixels its span [i, i+1) * size/new covers."""
    edges = np.arange(new + 1, dtype=np.float64) * (size / new)
    lo, hi = edges[:-1, None], edges[1:, None]
    pixel = np.arange(size, dtype=np.float64)[None, :]
    overlap = np.clip(np.minimum(hi, pixel + 1) - np.maximum(lo, pixel), 0.0, None)
    return overlap / overlap.sum(axis=1, keepdims=True)


def resample(pixels: np.ndarray, width: int, height: int) -> np.ndarray:
    """(h, w, C) uint8 ``pixels`` averaged down (box filter) to (height, width, C); colour is
    weighted by alpha so transparent pixels do not darken their neighbours."""
    h, w = pixels.shape[:2]
    if (w, h) == (width, height):
        return pixels.copy()
    rows, cols = _box_weights(h, height), _box_weights(w, width)
    data = pixels.astype(np.float32)
    out = np.empty((height, width, pixels.shape[2]), np.float32)
    has_alpha = pixels.shape[2] == 4
    alpha = data[..., 3] / 255.0 if has_alpha else None
    if has_alpha:
        out[..., 3] = rows @ data[..., 3] @ cols.T
        weight = rows @ alpha @ cols.T
    for c in range(pixels.shape[2] - (1 if has_alpha else 0)):
        if has_alpha:
            summed = rows @ (data[..., c] * alpha) @ cols.T
            out[..., c] = np.where(weight > 1e-6, summed / np.maximum(weight, 1e-6), rows @ data[..., c] @ cols.T)
        else:
            out[..., c] = rows @ data[..., c] @ cols.T
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)
