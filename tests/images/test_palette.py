"""Palette loading and index <-> RGBA conversion: identity on real skins, the fullbright rule, dithering."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from support.colour_reference import ciede2000 as reference_de
from support.colour_reference import lab
from support.colour_reference import nearest as reference_nearest
from support.environment import corpus_params
from support.work_count import measure

from formats import FormatError
from formats.images.palette import (
    FULLBRIGHT_START,
    PLAYER_RANGES,
    ciede2000,
    game_palette,
    indices_to_rgba,
    load_palette_lmp,
    quake_palette,
    rgba_to_indices,
)
from formats.images.palette import TRANSPARENT_INDEX as TRANSPARENT
from formats.mdl.codec import parse_mdl

TSV = Path(__file__).resolve().parents[2] / "formats" / "images" / "quake_palette.tsv"


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


def test_nearest_colour_agrees_with_a_scalar_ciede2000_search():
    palette = quake_palette()
    image = random_image(10, 20)
    found = rgba_to_indices(image, palette)
    pal_lab = [lab(c) for c in palette]
    for pixel, index in zip(image.reshape(-1, 3), found.ravel()):
        p = lab(pixel)
        best = min(reference_de(p, pal_lab[i]) for i in range(FULLBRIGHT_START))
        assert reference_de(p, pal_lab[index]) == pytest.approx(best, abs=1e-9)


# Sharma, Wu and Dalal (2005), table 1: pairs 1, 7, 17, 19, 25, 33 and their CIEDE2000.
SHARMA_PAIRS = [((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
                ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
                ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
                ((50.0, 2.5, 0.0), (56.0, -27.0, -3.0), 31.9030),
                ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
                ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082)]


@pytest.mark.parametrize("first, second, expected", SHARMA_PAIRS)
def test_ciede2000_matches_the_published_test_pairs(first, second, expected):
    assert reference_de(first, second) == pytest.approx(expected, abs=1e-4)
    assert reference_de(second, first) == pytest.approx(expected, abs=1e-4)
    assert float(ciede2000(np.array(first), np.array(second))) == pytest.approx(expected, abs=1e-4)


NAMED = {"magenta": (255, 0, 255), "red": (255, 0, 0), "green": (0, 255, 0), "blue": (0, 0, 255),
         "yellow": (255, 255, 0), "cyan": (0, 255, 255), "orange": (255, 128, 0), "purple": (128, 0, 128),
         "white": (255, 255, 255), "pink": (255, 192, 203), "grey": (128, 128, 128), "brown": (139, 69, 19),
         "navy": (0, 0, 128), "olive": (128, 128, 0), "teal": (0, 128, 128), "violet": (238, 130, 238),
         "gold": (255, 215, 0), "skin tone": (224, 172, 105)}


@pytest.mark.parametrize("name", sorted(NAMED))
@pytest.mark.parametrize("avoid", [(), PLAYER_RANGES])
def test_named_colours_get_the_ciede2000_nearest_index(name, avoid):
    palette = quake_palette()
    allowed = [i for i in range(FULLBRIGHT_START) if not any(lo <= i < hi for lo, hi in avoid)]
    found = int(rgba_to_indices(np.array([[NAMED[name]]], np.uint8), palette, avoid=avoid)[0, 0])
    assert found == reference_nearest(NAMED[name], palette, allowed)


def test_magenta_is_pink_144_not_blue_210():
    """The issue's example: CIE76 (plain CIELAB distance) picked blue 210 for pure magenta."""
    palette = quake_palette()
    magenta = np.array([[(255, 0, 255)]], np.uint8)
    assert int(rgba_to_indices(magenta, palette)[0, 0]) == 144
    cie76 = min(range(FULLBRIGHT_START), key=lambda i: math.dist(lab((255, 0, 255)), lab(palette[i])))
    assert cie76 == 210


def test_avoided_ranges_get_no_new_colour_but_kept_pixels_stay():
    palette = quake_palette()
    ramp = indices_to_rgba(np.arange(224, dtype=np.uint8).reshape(14, 16), palette)
    found = rgba_to_indices(ramp, palette, avoid=PLAYER_RANGES)
    avoided = np.zeros(256, bool)
    for lo, hi in PLAYER_RANGES:
        avoided[lo:hi] = True
    assert not avoided[found].any()
    keep = np.arange(224, dtype=np.uint8).reshape(14, 16)
    edited = ramp.copy()
    edited[0, :4, :3] = (255, 0, 255)            # four pixels repainted
    kept = rgba_to_indices(edited, palette, avoid=PLAYER_RANGES, keep=keep)
    np.testing.assert_array_equal(kept.ravel()[4:], keep.ravel()[4:])
    assert set(kept[0, :4].tolist()) == {144}
    assert int(rgba_to_indices(edited, palette, keep=keep, dither=True).ravel()[17]) == 17


