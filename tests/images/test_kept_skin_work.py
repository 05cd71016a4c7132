"""An imported skin exported unchanged (issue 33: a large MDL skin cost more than the edited model's frames)
is checked on its own uint8 values: no float copy of the image, and only the pixels left to match are keyed
and sorted (the previous code made a float64 copy and a key of every pixel); every pixel still showing its
imported index's colour keeps that index, and each repainted one gets an entry of its class at the least
CIEDE2000 distance of a scalar search (tests/support/colour_reference.py)."""
from __future__ import annotations

import numpy as np
import pytest
from support.colour_reference import ciede2000, lab
from support.work_count import measure

from formats.images.palette import FULLBRIGHT_START, game_palette, indices_to_rgba, match_palette


def kept_skin(repainted: int, size=(256, 512)):
    palette = game_palette("QUAKE")
    keep = np.random.default_rng(8).integers(0, 256, size, dtype=np.uint8)
    image = indices_to_rgba(keep, palette)
    rng = np.random.default_rng(9)
    rows, cols = rng.integers(0, size[0], repainted), rng.integers(0, size[1], repainted)
    image[rows, cols, :3] = rng.integers(0, 256, (repainted, 3), dtype=np.uint8)
    return image, palette, keep, keep >= FULLBRIGHT_START


def test_a_kept_skin_keeps_its_indices_and_repainted_pixels_get_the_nearest():
    for repainted in (0, 120):
        image, palette, keep, mask = kept_skin(repainted)
        found = match_palette(image, palette, mask, keep=keep)[0]
        shows = np.all(image[..., :3] == palette[keep][..., :3], axis=-1)
        np.testing.assert_array_equal(found[shows], keep[shows])
        assert (~shows).sum() > repainted * 0.9 if repainted else shows.all()
        entries = [lab(colour) for colour in palette]
        for y, x in np.argwhere(~shows):
            here = lab(image[y, x, :3])
            lo, hi = (FULLBRIGHT_START, 256) if mask[y, x] else (0, FULLBRIGHT_START)
            best = min(ciede2000(here, entries[i]) for i in range(lo, hi))
            assert lo <= found[y, x] < hi and ciede2000(here, entries[found[y, x]]) == pytest.approx(best, abs=1e-9)


def test_a_kept_skin_is_not_copied_as_floats_nor_keyed_whole():
    """Less than 16 bytes a pixel at the peak (a float64 copy of the colours alone is 24; the matching of
    the repainted colours takes a few MB whatever the size)."""
    image, palette, keep, mask = kept_skin(500, (1024, 2048))
    match_palette(image[:8, :8], palette, mask[:8, :8], keep=keep[:8, :8])      # tables built outside the count
    work = measure(match_palette, image, palette, mask, False, (0, FULLBRIGHT_START), (), keep)
    assert work.peak < keep.size * 16
