"""True-colour skin files for source ports that load them in place of a PCX: PNG and TGA writers.

PNG (RFC 2083)::

    signature   89 50 4E 47 0D 0A 1A 0A
    chunks      uint32be length, char type[4], data, uint32be CRC-32 of type + data
    IHDR        uint32be width, height; uint8 bit_depth 8, colour_type 6 (RGBA), compression 0,
                filter 0, interlace 0
    IDAT        zlib stream of the rows, top row first, each preceded by filter byte 0 (none)
    IEND        empty

TGA (Truevision, uncompressed true colour)::

    header      18 bytes: uint8 id_length 0, colormap_type 0, image_type 2; uint8 colormap[5] 0;
                uint16 x_origin 0, y_origin 0, width, height; uint8 bits_per_pixel 32,
                descriptor 0x28 (8 alpha bits, top-left origin)
    pixels      width * height x {uint8 b, g, r, a}, top row first
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ..errors import FormatError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TGA_HEADER = np.dtype([("id_length", "u1"), ("colormap_type", "u1"), ("image_type", "u1"),
                       ("colormap", "u1", (5,)), ("x_origin", "<u2"), ("y_origin", "<u2"),
                       ("width", "<u2"), ("height", "<u2"), ("bits_per_pixel", "u1"), ("descriptor", "u1")])
TGA_TOP_LEFT_RGBA = 0x28


def _check_rgba(rgba: np.ndarray, limit: int) -> np.ndarray:
    rgba = np.asarray(rgba)
    if rgba.ndim != 3 or rgba.shape[2] != 4 or rgba.dtype != np.uint8:
        raise FormatError(f"image must be (h, w, 4) uint8, got {rgba.dtype} {rgba.shape}", field="rgba")
    if not (0 < rgba.shape[0] <= limit and 0 < rgba.shape[1] <= limit):
        raise FormatError(f"image size {rgba.shape[1]}x{rgba.shape[0]} cannot be stored", field="rgba")
    return np.ascontiguousarray(rgba)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(rgba: np.ndarray) -> bytes:
    """8-bit RGBA PNG of (h, w, 4) uint8 pixels, top row first."""
    rgba = _check_rgba(rgba, 0x7FFFFFFF)
    height, width = rgba.shape[:2]
    rows = np.zeros((height, 1 + width * 4), dtype=np.uint8)
    rows[:, 1:] = rgba.reshape(height, width * 4)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (PNG_SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 9))
            + _chunk(b"IEND", b""))


def encode_tga(rgba: np.ndarray, bottom_up: bool = False) -> bytes:
    """Uncompressed 32-bit TGA of (h, w, 4) uint8 pixels, top row first; ``bottom_up``: the bottom row
    first, the TGA default (ioquake3's ``R_LoadTGA`` warns about a top-down header and reads it upside down)."""
    rgba = _check_rgba(rgba, 0xFFFF)
    height, width = rgba.shape[:2]
    header = np.zeros(1, dtype=TGA_HEADER)
    header[0] = (0, 0, 2, np.zeros(5), 0, 0, width, height, 32,
                 TGA_TOP_LEFT_RGBA & ~0x20 if bottom_up else TGA_TOP_LEFT_RGBA)
    pixels = rgba[::-1] if bottom_up else rgba
    return header.tobytes() + pixels[..., [2, 1, 0, 3]].tobytes()
