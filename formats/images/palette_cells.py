"""Candidate lists per RGB cell for the game palettes' colour classes, so that a colour is compared by
CIEDE2000 with a handful of palette entries instead of every entry its lightness allows.

For a class of palette entries (e.g. Quake's 0..223 without the player ranges), ``tools/palette_cells.py``
finds the exact CIEDE2000-nearest entry of every one of the 16,777,216 8-bit sRGB colours (the full
search of :mod:`.palette`, ties to the lowest index) and keeps, for each cell of 16 x 16 x 16 colours,
the entries nearest to some colour of the cell grown by one value on every side.  Every 8-bit colour's
nearest entry is thus in its cell's list, so the nearest among the list is the nearest of the class,
and a colour between 8-bit values (dithering carries fractions) lies in a unit cube whose eight
corners' nearest entries are all in the list.

``palette_cells.npz``: for each table, two arrays named by the class's key (``class_key``):
``<key>_offsets`` uint32 (4097,) and ``<key>_entries`` uint8, the palette indices of cell ``c`` being
``entries[offsets[c]:offsets[c + 1]]``, ascending.  A class with no table (another palette, other
ranges) is searched in full: the result is the same, only slower.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

import numpy as np

CELL = 16                   # 8-bit values per cell side
CELLS = 256 // CELL         # cells per axis
TABLE_FILE = Path(__file__).with_name("palette_cells.npz")


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


def cell_table(key: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(offsets, entries) of the class with ``key``, or None when no table was made for it."""
    tables = _tables()
    if f"{key}_offsets" not in tables:
        return None
    return tables[f"{key}_offsets"].astype(np.int64), tables[f"{key}_entries"]


def build_table(nearest: np.ndarray, grow: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, entries) from the nearest palette index of every 8-bit colour, ``nearest`` (256, 256, 256)
    uint8 indexed [r, g, b]: each cell's list holds the entries nearest to a colour of the cell grown by
    ``grow`` values on every side (clipped to 0..255)."""
    lists = []
    for cell in range(CELLS ** 3):
        r, g, b = cell // (CELLS * CELLS), cell // CELLS % CELLS, cell % CELLS
        box = tuple(slice(max(0, CELL * c - grow), min(256, CELL * c + CELL + grow)) for c in (r, g, b))
        lists.append(np.unique(nearest[box]).astype(np.uint8))
    offsets = np.zeros(CELLS ** 3 + 1, dtype=np.uint32)
    offsets[1:] = np.cumsum([len(found) for found in lists])
    return offsets, np.concatenate(lists)
