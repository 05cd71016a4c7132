"""Palette loading and index <-> RGBA conversion: identity on real skins, the fullbright rule, dithering."""
from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import corpus_params
from formats import FormatError
from formats.mdl.codec import parse_mdl
from formats.images.palette import (FULLBRIGHT_START, TRANSPARENT_INDEX as TRANSPARENT, game_palette, indices_to_rgba,
                                    load_palette_lmp, quake_palette, rgba_to_indices)

TSV = Path(__file__).resolve().parents[1] / "formats" / "images" / "quake_palette.tsv"


def tsv_palette() -> list[tuple[int, int, int]]:
    rows = [line.split() for line in TSV.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert [int(r[0]) for r in rows] == list(range(256))
    return [(int(r[1]), int(r[2]), int(r[3])) for r in rows]


def canonical_indices(palette: np.ndarray) -> np.ndarray:
    """For each index, the lowest index of the same fullbright class holding the same colour."""
    out = np.arange(256)
    for i in range(256):
        for j in range(i):
            if (j >= FULLBRIGHT_START) == (i >= FULLBRIGHT_START) and tuple(palette[j]) == tuple(palette[i]):
                out[i] = j
                break
    return out


def lab(rgb) -> tuple[float, float, float]:
    """Scalar sRGB -> CIELAB (D65), written out separately from formats.images.palette."""
    def linear(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(float(c)) for c in rgb)
    x = (0.4124564 * r + 0.3575761 * g + 0.1804375 * b) / 0.95047
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = (0.0193339 * r + 0.1191920 * g + 0.9503041 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


# ---------------------------------------------------------------- palettes


def test_quake_palette_matches_the_table():
    palette = quake_palette()
    assert palette.shape == (256, 3) and palette.dtype == np.uint8
    assert [tuple(c) for c in palette.tolist()] == tsv_palette()
    assert tuple(palette[0]) == (0, 0, 0) and tuple(palette[254]) == (255, 255, 255)
    assert tuple(palette[255]) == (159, 91, 83)


def test_quake_palette_is_a_fresh_copy():
    quake_palette()[0] = 99
    assert tuple(quake_palette()[0]) == (0, 0, 0)


def test_fullbright_start():
    assert FULLBRIGHT_START == 224


def test_lmp_round_trip():
    palette = quake_palette()
    loaded = load_palette_lmp(palette.tobytes())
    assert loaded.dtype == np.uint8 and np.array_equal(loaded, palette)
    assert np.array_equal(load_palette_lmp(bytearray(palette.tobytes())), palette)


@pytest.mark.parametrize("size", [0, 1, 767, 769, 768 * 2])
def test_lmp_of_the_wrong_size_raises(size):
    with pytest.raises(FormatError, match="768"):
        load_palette_lmp(bytes(size))


def test_indices_to_rgba():
    palette = quake_palette()
    indices = np.array([[0, 1], [254, 255]], np.uint8)
    rgba = indices_to_rgba(indices, palette)
    assert rgba.shape == (2, 2, 4) and rgba.dtype == np.uint8
    assert rgba[1, 0].tolist() == [255, 255, 255, 255] and rgba[1, 1].tolist() == [159, 91, 83, 255]


@pytest.mark.parametrize("call", [
    lambda p: indices_to_rgba(np.zeros((2, 2), np.int32), p),
    lambda p: indices_to_rgba(np.zeros(4, np.uint8), p),
    lambda p: indices_to_rgba(np.zeros((2, 2), np.uint8), p[:255]),
    lambda p: rgba_to_indices(np.zeros((2, 2), np.uint8), p),
    lambda p: rgba_to_indices(np.zeros((2, 2, 5), np.uint8), p),
    lambda p: rgba_to_indices(np.zeros((2, 2, 3), np.uint8), p.astype(np.float32)),
    lambda p: rgba_to_indices(np.zeros((2, 2, 3), np.uint8), p, np.zeros((2, 3), bool)),
])
def test_bad_arguments_raise_format_error(call):
    with pytest.raises(FormatError):
        call(quake_palette())


# ---------------------------------------------------------------- identity


def assert_identity(indices: np.ndarray, palette: np.ndarray, dither: bool = False) -> None:
    """indices -> RGBA -> indices: same colour everywhere, same index wherever it is not a shadowed repeat."""
    back = rgba_to_indices(indices_to_rgba(indices, palette), palette, indices >= FULLBRIGHT_START, dither)
    assert back.dtype == np.uint8 and back.shape == indices.shape
    assert np.array_equal(palette[back], palette[indices])
    canonical = canonical_indices(palette)
    assert np.array_equal(back, canonical[indices])
    unique = canonical[indices] == indices
    assert np.array_equal(back[unique], indices[unique])


def test_quake_palette_repeats_are_the_documented_ones():
    canonical = canonical_indices(quake_palette())
    shadowed = {i: int(canonical[i]) for i in range(256) if canonical[i] != i}
    assert shadowed == {48: 0, 80: 51, 81: 52, 82: 53, 157: 141, 158: 142, 159: 143, 175: 16, 192: 111,
                        207: 112, 223: 32}
    palette = quake_palette()
    assert tuple(palette[76]) == tuple(palette[247])     # the one repeat across classes


@pytest.mark.parametrize("dither", [False, True])
def test_every_index_survives_the_round_trip(dither):
    indices = np.arange(256, dtype=np.uint8).reshape(16, 16)
    assert_identity(indices, quake_palette(), dither)
    assert_identity(indices[::-1].T.copy(), quake_palette(), dither)


def test_cross_class_repeat_follows_the_mask():
    palette = quake_palette()
    rgba = indices_to_rgba(np.array([[76, 247]], np.uint8), palette)
    assert rgba_to_indices(rgba, palette, np.array([[False, True]])).tolist() == [[76, 247]]
    assert rgba_to_indices(rgba, palette, np.array([[True, False]])).tolist() == [[247, 76]]
    assert rgba_to_indices(rgba, palette).tolist() == [[76, 76]]


def _corpus_skin_images() -> list:
    params = []
    for p in corpus_params("mdl/*/*.mdl"):
        path = p.values[0]
        if path is None:
            return [p]
        params.append(pytest.param(path, id=p.id))
    return params


@pytest.mark.parametrize("path", _corpus_skin_images())
def test_corpus_skins_survive_the_round_trip(path):
    palette = quake_palette()
    model = parse_mdl(path.read_bytes())
    for skin in model.skins:
        for image in skin.images:
            assert_identity(image, palette)


# ---------------------------------------------------------------- matching


def random_image(height: int, width: int, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def test_nearest_colour_in_lab_agrees_with_a_scalar_search():
    palette = quake_palette()
    image = random_image(10, 20)
    found = rgba_to_indices(image, palette)
    pal_lab = [lab(c) for c in palette]
    for pixel, index in zip(image.reshape(-1, 3), found.ravel()):
        p = lab(pixel)
        best = min(math.dist(p, pal_lab[i]) for i in range(FULLBRIGHT_START))
        assert math.dist(p, pal_lab[index]) == pytest.approx(best, abs=1e-9)


def test_ordinary_pixels_never_become_fullbright():
    palette = quake_palette()
    image = random_image(64, 64)
    assert int(rgba_to_indices(image, palette).max()) < FULLBRIGHT_START
    white = np.full((4, 4, 3), 255, np.uint8)       # only 254 holds pure white, and 254 is fullbright
    assert int(rgba_to_indices(white, palette).max()) < FULLBRIGHT_START
    assert set(rgba_to_indices(white, palette, np.ones((4, 4), bool)).ravel().tolist()) == {254}


def test_emissive_pixels_only_become_fullbright():
    palette = quake_palette()
    image = random_image(64, 64)
    mask = np.random.default_rng(5).random((64, 64)) < 0.3
    for dither in (False, True):
        found = rgba_to_indices(image, palette, mask, dither)
        assert np.all(found[mask] >= FULLBRIGHT_START)
        assert np.all(found[~mask] < FULLBRIGHT_START)


def test_alpha_is_ignored_and_three_channels_accepted():
    palette = quake_palette()
    image = random_image(16, 16)
    rgba = np.concatenate([image, np.random.default_rng(1).integers(0, 256, (16, 16, 1), dtype=np.uint8)], axis=2)
    assert np.array_equal(rgba_to_indices(rgba, palette), rgba_to_indices(image, palette))


# ---------------------------------------------------------------- dithering


def gradient(height: int = 48, width: int = 96) -> np.ndarray:
    x = np.linspace(0, 255, width)
    y = np.linspace(0, 255, height)[:, None]
    return np.stack([np.broadcast_to(x, (height, width)), np.broadcast_to(y, (height, width)),
                     np.full((height, width), 128.0)], axis=-1).round().astype(np.uint8)


def sequential_dither(image: np.ndarray, palette: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The textbook pixel-by-pixel Floyd-Steinberg scan, using the undithered matcher per pixel."""
    work = image.astype(np.float64)
    height, width = mask.shape
    out = np.zeros((height, width), np.uint8)
    for y in range(height):
        for x in range(width):
            value = np.clip(work[y, x], 0, 255)
            index = _nearest_exact(value, palette, bool(mask[y, x]))
            out[y, x] = index
            error = value - palette[index]
            for dy, dx, weight in ((0, 1, 7), (1, -1, 3), (1, 0, 5), (1, 1, 1)):
                if y + dy < height and 0 <= x + dx < width:
                    work[y + dy, x + dx] += error * weight / 16
    return out


def _nearest_exact(value: np.ndarray, palette: np.ndarray, emissive: bool) -> int:
    lo, hi = (FULLBRIGHT_START, 256) if emissive else (0, FULLBRIGHT_START)
    p = lab(value)
    distances = [math.dist(p, lab(palette[i])) for i in range(lo, hi)]
    return lo + int(np.argmin(distances))


def test_dithering_equals_the_sequential_scan():
    palette = quake_palette()
    image = random_image(9, 13, seed=11)
    mask = np.random.default_rng(2).random((9, 13)) < 0.25
    assert np.array_equal(rgba_to_indices(image, palette, mask, dither=True),
                          sequential_dither(image, palette, mask))


def test_dithering_changes_output_but_keeps_the_class_rule():
    palette = quake_palette()
    image = gradient()
    mask = np.zeros(image.shape[:2], bool)
    mask[:, :20] = True
    plain = rgba_to_indices(image, palette, mask)
    dithered = rgba_to_indices(image, palette, mask, dither=True)
    assert (plain != dithered).mean() > 0.1
    assert np.all(dithered[mask] >= FULLBRIGHT_START) and np.all(dithered[~mask] < FULLBRIGHT_START)
    ordinary = image[:, 20:].astype(float)

    def mean_colour_error(found: np.ndarray) -> float:
        """Largest per-channel gap between the average colours of result and image."""
        return float(np.abs(palette[found].mean(axis=(0, 1)) - ordinary.mean(axis=(0, 1))).max())
    assert mean_colour_error(dithered[:, 20:]) <= mean_colour_error(plain[:, 20:]) + 1.0


@pytest.mark.parametrize("dither", [False, True])
def test_320_by_200_converts_in_under_a_second(dither):
    palette = quake_palette()
    image = random_image(200, 320)
    mask = np.zeros((200, 320), bool)
    mask[:20] = True
    best = math.inf
    for _ in range(2):
        start = time.perf_counter()
        rgba_to_indices(image, palette, mask, dither=dither)
        best = min(best, time.perf_counter() - start)
    assert best < 1.0


REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"


@pytest.mark.parametrize("name, game", [("quake", "QUAKE"), ("quake2", "QUAKE2"), ("hexen2", "HEXEN2")])
def test_built_in_palettes_match_the_reference_tables(name, game):
    table = REFERENCE / f"{name}_palette.tsv"
    if not table.is_file():
        pytest.skip(f"reference palette not found at {table}")
    rows = [line.split() for line in table.read_text().splitlines() if line.strip() and not line.startswith("#")]
    expected = np.array([[int(v) for v in r[1:4]] for r in rows], dtype=np.uint8)
    assert expected.shape == (256, 3)
    np.testing.assert_array_equal(game_palette(game), expected)


def test_quake2_range_uses_every_index_but_255():
    palette = game_palette("QUAKE2")
    _, first = np.unique(palette[:255], axis=0, return_index=True)
    rgba = indices_to_rgba(np.sort(first).astype(np.uint8)[None, :], palette)
    found = rgba_to_indices(rgba, palette, ordinary=(0, 255))
    np.testing.assert_array_equal(found[0], np.sort(first))
    assert found.max() > FULLBRIGHT_START and TRANSPARENT not in found
