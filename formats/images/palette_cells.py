"""Candidate lists per RGB cell for the game palettes' colour classes, so that a colour is compared by
CIEDE2000 with a handful of palette entries instead of every entry its lightness allows.

For a class of palette entries (e.g. Quake's 0..223 without the player ranges), ``tools/palette_cells.py``
compares every one of the 16,777,216 8-bit sRGB colours with the class's entries (the full search of
:mod:`.palette_search`, ties to the lowest index) and keeps, for each cell of 16 x 16 x 16 colours grown by
one value on every side, every entry within ``NEAR_GAP`` of the nearest entry of some colour of it: the
near-winners.  Every 8-bit colour's nearest entry is in its cell's list by construction, so the nearest
among the list is the nearest of the class.  A colour between 8-bit values (dithering carries fractions)
lies in a unit cube of the grown cell; its nearest entry is in the list as soon as, at one corner of that
cube, it is within ``NEAR_GAP`` of that corner's nearest.  CIEDE2000 is not continuous (the mean hue
switches sides where a hue difference passes 180 degrees), so that is checked by sampling, not proved:
``tools/palette_cells.py --misses N`` counts the sampled colours whose nearest is not listed (none in a
million a class, docs/dev/benchmarks.md).

A cell whose list is longer than ``SPLIT_ABOVE`` (dark colours, where the palettes are dense) also has a
list for each of its eight 8 x 8 x 8 eighths, made the same way (each eighth grown by one value): the
dithering, which pays for every (colour, entry) pair, looks colours up there.

``palette_cells.npz``: for each table, four arrays named by the class's key (``class_key``):
``<key>_counts`` uint8 and ``<key>_entries`` uint8, the palette indices of list ``c`` being
``entries[offsets[c]:offsets[c + 1]]`` (``offsets`` the running sum of the counts): lists 0..4095 are the cells, then eight for each split cell;
``<key>_split`` int16 (4096,): for each cell, -1, or ``s`` when its eighths are lists
``4096 + 8 s + (r8 & 1) * 4 + (g8 & 1) * 2 + (b8 & 1)`` (``r8`` = r // 8 ...); ``<key>_winners`` uint8, one
for each list: the number of its entries (first, ascending) that are the nearest of some 8-bit colour of
the grown cell, the others (ascending) being near-winners only.  8-bit colours (a skin without dithering)
are compared with those first entries only.  A class with no table
(another palette, other ranges) is searched in full: the result is the same, only slower.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

CELL = 16                   # 8-bit values per cell side
CELLS = 256 // CELL         # cells per axis
TABLE_FILE = Path(__file__).with_name("palette_cells.npz")
NEAR_GAP = 0.25            # a list holds every entry within this CIEDE2000 of a colour's nearest
SPLIT_ABOVE = 6            # a cell with a longer list also has a list for each eighth of it


def class_key(palette: np.ndarray, index: np.ndarray) -> str:
    """The key of a class: a hash of its distinct entries' palette indices and colours (the table is
    valid only for exactly those)."""
    index = np.asarray(index, dtype=np.uint8)
    digest = hashlib.sha256(index.tobytes() + np.asarray(palette, dtype=np.uint8)[index].tobytes())
    return "k" + digest.hexdigest()[:32]


def cell_of(rgb: np.ndarray) -> np.ndarray:
    """The cell number of (n, 3) sRGB values in 0..255 (int or float)."""
    cell = np.minimum(np.asarray(rgb, np.float64) // CELL, CELLS - 1).astype(np.int64)
    return (cell[:, 0] * CELLS + cell[:, 1]) * CELLS + cell[:, 2]


@lru_cache(maxsize=1)
def _tables() -> dict[str, np.ndarray]:
    if not TABLE_FILE.is_file():
        return {}
    with np.load(TABLE_FILE, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def cell_table(key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(offsets, entries, split, winners) of the class with ``key``, or None when no table was made for it."""
    tables = _tables()
    if f"{key}_winners" not in tables:
        return None
    offsets = np.concatenate(([0], np.cumsum(tables[f"{key}_counts"], dtype=np.int64)))
    return offsets, tables[f"{key}_entries"], tables[f"{key}_split"], tables[f"{key}_winners"].astype(np.int64)


def eighth_of(rgb: np.ndarray) -> np.ndarray:
    """The eighth of a cell of (n, 3) sRGB values in 0..255: ``(r // 8 * 32 + g // 8) * 32 + b // 8``
    (a value times 1/8 is exact, and truncation is the floor of values not below 0)."""
    return (np.asarray(rgb) * (1 / (CELL // 2))).astype(np.int64) @ _EIGHTH_NUMBER


_EIGHTH_NUMBER = np.array([4 * CELLS * CELLS, 2 * CELLS, 1], dtype=np.int64)


def fine_lists(split: np.ndarray) -> np.ndarray:
    """(32768,) int64: the list of each 8 x 8 x 8 eighth of a cell, numbered ``(r8 * 32 + g8) * 32 + b8``:
    the eighth's own list where its cell is split, else the cell's."""
    r8, g8, b8 = np.indices((2 * CELLS,) * 3).reshape(3, -1)
    cell = ((r8 >> 1) * CELLS + (g8 >> 1)) * CELLS + (b8 >> 1)
    child = (r8 & 1) * 4 + (g8 & 1) * 2 + (b8 & 1)
    return np.where(split[cell] >= 0, CELLS ** 3 + 8 * split[cell].astype(np.int64) + child, cell)
