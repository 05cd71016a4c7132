"""The real-Blender GUI driver's looks at the screen without ImageMagick (issue 45: the stage's time): libX11's
raw BGRX pixels made grey as ImageMagick 7's ``-colorspace gray -depth 8`` does, and written as a PNG for the
screenshots. The session itself compares the grey with ImageMagick's grab before trusting it (check_gray)."""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

CHECKOUT = Path(__file__).resolve().parents[2]


@pytest.fixture
def gui_tools(monkeypatch):
    pytest.importorskip("bpy", reason="the GUI driver's helpers run in Blender")
    import sys
    monkeypatch.syspath_prepend(str(CHECKOUT / "tools" / "real_blender"))
    sys.modules.pop("gui_tools", None)
    import gui_tools
    return gui_tools


def _screen(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (1000, 1600, 4), dtype=np.uint8)
    pixels[100:300, 200:900, :3] = 40          # flat widgets and a lighter band, as Blender's theme draws
    pixels[400:420] = 230
    return pixels


def test_gray_is_imagemagicks_rec709_luma_of_16_bit_channels(gui_tools):
    """Against the formula computed in floating point: luma of the channels times 257, rounded, floor / 257
    (ImageMagick 7.1, Q16; it matched a grab on both roots' ImageMagick for 4096 random pixels)."""
    pixels = _screen(1)
    b, g, r = (pixels[..., i].astype(np.float64) * 257 for i in range(3))
    expected = np.floor(np.floor(0.212656 * r + 0.715158 * g + 0.072186 * b + 0.5) / 257)
    diff = np.abs(gui_tools._RootPixels.gray(pixels.tobytes()).astype(int) - expected.astype(int))
    assert diff.max() <= 1 and (diff > 0).mean() < 1e-4


def test_png_holds_the_looks_rgb(gui_tools):
    """The PNG's chunks decoded by hand (zlib, filter 0 rows): the look's R, G, B at every pixel."""
    pixels = _screen(2)
    data = gui_tools.png(pixels.tobytes())
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = {}, 8
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + size]
        assert int.from_bytes(data[at + 8 + size:at + 12 + size], "big") == zlib.crc32(kind + body)
        chunks[kind] = body
        at += 12 + size
    assert chunks[b"IHDR"] == (1600).to_bytes(4, "big") + (1000).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(1000, 1 + 3 * 1600)
    assert not rows[:, 0].any()
    np.testing.assert_array_equal(rows[:, 1:].reshape(1000, 1600, 3), pixels[..., [2, 1, 0]])
