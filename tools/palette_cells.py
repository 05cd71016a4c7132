"""Build (or check) ``formats/images/palette_cells.npz``: the candidate lists per RGB cell that let the
skin conversion compare a colour with a few palette entries (formats/images/palette_cells.py).

    python tools/palette_cells.py [--check | --misses N] [--only NAME]   (any Python with numpy; no Blender)

For each class the exporters convert skins to (Quake's and Hexen II's ordinary colours with and without
the player ranges, their fullbright colours; Quake II's 0..254), every one of the 16,777,216 8-bit
colours is matched by the full exact search (no tables), and each cell's list keeps the entries nearest
to a colour of the cell grown by one value.  About 0.5-3 CPU minutes a class.  ``--check`` rebuilds the
lists and compares them with the stored file instead of writing it (exit 1 on a difference).
``--misses N`` writes nothing: for N random colours between 8-bit values (seed 0), how many have a nearest
entry (by the full search) missing from their cell's list, the largest gap between the two nearest listed
entries among those, and how many colours the near-tie rule (``palette._NEAR_TIE``) sends to the full search.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))
from formats.images import palette  # noqa: E402
from formats.images.palette_cells import TABLE_FILE, build_table, cell_of, class_key  # noqa: E402


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


def exact_nearest(colours: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """(256, 256, 256) uint8: the nearest allowed index of every 8-bit colour by the full search."""
    matcher = palette._Matcher(colours, (allowed,), use_cells=False)
    nearest = np.empty((256, 256, 256), dtype=np.uint8)
    green, blue = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    plane = np.stack([np.zeros(65536), green.ravel(), blue.ravel()], axis=1).astype(np.float64)
    ordinary = np.zeros(65536, dtype=bool)
    for red in range(256):
        plane[:, 0] = red
        nearest[red] = matcher.nearest(plane, ordinary).reshape(256, 256)
    return nearest


def misses(colours: np.ndarray, allowed: np.ndarray, count: int) -> str:
    """The ``--misses`` line of one class (see the module's docstring)."""
    listed = palette._Matcher(colours, (allowed,)).classes[0]
    if listed.cells is None:
        return "no lists for this class"
    full = palette._Matcher(colours, (allowed,), use_cells=False)
    rgb = np.random.default_rng(0).uniform(0, 255, (count, 3))
    missed, gaps, close = 0, [], 0
    offsets, candidates = listed.cells
    for start in range(0, count, 200_000):
        part = rgb[start:start + 200_000]
        lab, cell = palette.srgb_to_lab(part), cell_of(part)
        lo, counts = offsets[cell], offsets[cell + 1] - offsets[cell]
        colour_of = np.repeat(np.arange(len(part)), counts)
        entry = candidates[np.arange(len(colour_of)) + np.repeat(lo - (np.cumsum(counts) - counts), counts)]
        found, best, near = palette._nearest_pairs(listed, lab, colour_of, entry, near_tie=np.inf)
        distance = palette._ciede2000(lab[colour_of, 0], lab[colour_of, 1], lab[colour_of, 2],
                                      listed.l[entry], listed.a[entry], listed.b[entry])
        distance[entry == found[colour_of]] = np.inf
        gap = np.minimum.reduceat(distance, np.concatenate(([0], np.cumsum(counts)[:-1]))) - best
        wrong = listed.index[found] != full.nearest(part, np.zeros(len(part), bool))
        missed += int(wrong.sum())
        gaps += gap[wrong].tolist()
        close += int((gap < palette._NEAR_TIE).sum())
    return (f"{missed} of {count} fractional colours' nearest entries not in their lists"
            + (f" (gaps {min(gaps):.4f}-{max(gaps):.4f})" if gaps else "")
            + f"; {close} ({close / count:.1%}) within the near-tie {palette._NEAR_TIE} and searched in full")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the stored file, write nothing")
    parser.add_argument("--misses", type=int, metavar="N", help="count what the lists miss among N fractional colours")
    parser.add_argument("--only", help="one class by name")
    args = parser.parse_args(argv)
    if args.misses:
        for name, (colours, allowed) in classes().items():
            if not args.only or name == args.only:
                print(f"{name}: {misses(colours, allowed, args.misses)}", flush=True)
        return 0
    stored = dict(np.load(TABLE_FILE)) if TABLE_FILE.is_file() else {}
    arrays, failed = {}, 0
    for name, (colours, allowed) in classes().items():
        if args.only and name != args.only:
            continue
        start = time.process_time()
        entries = palette._Entries(colours, allowed, use_cells=False)
        key = class_key(colours, entries.index)
        offsets, listed = build_table(exact_nearest(colours, allowed))
        arrays[f"{key}_offsets"], arrays[f"{key}_entries"] = offsets, listed
        same = np.array_equal(stored.get(f"{key}_offsets"), offsets) and \
            np.array_equal(stored.get(f"{key}_entries"), listed)
        failed += args.check and not same
        print(f"{name}: {len(listed) / len(offsets[:-1]):.2f} entries a cell (at most "
              f"{int(np.diff(offsets).max())}), {time.process_time() - start:.0f} CPU s"
              + (f", {'same as stored' if same else 'DIFFERS from stored'}" if args.check else ""), flush=True)
    if not args.check:
        np.savez_compressed(TABLE_FILE, **arrays)
        print(f"wrote {TABLE_FILE.relative_to(CHECKOUT)} ({TABLE_FILE.stat().st_size} bytes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
