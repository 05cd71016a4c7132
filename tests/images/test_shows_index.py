"""Which pixels still show their palette index's colour, compared as one 32-bit word a pixel (issue 33:
the untouched MDL export of a 4096x256 skin asks it three times): the same pixels as comparing the
three channels, with or without alpha, on Quake's palette and a shorter one, every index used."""
from __future__ import annotations

import numpy as np

from formats.images.palette import quake_palette
from formats.images.pixel_words import shows_index


def channel_by_channel(rgb: np.ndarray, indices: np.ndarray, palette: np.ndarray) -> np.ndarray:
    return np.all(rgb[..., :3] == palette[indices][..., :3], axis=-1)


def test_same_pixels_as_comparing_each_channel():
    rng = np.random.default_rng(33)
    palette = quake_palette()
    indices = rng.integers(0, 256, (64, 80)).astype(np.uint8)
    rgba = np.concatenate([palette[indices], rng.integers(0, 256, (64, 80, 1))], axis=-1).astype(np.uint8)
    changed = rng.random((64, 80)) < 0.3
    rgba[changed, rng.integers(0, 3, int(changed.sum()))] ^= np.uint8(1)      # one channel off by one bit
    flipped = np.ascontiguousarray(rgba[::-1])[::-1]      # not contiguous: copied into words, not read in place
    for image in (rgba, np.ascontiguousarray(rgba[..., :3]), rgba[::-1][::-1], flipped):
        got = shows_index(image, indices, palette)
        assert np.array_equal(got, channel_by_channel(image, indices, palette))
        assert np.array_equal(got, ~changed)


def test_a_short_palette():
    palette = np.array([[0, 0, 0], [255, 255, 255], [1, 2, 3]], dtype=np.uint8)
    indices = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.uint8)
    rgb = palette[indices].copy()
    rgb[1, 2] = (0, 0, 1)
    assert shows_index(rgb, indices, palette).tolist() == [[True, True, True], [True, True, False]]
