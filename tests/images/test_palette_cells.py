"""The skin conversion's candidate lists per RGB cell (formats/images/palette_cells.py) give the exact
CIEDE2000 search's indices: every class the exporters convert skins to has a list, each sampled cell's
list holds the full search's nearest entry of every 8-bit colour of the cell grown by one value, and
random 8-bit and fractional colours match as the full search matches them.  A palette the lists were not
made for is searched in full."""
from __future__ import annotations

import numpy as np
import pytest

from formats.images import palette as palette_module
from formats.images.palette import FULLBRIGHT_START, PLAYER_RANGES, TRANSPARENT_INDEX, game_palette
from formats.images.palette_cells import CELL, CELLS, cell_of


def _without(indices: np.ndarray, ranges) -> np.ndarray:
    for lo, hi in ranges:
        indices = indices[(indices < lo) | (indices >= hi)]
    return indices


CLASSES = {f"{name}-{kind}": (name, allowed) for name in ("QUAKE", "HEXEN2") for kind, allowed in (
    ("ordinary", _without(np.arange(FULLBRIGHT_START), PLAYER_RANGES)),
    ("player", np.arange(FULLBRIGHT_START)),
    ("fullbright", np.arange(FULLBRIGHT_START, 256)))}
CLASSES["QUAKE2-opaque"] = ("QUAKE2", np.arange(TRANSPARENT_INDEX))


def matchers(name: str, allowed: np.ndarray):
    colours = game_palette(name)
    return (palette_module._Matcher(colours, (allowed,)),
            palette_module._Matcher(colours, (allowed,), use_cells=False))


def nearest(matcher, rgb: np.ndarray) -> np.ndarray:
    return matcher.nearest(np.asarray(rgb, np.float64), np.zeros(len(rgb), dtype=bool))


@pytest.mark.parametrize("label", CLASSES)
def test_every_exporter_class_has_lists(label):
    listed, full = matchers(*CLASSES[label])
    assert listed.classes[0].cells is not None, f"no candidate lists for {label}: its skins are searched in full"
    assert full.classes[0].cells is None


@pytest.mark.parametrize("label", CLASSES)
def test_sampled_cells_hold_every_nearest_entry(label):
    listed, full = matchers(*CLASSES[label])
    offsets, positions = listed.classes[0].cells
    index = listed.classes[0].index
    rng = np.random.default_rng(len(label))
    cells = np.concatenate(([0, CELLS ** 3 - 1], rng.choice(CELLS ** 3, 6, replace=False)))
    for cell in cells:
        corner = np.array([cell // (CELLS * CELLS), cell // CELLS % CELLS, cell % CELLS]) * CELL
        axes = [np.arange(max(0, c - 1), min(256, c + CELL + 1)) for c in corner]
        rgb = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
        winners = set(np.unique(nearest(full, rgb)).tolist())
        held = set(index[positions[offsets[cell]:offsets[cell + 1]]].tolist())
        assert winners <= held, f"cell {cell}: nearest entries {sorted(winners - held)} not in its list"


@pytest.mark.parametrize("label", CLASSES)
def test_random_colours_match_the_full_search(label):
    listed, full = matchers(*CLASSES[label])
    rng = np.random.default_rng(7)
    whole = rng.integers(0, 256, (40000, 3))
    fractional = rng.uniform(0, 255, (40000, 3))
    edges = np.stack(np.meshgrid(*[np.array([0, 15, 16, 127, 128, 239, 240, 255])] * 3, indexing="ij"),
                     -1).reshape(-1, 3)
    for rgb in (whole, fractional, edges):
        found, expected = nearest(listed, rgb), nearest(full, rgb)
        differ = np.flatnonzero(found != expected)
        assert not len(differ), f"{len(differ)} colours differ, first {rgb[differ[0]].tolist()}"


def test_a_palette_without_lists_is_searched_in_full():
    colours = game_palette("QUAKE")
    colours[40] = (250, 10, 200)           # a palette of a mod: not the one the lists were made for
    allowed = np.arange(FULLBRIGHT_START)
    listed = palette_module._Matcher(colours, (allowed,))
    assert listed.classes[0].cells is None
    rgb = np.random.default_rng(3).integers(0, 256, (5000, 3))
    assert np.array_equal(nearest(listed, rgb),
                          nearest(palette_module._Matcher(colours, (allowed,), use_cells=False), rgb))
    assert np.array_equal(cell_of(np.array([[255, 255, 255], [0, 16, 15.9]])), [CELLS ** 3 - 1, CELLS])
