"""The palette matcher gives, pixel for pixel, the indices of the exact search it replaced (kept in
tests/support/palette_reference.py): random 512x512 skins, real skins from the corpus made slightly
off-palette, dithered and not (a dithered pixel decided on its value rounded to whole numbers, as the
reference now decides it too), with fullbright masks, kept indices and skipped pixels, on Quake's, Quake
II's and Hexen II's palettes.  (The speed is measured by tools/benchmark_palette.py, not here.)"""
from __future__ import annotations

import numpy as np
import pytest

from formats.images.palette import (FULLBRIGHT_START, PLAYER_RANGES, TRANSPARENT_INDEX, game_palette,
                                    indices_to_rgba, match_palette, rgba_to_indices)
from formats.mdl.codec import parse_mdl
from support.environment import corpus_params
from support.image_files import read_pcx
from support.palette_reference import reference_indices


def random_image(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (size, size, 3), dtype=np.uint8)


def off_palette(indices: np.ndarray, palette: np.ndarray, seed: int) -> np.ndarray:
    """The skin's colours moved by up to 12 in each channel: most pixels no longer a palette colour."""
    rgb = indices_to_rgba(indices, palette)[..., :3].astype(np.int64)
    shift = np.random.default_rng(seed).integers(-12, 13, rgb.shape)
    return np.clip(rgb + shift, 0, 255).astype(np.uint8)


def assert_same(rgba, palette, **options) -> None:
    found = rgba_to_indices(rgba, palette, **{k: v for k, v in options.items() if k != "skip"}) \
        if "skip" not in options else match_palette(rgba, palette, **options)[0]
    expected = reference_indices(rgba, palette, **options)
    differ = np.argwhere(found != expected)
    assert not len(differ), (f"{len(differ)} of {found.size} pixels differ, first at {differ[0].tolist()}: "
                             f"{int(found[tuple(differ[0])])} instead of {int(expected[tuple(differ[0])])}")


@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_random_512_skin_quake_with_a_fullbright_mask(dither):
    image = random_image(512, 1)
    mask = np.zeros((512, 512), bool)
    mask[:128] = True
    mask[300:340, 200:260] = True
    assert_same(image, game_palette("QUAKE"), emissive_mask=mask, dither=dither, avoid=PLAYER_RANGES)


@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_random_skin_quake2_with_transparent_pixels(dither):
    image = random_image(256, 2)
    skip = np.random.default_rng(3).random((256, 256)) < 0.05
    assert_same(image, game_palette("QUAKE2"), dither=dither, ordinary=(0, TRANSPARENT_INDEX), skip=skip)


@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_random_skin_hexen2_with_kept_indices(dither):
    palette = game_palette("HEXEN2")
    keep = np.random.default_rng(4).integers(0, 256, (192, 160), dtype=np.uint8)
    image = random_image(192, 5)[:, :160]
    shown = np.random.default_rng(6).random(keep.shape) < 0.3      # these pixels still show their kept colour
    image[shown] = palette[keep[shown]]
    mask = keep >= FULLBRIGHT_START
    assert_same(image, palette, emissive_mask=mask, dither=dither, keep=keep)


@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_a_mod_palette_without_tables(dither):
    """A palette the ordinary class's table was not made for (entry 40 changed; 224-255 keep Quake's table):
    that class searched in full, its wavefronts too."""
    palette = game_palette("QUAKE")
    palette[40] = (250, 10, 200)
    mask = np.zeros((96, 96), bool)
    mask[:20] = True
    assert_same(random_image(96, 9), palette, emissive_mask=mask, dither=dither)


def test_every_grey_and_pure_colour_quake():
    """Greys and the edges of the RGB cube (zero chroma, the search grid's cell borders and the clip)."""
    ramp = np.arange(256, dtype=np.uint8)
    zero, full = np.zeros(256, np.uint8), np.full(256, 255, np.uint8)
    rows = [np.stack(c, -1) for c in [(ramp,) * 3, (ramp, zero, zero), (zero, ramp, zero), (zero, zero, ramp),
                                      (ramp, ramp, zero), (full, ramp, ramp), (ramp, full, zero), (zero, ramp, full)]]
    image = np.stack(rows)
    for dither in (False, True):
        assert_same(image, game_palette("QUAKE"), dither=dither)
        assert_same(image, game_palette("QUAKE"), emissive_mask=np.ones(image.shape[:2], bool), dither=dither)


@pytest.mark.parametrize("path", corpus_params("md2/*/*.pcx"))
@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_corpus_pcx_skins_off_palette(path, dither):
    indices, palette = read_pcx(path.read_bytes())
    assert_same(off_palette(indices, palette, 7), palette, dither=dither, ordinary=(0, TRANSPARENT_INDEX))


@pytest.mark.parametrize("path", corpus_params("mdl/librequake/*.mdl"))
@pytest.mark.parametrize("dither", [False, True], ids=["plain", "dithered"])
def test_corpus_mdl_skins_off_palette(path, dither):
    palette = game_palette("QUAKE")
    # at most 512 columns: oldone.mdl's 4096-wide skin cost the exact search 40-100 s dithered, and its first
    # 512 columns hold the same kind of pixels (dithering carries errors along a row only so far)
    skin = parse_mdl(path.read_bytes()).skins[0].images[0][:, :512]
    assert_same(off_palette(skin, palette, 8), palette, emissive_mask=skin >= FULLBRIGHT_START, dither=dither,
                avoid=() if path.stem == "player" else PLAYER_RANGES)
