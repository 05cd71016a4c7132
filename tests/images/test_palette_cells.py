"""The skin conversion's candidate lists per RGB cell (formats/images/palette_cells.py) give the exact
CIEDE2000 search's indices: every class the exporters convert skins to has lists; each sampled cell's list,
and each eighth's list of a split cell, holds every entry within NEAR_GAP of the nearest entry of some 8-bit
colour of the cell (or eighth) grown by one value, compared here with every entry of the class; random
8-bit and fractional colours, and fractional colours the first lists (nearest entries only) missed, match
as the full search matches them, through the cells and through the eighths the dithering looks up.  A
palette the lists were not made for is searched in full."""
from __future__ import annotations

import numpy as np
import pytest

from formats.images import palette_search
from formats.images.cielab import ciede2000, srgb_to_lab
from formats.images.palette import FULLBRIGHT_START, PLAYER_RANGES, TRANSPARENT_INDEX, game_palette
from formats.images.palette_cells import CELL, CELLS, NEAR_GAP, cell_of, eighth_of, fine_lists


def _without(indices: np.ndarray, ranges) -> np.ndarray:
    for lo, hi in ranges:
        indices = indices[(indices < lo) | (indices >= hi)]
    return indices


CLASSES = {f"{name}-{kind}": (name, allowed) for name in ("QUAKE", "HEXEN2") for kind, allowed in (
    ("ordinary", _without(np.arange(FULLBRIGHT_START), PLAYER_RANGES)),
    ("player", np.arange(FULLBRIGHT_START)),
    ("fullbright", np.arange(FULLBRIGHT_START, 256)))}
CLASSES["QUAKE2-opaque"] = ("QUAKE2", np.arange(TRANSPARENT_INDEX))
# Fractional colours (from `tools/palette_cells.py --misses 4000000` on the first lists, which held only each
# 8-bit colour's nearest entry) whose nearest entry was missing from their cell's list, with that entry.
MISSED_BY_NEAREST_ONLY_LISTS = {
    "QUAKE-ordinary": [([59.979987786101226, 194.59086536504353, 5.720604639671986], 195),
                       ([63.66966602538757, 194.37306076004796, 4.174756610783269], 195),
                       ([63.384108593853036, 194.45028557395716, 1.6484134645241466], 195)],
    "QUAKE-player": [([59.979987786101226, 194.59086536504353, 5.720604639671986], 195),
                     ([63.66966602538757, 194.37306076004796, 4.174756610783269], 195),
                     ([63.384108593853036, 194.45028557395716, 1.6484134645241466], 195)],
}


def matchers(name: str, allowed: np.ndarray):
    colours = game_palette(name)
    return (palette_search._Matcher(colours, (allowed,)),
            palette_search._Matcher(colours, (allowed,), use_cells=False))


def nearest(matcher, rgb: np.ndarray) -> np.ndarray:
    return matcher.nearest(np.asarray(rgb, np.float64), np.zeros(len(rgb), dtype=bool))


def listed(entries, number: int) -> set[int]:
    offsets, positions = entries.cells[0], entries.cells[1]
    return set(entries.index[positions[offsets[number]:offsets[number + 1]]].tolist())


def near_winners(entries, low: np.ndarray, side: int) -> set[int]:
    """Every entry of the class within NEAR_GAP of the nearest of some 8-bit colour of the box of ``side``
    values from ``low`` grown by one, by comparing each colour with every entry."""
    axes = [np.arange(max(0, c - 1), min(256, c + side + 1)) for c in low]
    rgb = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    distance = ciede2000(srgb_to_lab(rgb)[:, None, :], entries.lab[None, :, :])
    near = distance <= distance.min(axis=1, keepdims=True) + NEAR_GAP
    return set(entries.index[np.flatnonzero(near.any(axis=0))].tolist())


@pytest.mark.parametrize("label", CLASSES)
def test_every_exporter_class_has_lists(label):
    listing, full = matchers(*CLASSES[label])
    assert listing.classes[0].cells is not None, f"no candidate lists for {label}: its skins are searched in full"
    assert full.classes[0].cells is None