def test_kept_index_follows_the_mask():
    """A pixel keeps its imported index only while the mask gives it the same fullbright class."""
    palette = quake_palette()
    keep = np.array([[76, 247, 20, 250]], np.uint8)      # 76 and 247 are both dark red
    rgba = indices_to_rgba(keep, palette)
    mask = np.array([[True, False, False, False]])
    found = rgba_to_indices(rgba, palette, mask, keep=keep)
    assert int(found[0, 0]) == 247 and int(found[0, 1]) == 76     # swapped by the mask
    assert int(found[0, 2]) == 20                                  # kept, even in the shirt range
    assert int(found[0, 3]) < FULLBRIGHT_START                     # mask cleared: lit


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
    """The textbook pixel-by-pixel Floyd-Steinberg scan: each pixel gets the nearest entry (a scalar search)
    of its value rounded to whole numbers, and passes on its unrounded value less the entry's colour."""
    work = image.astype(np.float64)
    height, width = mask.shape
    out = np.zeros((height, width), np.uint8)
    for y in range(height):
        for x in range(width):
            value = np.clip(work[y, x], 0, 255)
            index = _nearest_exact(np.rint(value), palette, bool(mask[y, x]))
            out[y, x] = index
            error = value - palette[index]
            for dy, dx, weight in ((0, 1, 7), (1, -1, 3), (1, 0, 5), (1, 1, 1)):
                if y + dy < height and 0 <= x + dx < width:
                    work[y + dy, x + dx] += error * weight / 16
    return out


def _nearest_exact(value: np.ndarray, palette: np.ndarray, emissive: bool) -> int:
    lo, hi = (FULLBRIGHT_START, 256) if emissive else (0, FULLBRIGHT_START)
    p = lab(value)
    distances = [reference_de(p, lab(palette[i])) for i in range(lo, hi)]
    return lo + int(np.argmin(distances))


def _ordinary_searched() -> np.ndarray:
    """Quake's palette with entry 5 changed: its 0-223 class has no table (formats/images/palette_lut.py),
    its 224-255 class keeps Quake's."""
    palette = quake_palette()
    palette[5] = (40, 90, 10)
    return palette


def _fullbright_searched() -> np.ndarray:
    """Quake's palette with entry 240 changed: its 0-223 class keeps Quake's table, its 224-255 class has none."""
    palette = quake_palette()
    palette[240] = (40, 90, 10)
    return palette


@pytest.mark.parametrize("make_palette", [quake_palette, _ordinary_searched, _fullbright_searched],
                         ids=["tables", "ordinary-searched", "fullbright-searched"])
def test_dithering_equals_the_sequential_scan_deciding_on_whole_values(make_palette):
    palette = make_palette()
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
def test_random_colours_convert_without_a_python_loop_per_pixel(dither):
    """Distinct colours (the worst case: nothing to share) by exact CIEDE2000, vectorised. Counted, not timed
    (the test machines are shared; docs/dev/results.md has the figures of ``tools/benchmark_palette.py``): sixteen
    times the pixels cost at most about as many more Python and C calls as there are more chunks of colours
    (plain: well under one call per pixel) or more anti-diagonals (dithering walks them in order, w + 2h of
    them); a loop per pixel would cost sixteen times as many."""
    palette = quake_palette()

    def calls(height: int, width: int) -> int:
        image = random_image(height, width)
        mask = np.zeros((height, width), bool)
        mask[:height // 10] = True
        return measure(rgba_to_indices, image, palette, mask, dither, memory=False).calls

    small, big = calls(25, 40), calls(100, 160)
    if dither:
        diagonals = (160 + 2 * 99) / (40 + 2 * 24)
        assert big <= 1.5 * diagonals * small, (small, big)
    else:
        assert big <= 100 * 160 / 4 and big <= 16 * small, (small, big)


REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference"


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
