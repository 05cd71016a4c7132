"""Skins the games load: the limits (formats/images/skin_limits.py, engine source cited there), the
size an over-large image is scaled to and the box filter that scales it, checked against values
computed here (no product intermediates)."""
from __future__ import annotations

import numpy as np
import pytest

from formats.images.skin_limits import MD2_HEADER, QUAKE2_PCX, QUAKE_MDL, SkinBox, fit_size, resample


@pytest.mark.parametrize("size", [(1024, 1024), (2048, 512), (300, 1000), (641, 100), (4096, 4096), (999, 481)])
@pytest.mark.parametrize("box", [MD2_HEADER, QUAKE2_PCX, QUAKE_MDL])
def test_fit_is_the_largest_size_inside_the_box_with_the_aspect_kept(size, box):
    w, h = size
    new_w, new_h = fit_size(w, h, box)
    assert new_h <= 480 and (not box.width or new_w <= box.width) and (not box.pixels or new_w * new_h <= box.pixels)
    assert abs(new_w / new_h - w / h) <= max(1.0 / new_h, 1.0 / new_w) * (w / h) + 1e-9

    def inside(a: int, b: int) -> bool:
        return b <= 480 and (not box.width or a <= box.width) and (not box.pixels or a * b <= box.pixels)
    if inside(w, h):
        assert (new_w, new_h) == (w, h)
    else:                                   # one row more, with the aspect, no longer fits
        assert not inside(int((new_h + 1) * w / h), new_h + 1)


def test_pcx_box_is_quake2s_loadpcx_and_gl_upload8_limits():
    assert fit_size(1024, 1024, QUAKE2_PCX) == (362, 362)          # 362*362 = 131044 <= 512*256 < 363*363
    assert fit_size(1024, 1024, MD2_HEADER) == (480, 480)
    assert fit_size(296, 240, QUAKE2_PCX) == (296, 240)            # a Quake II player skin fits as it is
    assert fit_size(512, 256, QUAKE2_PCX) == (512, 256)
    assert fit_size(1024, 1024, QUAKE_MDL, width_multiple=4) == (480, 480)
    assert fit_size(1000, 100, QUAKE_MDL, width_multiple=4)[0] % 4 == 0


def test_resample_averages_the_pixels_each_output_pixel_covers():
    rng = np.random.default_rng(3)
    rgba = rng.integers(0, 256, (8, 12, 4)).astype(np.uint8)
    rgba[..., 3] = 255
    blocks = rgba.astype(np.float64).reshape(4, 2, 6, 2, 4).mean(axis=(1, 3))
    np.testing.assert_array_equal(resample(rgba, 6, 4), np.rint(blocks).astype(np.uint8))
    rgb = rgba[..., :3]
    thirds = rgb.astype(np.float64).reshape(8, 4, 3, 3).mean(axis=2)       # 12 -> 4 columns, rows kept
    np.testing.assert_array_equal(resample(rgb, 4, 8), np.rint(thirds).astype(np.uint8))


def test_transparent_pixels_do_not_darken_their_neighbours():
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[0, 0] = (200, 100, 50, 255)            # one opaque pixel, three transparent black ones
    out = resample(rgba, 1, 1)
    assert tuple(out[0, 0, :3]) == (200, 100, 50) and out[0, 0, 3] == 64


def test_problems_name_each_limit():
    assert SkinBox().problems(100, 481, "skin") == ["skin height 481 exceeds 480"]
    assert QUAKE2_PCX.problems(641, 200, "skin") == ["skin width 641 exceeds 640"]
    assert len(QUAKE2_PCX.problems(1024, 1024, "skin")) == 3
