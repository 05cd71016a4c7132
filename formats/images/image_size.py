"""An image file's width and height from its header alone, without decoding pixels (bpy-free; the
skin lookup uses it to take an image only when it has the model's skin size).

Layouts read (all offsets in bytes)::

    PCX   byte manufacturer (10); byte version; byte encoding (0 or 1); byte bpp; uint16 xmin, ymin, xmax, ymax
          at 4..11 (little-endian): width = xmax - xmin + 1, height = ymax - ymin + 1
    TGA   18-byte header: byte image_type at 2 (1, 2, 3, 9, 10, 11); uint16 width at 12, height at 14 (LE)
    PNG   8-byte signature, then the IHDR chunk: uint32 width at 16, height at 20 (big-endian)
    BMP   "BM"; uint32 DIB header size at 14; 12 (OS/2): uint16 width, height at 18, 20;
          else int32 width, height at 18, 22 (LE; a negative height is a top-down image)
    JPEG  FF D8, then segments FF xx uint16 length (BE, counting itself); the first SOFn
          (C0..CF but C4, C8, CC) holds byte precision, uint16 height, uint16 width (BE)

A file that is not what its extension says, or is cut short, gives None.
"""
from __future__ import annotations

import io
import struct
from pathlib import Path
from typing import BinaryIO

JPEG_SCAN_LIMIT = 1 << 20        # stop looking for the frame header after this many bytes of segments


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of the PCX, TGA, PNG, BMP or JPEG file at ``path`` (by extension), else None."""
    try:
        with open(path, "rb") as stream:
            return _size(path.suffix.lower(), stream)
    except OSError:
        return None


def image_size_of(data: bytes, name: str) -> tuple[int, int] | None:
    """The same for an image's bytes (an archive member), its kind by ``name``'s extension."""
    return _size(Path(name).suffix.lower(), io.BytesIO(data))


def _size(kind: str, stream: BinaryIO) -> tuple[int, int] | None:
    if kind in (".jpg", ".jpeg"):
        size = _jpeg(stream)
    else:
        reader = {".pcx": _pcx, ".tga": _tga, ".png": _png, ".bmp": _bmp}.get(kind)
        size = reader(stream.read(32)) if reader is not None else None
    return size if size is not None and size[0] > 0 and size[1] > 0 else None


def _pcx(head: bytes) -> tuple[int, int] | None:
    if len(head) < 12 or head[0] != 10 or head[2] not in (0, 1):
        return None
    xmin, ymin, xmax, ymax = struct.unpack_from("<4H", head, 4)
    return xmax - xmin + 1, ymax - ymin + 1


def _tga(head: bytes) -> tuple[int, int] | None:
    if len(head) < 18 or head[2] not in (1, 2, 3, 9, 10, 11):
        return None
    return struct.unpack_from("<2H", head, 12)


def _png(head: bytes) -> tuple[int, int] | None:
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack_from(">2I", head, 16)


def _bmp(head: bytes) -> tuple[int, int] | None:
    if len(head) < 26 or head[:2] != b"BM":
        return None
    (dib,) = struct.unpack_from("<I", head, 14)
    if dib == 12:
        return struct.unpack_from("<2H", head, 18)
    width, height = struct.unpack_from("<2i", head, 18)
    return width, abs(height)


def _jpeg(stream) -> tuple[int, int] | None:
    if stream.read(2) != b"\xff\xd8":
        return None
    while stream.tell() < JPEG_SCAN_LIMIT:
        byte = stream.read(1)
        if not byte:
            return None
        if byte != b"\xff":
            continue
        marker = stream.read(1)
        while marker == b"\xff":            # fill bytes
            marker = stream.read(1)
        if not marker:
            return None
        code = marker[0]
        if code == 0xD8 or 0xD0 <= code <= 0xD7 or code == 0x01:    # markers without a length
            continue
        raw = stream.read(2)
        if len(raw) < 2:
            return None
        (length,) = struct.unpack(">H", raw)
        if 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC):
            frame = stream.read(5)
            if len(frame) < 5:
                return None
            height, width = struct.unpack_from(">2H", frame, 1)
            return width, height
        if code in (0xD9, 0xDA) or length < 2:     # end of image or start of scan before any frame header
            return None
        stream.seek(length - 2, 1)
    return None
