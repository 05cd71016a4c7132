"""The CIEDE2000-nearest entry of every 8-bit sRGB colour, per class of palette entries: one table lookup
instead of a search, for the game palettes' classes (Quake's and Hexen II's 0-223 with and without the player
ranges and their 224-255, Quake II's 0-254).

``palette_lut.npz`` holds, for each class, an array named by its :func:`class_key`: uint8 bytes of an LZMA
(``.xz``) stream that unpacks to 16,777,216 bytes, the palette index of colour ``r << 16 | g << 8 | b``
(:func:`colour_keys`). ``tools/palette_lut.py`` made them with the full search of :mod:`.palette_search`
(ties to the lowest index), so a lookup gives exactly what the search gives; ``--check N`` compares N
random colours a class with the search again. A table unpacks the first time a conversion looks a colour
up in its class (about 0.05 s; 16 MB held for the rest of the session). A class without a table (a mod's palette, other ranges,
or a Python built without ``lzma``) is searched in full: the same indices, slower.
"""
from __future__ import annotations

import hashlib
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

TABLE_FILE = Path(__file__).with_name("palette_lut.npz")
COLOURS = 1 << 24              # 8-bit sRGB colours: a table's length
_KEY_WEIGHTS = np.array([1 << 16, 1 << 8, 1], dtype=np.int64)


def class_key(palette: np.ndarray, index: np.ndarray) -> str:
    """The key of a class: a hash of its distinct entries' palette indices and colours (a table is valid
    only for exactly those)."""
    index = np.asarray(index, dtype=np.uint8)
    digest = hashlib.sha256(index.tobytes() + np.asarray(palette, dtype=np.uint8)[index].tobytes())
    return "k" + digest.hexdigest()[:32]


def colour_keys(rgb: np.ndarray) -> np.ndarray:
    """(n,) int64 ``r << 16 | g << 8 | b`` of (n, 3) whole sRGB values in 0..255 (int or float)."""
    return np.asarray(rgb).astype(np.int64) @ _KEY_WEIGHTS


@lru_cache(maxsize=1)
def _stored() -> dict[str, np.ndarray]:
    """The compressed tables by class key ({} when the file or ``lzma`` is missing)."""
    try:
        import lzma  # noqa: F401  (a Python built without it gets no tables)
    except ImportError:
        return {}
    if not TABLE_FILE.is_file():
        return {}
    with np.load(TABLE_FILE, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


@cache
def class_table(key: str) -> np.ndarray | None:
    """(16,777,216,) uint8 palette indices of the class with ``key``, or None when no table was made for it."""
    packed = _stored().get(key)
    if packed is None:
        return None
    import lzma
    return np.frombuffer(lzma.decompress(packed.tobytes()), dtype=np.uint8)
