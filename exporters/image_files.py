"""Image files an export writes beside its model (MD2 skins, MD2 player icons, MS3D textures): the
pixels of a Blender image, their encoding (8-bit PCX in the Quake II palette, PNG, TGA) and the
atomic write of every planned file.

PCX files are 8-bit run-length PCX in the Quake II palette (nearest by CIEDE2000, optional
dithering; index 255 exactly for pixels with alpha below 0.5, the hole Quake II draws), scaled down
to the largest PCX Quake II loads; see :mod:`.md2.skins` for what the game does with them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

import bpy

from ..formats.atomic_file import atomic_write
from ..formats.images.palette import TRANSPARENT_INDEX, match_palette, quake2_palette
from ..formats.images.pcx import decode_pcx, encode_pcx
from ..formats.images.skin_limits import QUAKE2_PCX, fit_size, resample
from ..formats.images.truecolour import encode_png, encode_tga


@dataclass
class SkinFile:
    """One skin file to write: ``data`` goes to ``target``; ``note`` says what it is for the report."""
    target: Path
    data: bytes
    note: str


def image_rgba(image: bpy.types.Image) -> np.ndarray:
    """(h, w, 4) uint8 pixels of a Blender image, top row first."""
    width, height = image.size
    channels = image.channels
    pixels = np.empty(width * height * channels, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    pixels *= 255.0                                   # in place: a skin can hold millions of values
    np.rint(pixels, out=pixels)
    np.clip(pixels, 0, 255, out=pixels)
    colour = pixels.reshape(height, width * channels)[::-1].astype(np.uint8, order="C").reshape(
        height, width, channels)
    if channels == 4:       # flipped by the one copy to bytes
        return colour
    rgba = np.full((height, width, 4), 255, dtype=np.uint8)
    if channels >= 3:
        rgba[..., :3] = colour[..., :3]
    else:
        rgba[..., :3] = colour[..., :1]
    if channels == 2:
        rgba[..., 3] = colour[..., 1]
    return rgba


def pcx_fitted(rgba: np.ndarray) -> tuple[np.ndarray, str]:
    """``rgba`` scaled down (aspect kept) to the largest PCX Quake II loads (640x480 and at most
    512*256 pixels, :data:`...formats.images.skin_limits.QUAKE2_PCX`), and a note saying so ('' if it fits)."""
    height, width = rgba.shape[:2]
    new_w, new_h = fit_size(width, height, QUAKE2_PCX)
    if (new_w, new_h) == (width, height):
        return rgba, ""
    return resample(rgba, new_w, new_h), (f", scaled from {width}x{height} to {new_w}x{new_h} (Quake II loads PCX "
                                          f"skins up to 640x480 and {QUAKE2_PCX.pixels} pixels)")


def encode_skin(rgba: np.ndarray, mode: str, dither: bool, keep: np.ndarray | None = None,
                drifts: list | None = None, label: str = "") -> bytes:
    """The skin file's bytes in ``mode`` ('PCX', 'PNG', 'TGA'); a PCX larger than Quake II loads is
    scaled down first (:func:`pcx_fitted`). PCX: a pixel with alpha below half is index 255, which
    Quake II draws as a hole; an opaque pixel still showing the colour of its ``keep`` index (the PCX
    it was imported from) keeps that index, the others get the nearest of 0-254; ``drifts`` gets
    ``(label, ColourDrift)`` of the matched pixels (:mod:`...formats.images.colour_drift`)."""
    if mode == "PNG":
        return encode_png(rgba)
    if mode == "TGA":
        return encode_tga(rgba)
    rgba = pcx_fitted(rgba)[0]
    palette = quake2_palette()
    if keep is not None and keep.shape != rgba.shape[:2]:
        keep = None
    transparent = rgba[..., 3] < 128
    indices, drift = match_palette(rgba, palette, dither=dither, ordinary=(0, TRANSPARENT_INDEX), keep=keep,
                                   skip=transparent)
    indices[transparent] = TRANSPARENT_INDEX
    if drifts is not None:
        drifts.append((label, drift))
    return encode_pcx(indices, palette)


def pcx_skins(files: list[SkinFile]) -> list[tuple[str, np.ndarray]]:
    """(file name, palette indices) of the 8-bit PCX files among ``files``, as the game loads them."""
    out = []
    for skin in files:
        if skin.target.suffix.lower() == ".pcx":
            indices = decode_pcx(skin.data).indices
            if indices is not None:
                out.append((skin.target.name, indices))
    return out


def write_skin_files(files: list[SkinFile], kind: str = "skin") -> list[str]:
    """Write each planned file atomically; the report lines for the files written (``wrote <kind> ...``)."""
    lines = []
    for skin in files:
        skin.target.parent.mkdir(parents=True, exist_ok=True)
        verify = decode_pcx if skin.target.suffix == ".pcx" else None
        atomic_write(skin.target, skin.data, verify=verify)
        lines.append(f"wrote {kind} {skin.target} ({skin.note})")
    return lines
