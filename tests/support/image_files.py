"""Independent readers and writers for the tests' own small image files (no product code):
PCX (raw and run-length, scanline by scanline as the ZSoft spec describes), PNG (filter 0 only)
and uncompressed TGA."""
from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np


def write_png(path: Path, rgba: np.ndarray) -> Path:
    """An 8-bit RGBA PNG, top row first, through zlib and struct only."""
    h, w = rgba.shape[:2]
    raw = b"".join(b"\0" + bytes(rgba[y].astype(np.uint8).tobytes()) for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return path


def read_png(data: bytes) -> np.ndarray:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        assert struct.unpack_from(">I", data, pos + 8 + length)[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            size = struct.unpack(">IIBBBBB", body)
            assert size[2:4] == (8, 6)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h = size[0], size[1]
    rows = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + 4 * w)
    assert not rows[:, 0].any(), "only filter 0 is read here"
    return rows[:, 1:].reshape(h, w, 4)


def read_tga(data: bytes) -> np.ndarray:
    id_len, cmap, kind = data[0], data[1], data[2]
    w, h, bpp, desc = struct.unpack_from("<HHBB", data, 12)
    assert (cmap, kind, bpp) == (0, 2, 32)
    pixels = np.frombuffer(data, np.uint8, w * h * 4, 18 + id_len).reshape(h, w, 4)[..., [2, 1, 0, 3]]
    return pixels if desc & 0x20 else pixels[::-1]


def write_pcx(path: Path, indices: np.ndarray, palette: np.ndarray) -> Path:
    """An uncompressed (encoding 0) 8-bit PCX with the 0x0C palette."""
    h, w = indices.shape
    header = struct.pack("<BBBBHHHHHH48sBBHHHH54s", 10, 5, 0, 8, 0, 0, w - 1, h - 1, 72, 72, b"", 0, 1, w, 1, 0, 0, b"")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header + indices.astype(np.uint8).tobytes() + b"\x0c" + palette.astype(np.uint8).tobytes())
    return path


def read_pcx(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(indices, palette) of an 8-bit 1-plane PCX, decoded one byte at a time."""
    (maker, version, encoding, bits, x0, y0, x1, y1) = struct.unpack_from("<BBBBHHHH", data, 0)
    planes, bpl = data[65], struct.unpack_from("<H", data, 66)[0]
    assert (maker, bits, planes) == (10, 8, 1)
    w, h = x1 - x0 + 1, y1 - y0 + 1
    out, pos = bytearray(), 128
    while len(out) < bpl * h:
        byte = data[pos]
        pos += 1
        if encoding == 1 and byte >= 0xC0:
            out += bytes([data[pos]]) * (byte & 0x3F)
            pos += 1
        else:
            out.append(byte)
    assert data[-769] == 0x0C
    palette = np.frombuffer(data[-768:], np.uint8).reshape(256, 3)
    return np.frombuffer(bytes(out[:bpl * h]), np.uint8).reshape(h, bpl)[:, :w], palette


def reference_palette(name: str) -> np.ndarray | None:
    """(256, 3) from ../shared/reference/<name>_palette.tsv, or None when absent."""
    table = Path(__file__).resolve().parents[3] / "shared" / "reference" / f"{name}_palette.tsv"
    if not table.is_file():
        return None
    rows = [l.split() for l in table.read_text().splitlines() if l.strip() and not l.startswith("#")]
    return np.array([[int(v) for v in r[1:4]] for r in rows], dtype=np.uint8)
