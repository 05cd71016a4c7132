"""An imported skin exported unchanged (issue 33: a large MDL skin cost more than the edited model's frames)
is checked on its own uint8 values: no float copy of the image, and only the pixels left to match are keyed
and sorted (the previous code made a float64 copy and a key of every pixel); the indices are those of the
exact search (tests/support/palette_reference.py), whole and with a few pixels repainted."""
from __future__ import annotations

import numpy as np

from formats.images.palette import FULLBRIGHT_START, game_palette, indices_to_rgba, match_palette
from support.palette_reference import reference_indices
from support.work_count import measure

def kept_skin(repainted: int, size=(256, 512)):
    palette = game_palette("QUAKE")
    keep = np.random.default_rng(8).integers(0, 256, size, dtype=np.uint8)
    image = indices_to_rgba(keep, palette)
    rng = np.random.default_rng(9)
    rows, cols = rng.integers(0, size[0], repainted), rng.integers(0, size[1], repainted)
    image[rows, cols, :3] = rng.integers(0, 256, (repainted, 3), dtype=np.uint8)
    return image, palette, keep, keep >= FULLBRIGHT_START


def test_a_kept_skin_gets_the_exact_searchs_indices():
    for repainted in (0, 500):
        image, palette, keep, mask = kept_skin(repainted)
        found = match_palette(image, palette, mask, keep=keep)[0]
        np.testing.assert_array_equal(found, reference_indices(image, palette, emissive_mask=mask, keep=keep))


def test_a_kept_skin_is_not_copied_as_floats_nor_keyed_whole():
    """Less than 16 bytes a pixel at the peak (a float64 copy of the colours alone is 24; the matching of
    the repainted colours takes a few MB whatever the size)."""
    image, palette, keep, mask = kept_skin(500, (1024, 2048))
    match_palette(image[:8, :8], palette, mask[:8, :8], keep=keep[:8, :8])      # tables built outside the count
    work = measure(match_palette, image, palette, mask, False, (0, FULLBRIGHT_START), (), keep)
    assert work.peak < keep.size * 16


def test_fullbright_pixels_and_far_counts_are_todays(extension):
    """The MDL export's fullbright decision and its count of masked pixels far from every fullbright colour,
    against the previous code: a kept skin with repainted pixels, its mask as imported, painted white and
    black in places; and a skin made in Blender (no imported indices)."""
    from importlib import import_module
    from formats.images.palette import rgba_to_indices
    from support import speed_reference as reference
    fullbright = import_module(f"{extension}.exporters.mdl.fullbright")
    image, palette, keep, mask = kept_skin(3000)
    rng = np.random.default_rng(10)
    mask_rgba = np.zeros(image.shape, np.uint8)
    mask_rgba[mask] = 255
    mask_rgba[:40, :60] = 255                                   # painted white over ordinary colours
    mask_rgba[200:, 300:] = 0                                   # painted black over fullbright ones
    mask_rgba[rng.random(mask.shape) < 0.01] = (127, 128, 129, 255)     # sums 384: white
    for imported in (keep, None):
        new = fullbright.fullbright_pixels(image, mask_rgba, imported, palette)
        old = reference.fullbright_pixels(image, mask_rgba, imported, palette, rgba_to_indices)
        np.testing.assert_array_equal(new, old)
        indices = match_palette(image, palette, new, keep=imported)[0]
        count = fullbright.far_from_fullbright(image, new, indices, palette)
        assert count == reference.far_from_fullbright(image, new, indices, palette) and count > 0
