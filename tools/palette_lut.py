"""Build (or check) ``formats/images/palette_lut.npz``: for each class of palette entries the exporters match
skins to, the CIEDE2000-nearest palette index of every 8-bit colour (formats/images/palette_lut.py).

    python tools/palette_lut.py [--only NAME] [--out PATH] [--jobs J]     build (1.5-7 CPU minutes a class)
    python tools/palette_lut.py --check N [--only NAME]                   compare N random colours a class
    (any Python with numpy and lzma; no Blender)

Building compares every colour with the class's entries by the full search of
``formats/images/palette_search.py`` (its tables switched off: ``use_lut=False``), one red value (65,536
colours) at a time, and stores each table as an LZMA stream (preset 9, extreme: the same bytes from the
same table). ``--check N`` looks N random 8-bit colours, the greys and the cube's corners up in the stored
tables and searches them again: exit 1 if any differs, or if a class has no table.
"""
from __future__ import annotations

import argparse
import lzma
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))

from formats.images import palette  # noqa: E402
from formats.images.palette_lut import COLOURS, TABLE_FILE, class_key, class_table, colour_keys  # noqa: E402
from formats.images.palette_search import _Entries, _Matcher  # noqa: E402


def classes() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> (palette, allowed indices) of every class the exporters match skins to."""
    ordinary = np.arange(palette.FULLBRIGHT_START)
    not_player = ordinary
    for lo, hi in palette.PLAYER_RANGES:
        not_player = not_player[(not_player < lo) | (not_player >= hi)]
    fullbright = np.arange(palette.FULLBRIGHT_START, 256)
    found = {}
    for name in ("QUAKE", "HEXEN2"):
        colours = palette.game_palette(name)
        found[f"{name.lower()}-ordinary"] = colours, not_player
        found[f"{name.lower()}-player"] = colours, ordinary
        found[f"{name.lower()}-fullbright"] = colours, fullbright
    found["quake2-opaque"] = palette.game_palette("QUAKE2"), np.arange(palette.TRANSPARENT_INDEX)
    return found


def _searched(colours: np.ndarray, allowed: np.ndarray, rgb: np.ndarray) -> np.ndarray:
    """The full search's palette indices of (n, 3) colours in the class."""
    matcher = _Matcher(colours, (allowed,), use_lut=False)
    return matcher.nearest(rgb.astype(np.float64), np.zeros(len(rgb), dtype=bool))


def build(colours: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """(16,777,216,) uint8: the nearest palette index of every 8-bit colour ``r << 16 | g << 8 | b``."""
    matcher = _Matcher(colours, (allowed,), use_lut=False)
    values = np.arange(256, dtype=np.float64)
    green, blue = (axis.ravel() for axis in np.meshgrid(values, values, indexing="ij"))
    rgb = np.stack([np.zeros(1 << 16), green, blue], axis=1)
    table = np.empty(COLOURS, dtype=np.uint8)
    ordinary = np.zeros(1 << 16, dtype=bool)
    for red in range(256):
        rgb[:, 0] = red
        table[red << 16:(red + 1) << 16] = matcher.nearest(rgb, ordinary)
    return table


def packed(table: np.ndarray) -> np.ndarray:
    """The table as uint8 bytes of an LZMA stream (what formats/images/palette_lut.py unpacks)."""
    return np.frombuffer(lzma.compress(table.tobytes(), preset=9 | lzma.PRESET_EXTREME), dtype=np.uint8)


def _key(colours: np.ndarray, allowed: np.ndarray) -> str:
    """The class's key (formats/images/palette_lut.py), from its distinct entries as the matcher takes them."""
    return class_key(colours, _Entries(colours, allowed, use_lut=False).index)


def _build_one(name: str) -> tuple[str, str, np.ndarray, float]:
    colours, allowed = classes()[name]
    start = time.process_time()
    table = build(colours, allowed)
    return name, _key(colours, allowed), packed(table), time.process_time() - start


def check(name: str, count: int) -> int:
    """Colours whose stored index differs from the search (a class without a table counts every one)."""
    colours, allowed = classes()[name]
    table = class_table(_key(colours, allowed))
    grey = np.repeat(np.arange(256)[:, None], 3, axis=1)
    corners = np.array([[r, g, b] for r in (0, 255) for g in (0, 255) for b in (0, 255)])
    rgb = np.concatenate([np.random.default_rng(0).integers(0, 256, (count, 3)), grey, corners])
    if table is None:
        return len(rgb)
    return int(np.count_nonzero(table[colour_keys(rgb)] != _searched(colours, allowed, rgb)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="one class by name")
    parser.add_argument("--check", type=int, metavar="N", help="compare N random colours a class with the search")
    parser.add_argument("--out", type=Path, default=TABLE_FILE, help="where to write the tables")
    parser.add_argument("--jobs", type=int, default=1, help="classes built at once (processes)")
    args = parser.parse_args(argv)
    names = [name for name in classes() if not args.only or name == args.only]
    if args.check is not None:
        failed = 0
        for name in names:
            differ = check(name, args.check)
            failed += bool(differ)
            print(f"{name}: {differ} of {args.check + 264} colours differ from the search", flush=True)
        return 1 if failed else 0
    stored = dict(np.load(args.out)) if args.only and args.out.is_file() else {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, key, data, seconds in pool.map(_build_one, names):
            stored[key] = data
            print(f"{name}: {len(data)} bytes packed, {seconds:.0f} CPU s", flush=True)
    np.savez(args.out, **stored)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
