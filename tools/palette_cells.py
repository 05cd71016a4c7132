"""Build (or check) ``formats/images/palette_cells.npz``: the candidate lists per RGB cell that let the
skin conversion compare a colour with a few palette entries (formats/images/palette_cells.py).

    python tools/palette_cells.py [--check | --misses N] [--only NAME]   (any Python with numpy; no Blender)

For each class the exporters convert skins to (Quake's and Hexen II's ordinary colours with and without
the player ranges, their fullbright colours; Quake II's 0..254), every one of the 16,777,216 8-bit
colours is compared with the class's entries by the full exact search (no tables), and each cell's list
(grown by one value) keeps every entry within ``NEAR_GAP`` of some colour's nearest; the eighths of the
cells whose lists are longer than ``SPLIT_ABOVE`` get lists of their own.  About 1-4 CPU minutes a class.
``--check`` rebuilds the lists and compares them with the stored file instead of writing it (exit 1 on a
difference).  ``--misses N`` writes nothing: for N random colours between 8-bit values (seed 0), how many
have a nearest entry (by the full search) missing from their cell's list and from their eighth's list,
and the largest gap one needs: its nearest entry's distance less the nearest distance, at the best corner
of its unit cube (a colour is sure to be listed when that is at most ``NEAR_GAP``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

CHECKOUT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(CHECKOUT))
from formats.images import palette, palette_search  # noqa: E402
from formats.images.cielab import _ciede2000, srgb_to_lab  # noqa: E402
from formats.images.palette_cells import (CELL, CELLS, NEAR_GAP, SPLIT_ABOVE, TABLE_FILE, cell_of,  # noqa: E402
                                         class_key, eighth_of)


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


def _grown_cells(values: np.ndarray, side: int = CELL) -> tuple[np.ndarray, np.ndarray]:
    """The cells of ``side`` values along one axis whose grown span (one value more on each side) holds
    each of ``values`` (0..255): the cell itself, and its neighbour (-1 where there is none) at an edge."""
    own = values // side
    other = np.where(values % side == side - 1, own + 1, np.where(values % side == 0, own - 1, -1))
    return own, np.where((other >= 0) & (other < 256 // side), other, -1)


def near_winner_lists(colours: np.ndarray, allowed: np.ndarray, gap: float, reds=range(256)):
    """(offsets, entries, split, winners) of the class (:mod:`formats.images.palette_cells`): for each cell,
    and for each eighth of a cell whose list is longer than ``SPLIT_ABOVE``, the allowed indices nearest
    (CIEDE2000) to some 8-bit colour of the cell grown by one value (their number: ``winners``), then the
    others within ``gap`` of such a colour's nearest, found by the full search of every one of the
    16,777,216 colours (the lightness window of :func:`palette_search._window` widened by ``gap``)."""
    entries = palette_search._Entries(colours, allowed, use_cells=False)
    half = CELL // 2
    held = {(side, kind): np.zeros(((256 // side) ** 3, len(entries.index)), dtype=bool)
            for side in (CELL, half) for kind in ("near", "won")}
    green, blue = (axis.ravel() for axis in np.meshgrid(np.arange(256), np.arange(256), indexing="ij"))
    plane = np.stack([np.zeros(65536), green, blue], axis=1).astype(np.float64)
    for red in reds:
        plane[:, 0] = red
        lab = srgb_to_lab(plane)
        colour_of, entry = palette_search._window(entries, lab, entries.guesses(cell_of(plane)), margin=gap)
        distance = np.empty(len(entry))
        for i in range(0, len(entry), 1 << 20):
            c, e = colour_of[i:i + (1 << 20)], entry[i:i + (1 << 20)]
            distance[i:i + (1 << 20)] = _ciede2000(lab[c, 0], lab[c, 1], lab[c, 2],
                                                   entries.l[e], entries.a[e], entries.b[e])
        best = np.full(65536, np.inf)
        np.minimum.at(best, colour_of, distance)
        for kind, keep in (("near", distance <= best[colour_of] + gap), ("won", distance == best[colour_of])):
            colours_kept, entry_kept = colour_of[keep], entry[keep]
            for side in (CELL, half):
                table, per_axis = held[side, kind], 256 // side
                cells_g, cells_b = _grown_cells(green[colours_kept], side), _grown_cells(blue[colours_kept], side)
                for r in _grown_cells(np.array([red]), side):
                    for g in cells_g:
                        for b in cells_b:
                            valid = (r[0] >= 0) & (g >= 0) & (b >= 0)
                            table[((r[0] * per_axis + g) * per_axis + b)[valid], entry_kept[valid]] = True

    def listed(side: int, number: int) -> np.ndarray:
        won, near = held[side, "won"][number], held[side, "near"][number]
        return entries.index[np.concatenate([np.flatnonzero(won), np.flatnonzero(near & ~won)])].astype(np.uint8)

    lists = [listed(CELL, cell) for cell in range(CELLS ** 3)]
    winners = [int(held[CELL, "won"][cell].sum()) for cell in range(CELLS ** 3)]
    split = np.full(CELLS ** 3, -1, dtype=np.int16)
    for cell in np.flatnonzero([len(found) > SPLIT_ABOVE for found in lists]):
        split[cell] = (len(lists) - CELLS ** 3) // 8
        r, g, b = cell // (CELLS * CELLS), cell // CELLS % CELLS, cell % CELLS
        for child in range(8):
            fine = ((2 * r + (child >> 2)) * 2 * CELLS + 2 * g + (child >> 1 & 1)) * 2 * CELLS + 2 * b + (child & 1)
            lists.append(listed(half, fine))
            winners.append(int(held[half, "won"][fine].sum()))
    offsets = np.zeros(len(lists) + 1, dtype=np.uint32)
    offsets[1:] = np.cumsum([len(found) for found in lists])
    return offsets, np.concatenate(lists), split, np.array(winners, dtype=np.uint8)


def misses(colours: np.ndarray, allowed: np.ndarray, count: int) -> str:
    """The ``--misses`` line of one class (see the module's docstring)."""
    lists = palette_search._Matcher(colours, (allowed,))
    listed = lists.classes[0]
    if listed.cells is None:
        return "no lists for this class"
    full = palette_search._Matcher(colours, (allowed,), use_cells=False)
    offsets, positions, _, _, eighths = listed.cells
    held = np.zeros((len(offsets) - 1, len(listed.index)), dtype=bool)
    held[np.repeat(np.arange(len(offsets) - 1), np.diff(offsets)), positions] = True
    position = np.zeros(256, dtype=np.int64)
    position[listed.index] = np.arange(len(listed.index))
    corners = np.array([[i >> 2 & 1, i >> 1 & 1, i & 1] for i in range(8)])
    rgb = np.random.default_rng(0).uniform(0, 255, (count, 3))
    in_cells = in_eighths = 0
    needed = 0.0
    for start in range(0, count, 100_000):
        part = rgb[start:start + 100_000]
        nearest = position[full.nearest(part, np.zeros(len(part), dtype=bool))]
        eighth = eighths[eighth_of(part)]
        in_cells += int((~held[cell_of(part), nearest]).sum())
        in_eighths += int((~held[eighth, nearest]).sum())
        # the gap each colour needs: at the best corner of its unit cube, its nearest entry's distance
        # less that corner's nearest distance (8-bit corners: the lists are exact for them)
        corner = np.minimum(np.floor(part)[:, None, :] + corners, 255).reshape(-1, 3)
        best = np.empty(len(corner))
        lists.nearest(corner, np.zeros(len(corner), dtype=bool), best)
        own = np.repeat(nearest, 8)
        lab = srgb_to_lab(corner)
        gap = _ciede2000(lab[:, 0], lab[:, 1], lab[:, 2], listed.l[own], listed.a[own], listed.b[own]) - best
        needed = max(needed, float(gap.reshape(-1, 8).min(axis=1).max()))
    return (f"{in_cells} of {count} fractional colours' nearest entries not in their cell's list, {in_eighths} "
            f"not in their eighth's; largest gap needed {needed:.4f} (the lists hold {NEAR_GAP})")


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
        entries = palette_search._Entries(colours, allowed, use_cells=False)
        key = class_key(colours, entries.index)
        offsets, listed, split, winners = near_winner_lists(colours, allowed, NEAR_GAP)
        made = {"counts": np.diff(offsets).astype(np.uint8), "entries": listed, "split": split, "winners": winners}
        arrays.update({f"{key}_{part}": array for part, array in made.items()})
        same = all(np.array_equal(stored.get(f"{key}_{part}"), array) for part, array in made.items())
        failed += args.check and not same
        counts = made["counts"]
        print(f"{name}: {counts[:CELLS ** 3].mean():.2f} entries a cell (at most {int(counts[:CELLS ** 3].max())}), "
              f"{int((made['split'] >= 0).sum())} cells split in eighths ({counts[CELLS ** 3:].mean():.2f} entries an "
              f"eighth), {time.process_time() - start:.0f} CPU s"
              + (f", {'same as stored' if same else 'DIFFERS from stored'}" if args.check else ""), flush=True)
    if not args.check:
        np.savez_compressed(TABLE_FILE, **{**(stored if args.only else {}), **arrays})
        print(f"wrote {TABLE_FILE.relative_to(CHECKOUT)} ({TABLE_FILE.stat().st_size} bytes)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
