"""The skin conversion's tables (formats/images/palette_lut.py) give every 8-bit colour the index the exact
CIEDE2000 search gives: every class the exporters convert skins to has a table and the file holds no other;
random colours, the greys and a grid of values at the search grid's cell borders looked up match the full
search and, for a sample, a brute comparison with every entry; values that are not whole or not within
0..255, a palette the tables were not made for, and a Python without ``lzma`` are searched."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from formats.images import palette_lut, palette_search
from formats.images.cielab import ciede2000, srgb_to_lab
from formats.images.palette import FULLBRIGHT_START, PLAYER_RANGES, TRANSPARENT_INDEX, game_palette
from formats.images.palette_lut import class_key


def _without(indices: np.ndarray, ranges) -> np.ndarray:
    for lo, hi in ranges:
        indices = indices[(indices < lo) | (indices >= hi)]
    return indices


CLASSES = {f"{name}-{kind}": (name, allowed) for name in ("QUAKE", "HEXEN2") for kind, allowed in (
    ("ordinary", _without(np.arange(FULLBRIGHT_START), PLAYER_RANGES)),
    ("player", np.arange(FULLBRIGHT_START)),
    ("fullbright", np.arange(FULLBRIGHT_START, 256)))}
CLASSES["QUAKE2-opaque"] = ("QUAKE2", np.arange(TRANSPARENT_INDEX))


def nearest(matcher, rgb: np.ndarray) -> np.ndarray:
    return matcher.nearest(np.asarray(rgb, np.float64), np.zeros(len(rgb), dtype=bool))


def matchers(name: str, allowed: np.ndarray):
    colours = game_palette(name)
    return (palette_search._Matcher(colours, (allowed,)),
            palette_search._Matcher(colours, (allowed,), use_lut=False))


@pytest.mark.parametrize("label", CLASSES)
def test_every_exporter_class_has_a_table(label):
    tabled, searched = matchers(*CLASSES[label])
    assert tabled.classes[0].lut is not None, f"no table for {label}: its skins are searched in full"
    assert len(tabled.classes[0].lut) == 1 << 24
    assert searched.classes[0].lut is None


def test_the_file_holds_the_exporter_classes_only():
    keys = {class_key(game_palette(name), palette_search._Entries(game_palette(name), allowed, use_lut=False).index)
            for name, allowed in CLASSES.values()}
    with np.load(palette_lut.TABLE_FILE) as stored:
        assert set(stored.files) == keys


@pytest.mark.parametrize("label", CLASSES)
def test_looked_up_colours_match_the_search(label):
    tabled, searched = matchers(*CLASSES[label])
    rng = np.random.default_rng(len(label))
    random = rng.integers(0, 256, (30000, 3))
    greys = np.repeat(np.arange(256)[:, None], 3, axis=1)
    edges = np.stack(np.meshgrid(*[np.array([0, 1, 7, 8, 15, 16, 127, 128, 239, 240, 254, 255])] * 3,
                                 indexing="ij"), -1).reshape(-1, 3)
    rgb = np.concatenate([random, greys, edges])
    found, expected = nearest(tabled, rgb), nearest(searched, rgb)
    differ = np.flatnonzero(found != expected)
    assert not len(differ), f"{len(differ)} colours differ, first {rgb[differ[0]].tolist()}"
    entries = tabled.classes[0]
    sample = rgb[::25]
    brute = entries.index[np.argmin(ciede2000(srgb_to_lab(sample)[:, None, :], entries.lab[None, :, :]), axis=1)]
    assert np.array_equal(found[::25], brute)


def test_distances_from_the_table_are_the_searchs():
    tabled, searched = matchers(*CLASSES["QUAKE-ordinary"])
    rgb = np.random.default_rng(5).integers(0, 256, (20000, 3)).astype(np.float64)
    emissive = np.zeros(len(rgb), dtype=bool)
    looked_up, searched_distance = np.empty(len(rgb)), np.empty(len(rgb))
    assert np.array_equal(tabled.nearest(rgb, emissive, looked_up), searched.nearest(rgb, emissive, searched_distance))
    assert np.array_equal(looked_up, searched_distance)


def test_fractional_and_out_of_range_colours_are_searched():
    tabled, searched = matchers(*CLASSES["QUAKE-player"])
    rgb = np.random.default_rng(6).uniform(0, 255, (5000, 3))
    assert np.array_equal(nearest(tabled, rgb), nearest(searched, rgb))
    outside = np.array([[0.0, 0.0, -1.0], [0.0, 0.0, 256.0], [300.0, 20.0, 20.0]])
    assert np.array_equal(nearest(tabled, outside), nearest(searched, outside))


def test_a_palette_without_a_table_is_searched_in_full():
    colours = game_palette("QUAKE")
    colours[40] = (250, 10, 200)           # a palette of a mod: not the one the tables were made for
    allowed = np.arange(FULLBRIGHT_START)
    tabled = palette_search._Matcher(colours, (allowed,))
    assert tabled.classes[0].lut is None
    rgb = np.random.default_rng(3).integers(0, 256, (5000, 3))
    assert np.array_equal(nearest(tabled, rgb),
                          nearest(palette_search._Matcher(colours, (allowed,), use_lut=False), rgb))


def test_without_lzma_every_class_is_searched(monkeypatch):
    monkeypatch.setitem(sys.modules, "lzma", None)          # import lzma raises ImportError
    palette_lut._stored.cache_clear()
    palette_lut.class_table.cache_clear()
    try:
        tabled = palette_search._Matcher(game_palette("QUAKE"), (CLASSES["QUAKE-ordinary"][1],))
        assert tabled.classes[0].lut is None
        rgb = np.random.default_rng(4).integers(0, 256, (3000, 3))
        assert np.array_equal(nearest(tabled, rgb), nearest(matchers(*CLASSES["QUAKE-ordinary"])[1], rgb))
    finally:
        palette_lut._stored.cache_clear()
        palette_lut.class_table.cache_clear()
