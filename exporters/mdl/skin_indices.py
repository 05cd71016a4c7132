"""MDL skin images -> palette indices, with the reports the conversion owes the user.

Per image: the pixels :func:`.fullbright.fullbright_pixels` picks (its mask; a repainted pixel whose
mask was left as imported follows its colour) get 224-255, all others 0-223 outside ``avoid``; a
pixel still showing the colour of the index it was imported with, in the same fullbright class,
keeps that index. Over the whole export: one line for masked pixels far from every fullbright
colour per image (as before), and one line counting the new or edited pixels whose colour has no
palette colour within a visible difference, with the worst (:mod:`...formats.images.colour_drift`).
Quake's index 255 is an ordinary fullbright colour in alias skins, never a hole: GLQuake uploads
them without alpha (id-Software/Quake ``WinQuake/gl_model.c`` Mod_LoadAllSkins, ``GL_LoadTexture(...,
true, false)``), so no pixel is transparent here.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...common.contract import INDICES
from ...formats.images.colour_drift import drift_report
from ...formats.images.palette import FULLBRIGHT_START, match_palette
from ...formats.images.pixel_words import shows_index
from ...formats.images.skin_limits import resample
from ...formats.message_text import quoted
from ..image_files import image_rgba
from .fullbright import far_from_fullbright, fullbright_pixels


@dataclass
class SkinConverter:
    """Converts an export's skins to ``palette`` and gathers the warnings (``warnings`` is the build's list)."""
    palette: np.ndarray
    dither: bool
    avoid: tuple
    warnings: list[str]
    drifts: list = field(default_factory=list)

    def image(self, image, mask, size: tuple[int, int] | None = None) -> np.ndarray:
        """Palette indices of ``image`` (and its fullbright ``mask``); ``size``: scaled down to (width,
        height) first, with its mask (no pixel keeps its index then)."""
        rgba = image_rgba(image)
        mask_rgba = image_rgba(mask) if mask is not None and tuple(mask.size) == tuple(image.size) else None
        keep = None
        if size is not None and size != (rgba.shape[1], rgba.shape[0]):
            rgba = resample(rgba, *size)
            mask_rgba = resample(mask_rgba, *size) if mask_rgba is not None else None
        else:
            stored = image.get(INDICES)
            if stored is not None and len(bytes(stored)) == rgba.shape[0] * rgba.shape[1]:
                keep = np.frombuffer(bytes(stored), np.uint8).reshape(rgba.shape[:2])
        # which pixels still show their imported index: asked once here, for all three steps below
        shown = shows_index(rgba, keep, self.palette) if keep is not None else None
        emissive = fullbright_pixels(rgba, mask_rgba, keep, self.palette, shown)
        kept = _kept(shown, keep, emissive)
        indices, drift = match_palette(rgba, self.palette, emissive, dither=self.dither, avoid=self.avoid,
                                       skip=kept)
        if kept is not None:
            np.copyto(indices, keep, where=kept)
        self.drifts.append((f"skin image {quoted(image.name)}", drift))
        count = far_from_fullbright(rgba, emissive, indices, self.palette, kept) if emissive is not None else 0
        if count:
            self.warnings.append(f"skin image {quoted(image.name)}: {count} pixel(s) white in its fullbright mask are far "
                                 "from every fullbright colour (224-255) and were written as the nearest one; paint "
                                 "the mask black there to keep them lit")
        return indices

    def colours(self, rgba: np.ndarray, label: str, dither: bool = True) -> np.ndarray:
        """Palette indices of pixels made at export (a colour cell; a flat skin, never dithered), none
        fullbright."""
        indices, drift = match_palette(rgba, self.palette, dither=self.dither and dither, avoid=self.avoid)
        self.drifts.append((label, drift))
        return indices

    def report(self) -> None:
        """Add the one colour-drift line to the warnings, if any pixel moved visibly."""
        line = drift_report(self.drifts)
        if line:
            self.warnings.append(line)


def _kept(shown: np.ndarray | None, keep: np.ndarray | None, emissive: np.ndarray | None) -> np.ndarray | None:
    """The pixels that keep their imported index, as :func:`...formats.images.palette.match_palette`
    picks them with ``keep``: still showing its colour, and in the class the mask gives the pixel
    (224-255 where fullbright, 0-223 elsewhere; ``avoid`` does not apply to kept pixels). Handed to it
    as ``skip`` (neither matched nor dithered, the same pixels) and given their index after."""
    if keep is None:
        return None
    lit = np.zeros(keep.shape, bool) if emissive is None else emissive
    return shown & ((keep >= FULLBRIGHT_START) == lit)
