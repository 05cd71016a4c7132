"""The fill Quake and Quake II give an 8-bit skin when they load it, and the faces it repaints.

Both engines repaint the region of the skin's top-left texel's colour that touches that texel (its
colour's texels joined to it side by side, not corner to corner): each texel takes the colour of a
neighbour outside the region, else index 0, so the region ends black but at its rim. It is meant for
the background around the UV islands ("so mipmapping doesn't have haloes"). Nothing happens when the
top-left texel is index 0 or 255. Quake does it for every MDL skin (ironwail ``gl_model.c``
``Mod_FloodFillSkin``), Quake II for every 8-bit PCX skin (Q2PRO ``src/refresh/images.c``
``IMG_FloodFill``, called from ``load_pcx`` for ``IT_SKIN`` images): a face painted in that colour
and reaching the corner's region is drawn black in the game.

A face counts as painted in the region when the texel under its centre is in it: a corner or an edge
of a face often sits on the background next to its island, and a skin may use the background colour
in a few texels at an island's rim; neither is what a player sees. Faces of no area are left out.
"""
from __future__ import annotations

import numpy as np

UNFILLED = (0, 255)         # the engines leave a skin whose top-left texel is one of these alone


def _row_runs(same: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, start, end) of every run of True texels, row by row (end exclusive)."""
    height, width = same.shape
    padded = np.zeros((height, width + 2), dtype=np.int8)
    padded[:, 1:-1] = same
    step = np.diff(padded, axis=1)
    rows, starts = np.nonzero(step == 1)
    _, ends = np.nonzero(step == -1)
    return rows, starts, ends


def corner_region(indices: np.ndarray) -> np.ndarray:
    """(H, W) bool: the texels the engines repaint (empty where the top-left texel is 0 or 255).
    Found run by run: a row's run of the colour joins the runs of the next row that overlap it, and
    the runs joined to the first one, step by step, are the region."""
    indices = np.asarray(indices)
    height, width = indices.shape
    region = np.zeros((height, width), dtype=bool)
    if indices.size == 0 or int(indices[0, 0]) in UNFILLED:
        return region
    rows, starts, ends = _row_runs(indices == indices[0, 0])
    span = width + 2                                       # a key per (row, x) that sorts row by row
    # the runs of row r + 1 overlapping run a: starting before a's end and ending after a's start
    low = np.searchsorted((rows * span + ends), (rows + 1) * span + starts, side="right")
    high = np.searchsorted((rows * span + starts), (rows + 1) * span + ends, side="left")
    count = np.maximum(high - low, 0)
    above = np.repeat(np.arange(len(rows)), count)
    below = np.repeat(low - np.cumsum(count) + count, count) + np.arange(count.sum())
    reached = np.zeros(len(rows), dtype=bool)
    reached[0] = True                                      # row 0's first run holds texel (0, 0)
    while True:
        grown = reached.copy()
        grown[below[reached[above]]] = True
        grown[above[reached[below]]] = True
        if np.array_equal(grown, reached):
            break
        reached = grown
    edges = np.zeros((height, width + 1), dtype=np.int32)
    np.add.at(edges, (rows[reached], starts[reached]), 1)
    np.add.at(edges, (rows[reached], ends[reached]), -1)
    return np.cumsum(edges, axis=1)[:, :width] > 0


def faces_in_region(region: np.ndarray, texel_triangles: np.ndarray) -> int:
    """How many faces are painted in ``region``: ``texel_triangles`` (T, 3, 2) their corners in texels
    (x to the right, y down from the skin's top-left corner; texel (x, y) spans x..x+1, y..y+1)."""
    corners = np.asarray(texel_triangles, dtype=np.float64).reshape(-1, 3, 2)
    if not region.any() or len(corners) == 0:
        return 0
    one, two = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
    flat = np.abs(one[:, 0] * two[:, 1] - one[:, 1] * two[:, 0]) < 1e-9
    centre = corners[~flat].mean(axis=1)
    height, width = region.shape
    x = np.clip(np.floor(centre[:, 0]).astype(np.int64), 0, width - 1)
    y = np.clip(np.floor(centre[:, 1]).astype(np.int64), 0, height - 1)
    return int(region[y, x].sum())


QUAKE = "Quake repaints that region when it loads the skin (ironwail gl_model.c Mod_FloodFillSkin)"
QUAKE2 = "Quake II repaints that region when it loads an 8-bit PCX skin (Q2PRO src/refresh/images.c IMG_FloodFill)"


def corner_hits(skins: list[tuple[str, np.ndarray]], texel_triangles: np.ndarray) -> list[tuple[str, int, int]]:
    """(label, faces painted in the region, the top-left texel's index) of each of ``skins`` ((label: its
    number or file name, (H, W) palette indices)) with faces painted in its corner's region."""
    hits = []
    for label, indices in skins:
        faces = faces_in_region(corner_region(indices), texel_triangles)
        if faces:
            hits.append((label, faces, int(indices[0, 0])))
    return hits


def corner_note(hits: list[tuple[str, int, int]], total_faces: int, rule: str) -> list[str]:
    """One warning line for every skin of ``hits`` (:func:`corner_hits`), or none."""
    if not hits:
        return []
    labels = ("skins " if len(hits) > 1 else "skin ") + ", ".join(label for label, _, _ in hits[:4]) + (
        " and more" if len(hits) > 4 else "")
    faces = max(count for _, count, _ in hits)
    indices = sorted({index for _, _, index in hits})
    return [f"{labels}: {'up to ' if len(hits) > 1 else ''}{faces} of the {total_faces} faces are painted in the "
            f"colour of the skin's top-left texel (index {', '.join(map(str, indices))}) where it reaches that corner, "
            f"and are drawn black: {rule}; make the top-left texel black (index 0) or a colour no face is painted in "
            "there"]
