"""ZSoft PCX skins: decode 8-bit paletted and 24-bit images into :class:`PcxImage`, encode 8-bit.

Layout (all little-endian)::

    header      128 bytes:
                uint8  manufacturer     0x0A
                uint8  version          5 for files with a 256-colour palette
                uint8  encoding         1 = run-length, 0 = raw (not in the spec, written by some tools)
                uint8  bits_per_pixel   8 (per plane)
                uint16 xmin, ymin, xmax, ymax   width = xmax - xmin + 1, height = ymax - ymin + 1
                uint16 hdpi, vdpi
                uint8  colormap[48]     16-colour EGA palette, unused here
                uint8  reserved
                uint8  planes           1 = paletted, 3 = RGB
                uint16 bytes_per_line   per plane, >= width; bytes past width are padding
                uint16 palette_info, hscreen, vscreen
                uint8  filler[54]
    image       height scanlines; each holds ``planes`` plane lines of ``bytes_per_line`` bytes
                (R line, G line, B line for RGB).  Run-length encoding: a byte >= 0xC0 is a
                control whose low 6 bits repeat the *next* byte (which is data even if it is
                >= 0xC0); any other byte is a literal.  Runs may cross scanlines, so the
                stream is decoded as one run of ``bytes_per_line * planes * height`` bytes.
    palette     8-bit only: 0x0C, then 256 x {uint8 r, g, b} as the last 769 bytes.
                Without the marker the last 768 bytes are taken, provided at least 768 bytes
                follow the image data.  Exactly 768 bytes starting with 0x0C read as a marked
                palette cut short, so they are refused rather than shifted by one byte.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError

MANUFACTURER = 0x0A
PALETTE_MARKER = 0x0C
PALETTE_SIZE = 768
MAX_RUN = 63
RUN_FLAG = 0xC0

HEADER = np.dtype([
    ("manufacturer", "u1"), ("version", "u1"), ("encoding", "u1"), ("bits_per_pixel", "u1"),
    ("xmin", "<u2"), ("ymin", "<u2"), ("xmax", "<u2"), ("ymax", "<u2"),
    ("hdpi", "<u2"), ("vdpi", "<u2"), ("colormap", "u1", (48,)), ("reserved", "u1"),
    ("planes", "u1"), ("bytes_per_line", "<u2"), ("palette_info", "<u2"),
    ("hscreen", "<u2"), ("vscreen", "<u2"), ("filler", "u1", (54,)),
])


@dataclass
class PcxImage:
    """A decoded PCX image, top row first.

    ``rgba`` is (height, width, 4) uint8 with alpha 255; ``indices`` (height, width) uint8 and
    ``palette`` (256, 3) uint8 are set for 8-bit paletted images and None for RGB ones.
    """
    width: int
    height: int
    rgba: np.ndarray
    indices: np.ndarray | None = None
    palette: np.ndarray | None = None


def _field_offset(name: str) -> int:
    return HEADER.fields[name][1]


def _rle_decode(stream: np.ndarray, needed: int) -> tuple[np.ndarray, int]:
    """The first ``needed`` bytes the run-length ``stream`` expands to, and how many stream bytes
    that consumed.

    Token starts are found without a per-byte loop: the byte after any byte < 0xC0 always starts
    a token, so within a stretch of bytes >= 0xC0 the controls sit at even offsets from its start
    and the data bytes at odd ones; an odd-length stretch's last control takes the next byte.
    """
    size = len(stream)
    index = np.arange(size)
    high = stream >= RUN_FLAG
    stretch_start = high.copy()
    stretch_start[1:] &= ~high[:-1]
    first = np.maximum.accumulate(np.where(stretch_start, index, 0))
    control = high & (((index - first) & 1) == 0)
    is_data = np.zeros(size, dtype=bool)
    is_data[1:] = control[:-1]
    starts = np.flatnonzero(~is_data)
    token_control = control[starts]
    counts = np.where(token_control, stream[starts] & 0x3F, 1).astype(np.int64)
    produced = np.cumsum(counts)
    last = int(np.searchsorted(produced, needed))
    if last >= len(starts):
        raise FormatError(f"compressed data ends after {int(produced[-1]) if len(produced) else 0} "
                          f"of {needed} bytes", field="image", offset=128 + size)
    end = int(starts[last]) + (2 if token_control[last] else 1)
    if end > size:
        raise FormatError(f"compressed data ends inside a run, {needed} bytes needed",
                          field="image", offset=128 + size)
    starts, token_control, counts = starts[:last + 1], token_control[:last + 1], counts[:last + 1]
    values = stream[starts + token_control]
    return np.repeat(values, counts)[:needed], end


def _read_palette(data: bytes, image_end: int) -> np.ndarray:
    trailing = len(data) - image_end
    if trailing < PALETTE_SIZE or (trailing == PALETTE_SIZE and data[image_end] == PALETTE_MARKER):
        raise FormatError(f"8-bit image needs a 256-colour palette after the image data; "
                          f"{trailing} bytes follow it", field="palette", offset=image_end)
    return np.frombuffer(data, dtype=np.uint8, count=PALETTE_SIZE,
                         offset=len(data) - PALETTE_SIZE).reshape(256, 3).copy()


def decode_pcx(data: bytes) -> PcxImage:
    """Decode an 8-bit 1-plane or 24-bit 3-plane PCX; raises :class:`FormatError` on bad input."""
    if len(data) < HEADER.itemsize:
        raise FormatError(f"file has {len(data)} bytes, the header alone is {HEADER.itemsize}",
                          field="header", offset=0)
    header = np.frombuffer(data, dtype=HEADER, count=1)[0]
    if header["manufacturer"] != MANUFACTURER:
        raise FormatError(f"manufacturer byte is 0x{int(header['manufacturer']):02X}, expected 0x0A",
                          field="manufacturer", offset=0)
    encoding = int(header["encoding"])
    if encoding not in (0, 1):
        raise FormatError(f"encoding {encoding} is not 0 (raw) or 1 (run-length)",
                          field="encoding", offset=_field_offset("encoding"))
    bits, planes = int(header["bits_per_pixel"]), int(header["planes"])
    if (bits, planes) not in ((8, 1), (8, 3)):
        raise FormatError(f"{bits} bits x {planes} planes is unsupported; only 8x1 (paletted) "
                          f"and 8x3 (RGB)", field="bits_per_pixel/planes",
                          offset=_field_offset("bits_per_pixel"))
    width = int(header["xmax"]) - int(header["xmin"]) + 1
    height = int(header["ymax"]) - int(header["ymin"]) + 1
    if width <= 0 or height <= 0:
        raise FormatError(f"image size {width}x{height} is not positive", field="xmin/ymin/xmax/ymax",
                          offset=_field_offset("xmin"))
    bytes_per_line = int(header["bytes_per_line"])
    if bytes_per_line < width:
        raise FormatError(f"bytes_per_line {bytes_per_line} is less than the width {width}",
                          field="bytes_per_line", offset=_field_offset("bytes_per_line"))
    needed = bytes_per_line * planes * height
    available = len(data) - HEADER.itemsize
    if needed > available * (MAX_RUN if encoding == 1 else 1):
        raise FormatError(f"{width}x{height} x {planes} planes needs {needed} bytes; "
                          f"{available} bytes of image data cannot hold that",
                          field="xmin/ymin/xmax/ymax", offset=_field_offset("xmin"))
    stream = np.frombuffer(data, dtype=np.uint8, offset=HEADER.itemsize)
    if encoding == 1:
        pixels, consumed = _rle_decode(stream, needed)
    else:
        pixels, consumed = stream[:needed], needed
    image_end = HEADER.itemsize + consumed
    if planes == 1:
        palette = _read_palette(data, image_end)
        indices = np.ascontiguousarray(pixels.reshape(height, bytes_per_line)[:, :width])
        rgba = np.empty((height, width, 4), dtype=np.uint8)
        rgba[..., :3] = palette[indices]
        rgba[..., 3] = 255
        return PcxImage(width, height, rgba, indices, palette)
    rgba = np.empty((height, width, 4), dtype=np.uint8)
    rgba[..., :3] = pixels.reshape(height, planes, bytes_per_line)[:, :, :width].transpose(0, 2, 1)
    rgba[..., 3] = 255
    return PcxImage(width, height, rgba)


def _rle_encode_line(line: np.ndarray) -> np.ndarray:
    """One scanline as runs of at most 63; a lone byte < 0xC0 is written as a literal."""
    change = np.flatnonzero(np.diff(line)) + 1
    run_starts = np.concatenate(([0], change))
    run_lengths = np.diff(np.concatenate((run_starts, [len(line)])))
    chunks = -(-run_lengths // MAX_RUN)
    values = np.repeat(line[run_starts], chunks)
    lengths = np.full(len(values), MAX_RUN, dtype=np.int64)
    lengths[np.cumsum(chunks) - 1] = run_lengths - (chunks - 1) * MAX_RUN
    needs_control = (lengths > 1) | (values >= RUN_FLAG)
    out = np.empty(len(values) + int(needs_control.sum()), dtype=np.uint8)
    value_pos = np.cumsum(1 + needs_control) - 1
    out[value_pos] = values
    out[value_pos[needs_control] - 1] = RUN_FLAG | lengths[needs_control]
    return out


def encode_pcx(indices: np.ndarray, palette: np.ndarray) -> bytes:
    """An 8-bit run-length PCX (version 5, 0x0C palette) of ``indices`` (height, width) uint8 and
    ``palette`` (256, 3) uint8.  Scanlines are padded to an even ``bytes_per_line`` and runs never
    cross them, as the spec asks."""
    indices = np.asarray(indices)
    palette = np.asarray(palette)
    if indices.ndim != 2 or indices.dtype != np.uint8:
        raise FormatError(f"indices must be a 2-D uint8 array, got {indices.dtype} {indices.shape}",
                          field="indices")
    if palette.shape != (256, 3) or palette.dtype != np.uint8:
        raise FormatError(f"palette must be (256, 3) uint8, got {palette.dtype} {palette.shape}",
                          field="palette")
    height, width = indices.shape
    bytes_per_line = width + (width & 1)
    if not (width > 0 and 0 < height <= 0xFFFF and bytes_per_line <= 0xFFFF):
        raise FormatError(f"image size {width}x{height} does not fit a PCX header", field="indices")
    header = np.zeros(1, dtype=HEADER)
    header[0] = (MANUFACTURER, 5, 1, 8, 0, 0, width - 1, height - 1, 72, 72, np.zeros(48), 0,
                 1, bytes_per_line, 1, 0, 0, np.zeros(54))
    padded = np.zeros((height, bytes_per_line), dtype=np.uint8)
    padded[:, :width] = indices
    body = b"".join(_rle_encode_line(line).tobytes() for line in padded)
    return header.tobytes() + body + bytes([PALETTE_MARKER]) + palette.tobytes()