@pytest.mark.parametrize("label", CLASSES)
def test_sampled_cells_and_eighths_hold_every_near_winner(label):
    entries = matchers(*CLASSES[label])[0].classes[0]
    split = entries.cells[2]
    rng = np.random.default_rng(len(label))
    divided = np.flatnonzero(split >= 0)
    cells = np.concatenate(([0, CELLS ** 3 - 1], rng.choice(CELLS ** 3, 4, replace=False),
                            rng.choice(divided, min(2, len(divided)), replace=False)))
    eighths = fine_lists(split)
    for cell in cells:
        corner = np.array([cell // (CELLS * CELLS), cell // CELLS % CELLS, cell % CELLS]) * CELL
        missing = near_winners(entries, corner, CELL) - listed(entries, cell)
        assert not missing, f"cell {cell}: entries {sorted(missing)} within {NEAR_GAP} of a nearest not in its list"
        if split[cell] < 0:
            continue
        for child in range(8):
            low = corner + np.array([child >> 2 & 1, child >> 1 & 1, child & 1]) * (CELL // 2)
            number = eighths[eighth_of(low[None])[0]]
            assert number >= CELLS ** 3
            held = listed(entries, number)
            missing = near_winners(entries, low, CELL // 2) - held
            assert not missing, f"cell {cell}, eighth {child}: entries {sorted(missing)} not in its list"
            assert held <= listed(entries, cell)


def listed_nearest(entries, rgb: np.ndarray, lists: np.ndarray) -> np.ndarray:
    """The nearest entry of each colour among list ``lists`` of it, compared pair by pair."""
    lab = srgb_to_lab(rgb)
    offsets, positions = entries.cells[0], entries.cells[1]
    found = np.empty(len(rgb), dtype=np.int64)
    for i, number in enumerate(lists):
        candidates = positions[offsets[number]:offsets[number + 1]]
        found[i] = entries.index[candidates[np.argmin(ciede2000(lab[i], entries.lab[candidates]))]]
    return found


@pytest.mark.parametrize("label", CLASSES)
def test_random_colours_match_the_full_search(label):
    listing, full = matchers(*CLASSES[label])
    entries = listing.classes[0]
    rng = np.random.default_rng(7)
    whole = rng.integers(0, 256, (40000, 3))
    fractional = rng.uniform(0, 255, (40000, 3))
    edges = np.stack(np.meshgrid(*[np.array([0, 7, 8, 15, 16, 127, 128, 239, 240, 255])] * 3, indexing="ij"),
                     -1).reshape(-1, 3)
    for rgb in (whole, fractional, edges):
        found, expected = nearest(listing, rgb), nearest(full, rgb)
        differ = np.flatnonzero(found != expected)
        assert not len(differ), f"{len(differ)} colours differ, first {rgb[differ[0]].tolist()}"
    sample = np.concatenate([fractional[:3000], edges])
    expected = nearest(full, sample)
    found = listed_nearest(entries, sample, fine_lists(entries.cells[2])[eighth_of(sample)])
    differ = np.flatnonzero(found != expected)
    assert not len(differ), f"{len(differ)} colours differ by their eighths' lists, first {sample[differ[0]].tolist()}"


@pytest.mark.parametrize("label", MISSED_BY_NEAREST_ONLY_LISTS)
def test_fractional_colours_nearest_only_lists_missed_are_listed(label):
    listing, full = matchers(*CLASSES[label])
    entries = listing.classes[0]
    rgb = np.array([colour for colour, _ in MISSED_BY_NEAREST_ONLY_LISTS[label]])
    expected = nearest(full, rgb)
    assert expected.tolist() == [index for _, index in MISSED_BY_NEAREST_ONLY_LISTS[label]]
    assert listed_nearest(entries, rgb, cell_of(rgb)).tolist() == expected.tolist()


def test_a_palette_without_lists_is_searched_in_full():
    colours = game_palette("QUAKE")
    colours[40] = (250, 10, 200)           # a palette of a mod: not the one the lists were made for
    allowed = np.arange(FULLBRIGHT_START)
    listing = palette_search._Matcher(colours, (allowed,))
    assert listing.classes[0].cells is None
    rgb = np.random.default_rng(3).integers(0, 256, (5000, 3))
    assert np.array_equal(nearest(listing, rgb),
                          nearest(palette_search._Matcher(colours, (allowed,), use_cells=False), rgb))
    assert np.array_equal(cell_of(np.array([[255, 255, 255], [0, 16, 15.9]])), [CELLS ** 3 - 1, CELLS])
