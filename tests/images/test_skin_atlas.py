"""formats/images/skin_atlas.py: layouts that fit and never overlap, packed pixels, remapped UVs that sample
the same texel as in the image itself, the wrap-then-clamp rule for UVs outside 0..1."""
from __future__ import annotations

import numpy as np
import pytest

from formats.errors import FormatError
from formats.images.skin_atlas import atlas_uvs, pack_images, plan_atlas, wrap_uvs

RNG = np.random.default_rng(7)
SIZE_SETS = [[(64, 64), (32, 32)], [(64, 64), (32, 16), (128, 32), (16, 48)], [(10, 7), (3, 5), (9, 9)],
             [(256, 256), (256, 256), (256, 200)], [(300, 20)] * 5]


def texel(image_shape, uv):
    """The texel an engine reads at ``uv`` (nearest, texel centres at +0.5): column, row from the top."""
    h, w = image_shape[:2]
    return np.floor(uv[..., 0] * w).astype(int), np.floor((1.0 - uv[..., 1]) * h).astype(int)


@pytest.mark.parametrize("sizes", SIZE_SETS)
@pytest.mark.parametrize("multiple", [1, 4])
def test_layout_fits_without_overlap(sizes, multiple):
    layout = plan_atlas(sizes, max_height=480, width_multiple=multiple, gutter=2)
    assert layout.width % multiple == 0 and layout.height <= 480
    covered = np.zeros((layout.height, layout.width), int)
    for (x, y, w, h), size in zip(layout.cells.tolist(), sizes):
        assert (w, h) == size
        assert x >= 2 and y >= 2 and x + w + 2 <= layout.width and y + h + 2 <= layout.height
        covered[y - 2:y + h + 2, x - 2:x + w + 2] += 1
    assert covered.max() == 1
    # no wasted atlas: at least half the area is image and gutter for these sets
    assert covered.sum() >= 0.5 * covered.size


def test_layout_refuses_what_cannot_fit():
    with pytest.raises(FormatError, match="do not fit in one skin at most 480 pixels high"):
        plan_atlas([(600, 500)], max_height=480)
    layout = plan_atlas([(200, 300), (200, 300)], max_height=480)     # side by side, not stacked
    assert (layout.width, layout.height) == (408, 304)


@pytest.mark.parametrize("sizes", SIZE_SETS[:3])
def test_packed_pixels_and_gutters(sizes):
    images = [RNG.integers(0, 256, (h, w, 4), dtype=np.uint8) for w, h in sizes]
    layout = plan_atlas(sizes, width_multiple=4, gutter=2)
    atlas = pack_images(images, layout, fill=(0, 0, 0, 255))
    assert atlas.shape == (layout.height, layout.width, 4)
    for image, (x, y, w, h) in zip(images, layout.cells.tolist()):
        np.testing.assert_array_equal(atlas[y:y + h, x:x + w], image)
        np.testing.assert_array_equal(atlas[y - 2, x:x + w], image[0])         # gutter repeats the edge
        np.testing.assert_array_equal(atlas[y + h + 1, x:x + w], image[-1])
        np.testing.assert_array_equal(atlas[y:y + h, x - 1], image[:, 0])
        np.testing.assert_array_equal(atlas[y - 2, x - 2], image[0, 0])
    indices = [RNG.integers(0, 224, (h, w), dtype=np.uint8) for w, h in sizes]
    packed = pack_images(indices, layout)
    for image, (x, y, w, h) in zip(indices, layout.cells.tolist()):
        np.testing.assert_array_equal(packed[y:y + h, x:x + w], image)


@pytest.mark.parametrize("sizes", SIZE_SETS[:3])
def test_remapped_uvs_sample_the_same_texel(sizes):
    images = [RNG.integers(0, 256, (h, w, 3), dtype=np.uint8) for w, h in sizes]
    layout = plan_atlas(sizes, width_multiple=4)
    atlas = pack_images(images, layout)
    count = 500
    cell = RNG.integers(0, len(sizes), count)
    uvs = RNG.uniform(0.0, 1.0, (count, 3, 2))
    out, clamped = atlas_uvs(uvs, cell, layout)
    assert not clamped.any()
    for k, image in enumerate(images):
        mine = cell == k
        cx, cy = texel(image.shape, uvs[mine])
        ax, ay = texel(atlas.shape, out[mine])
        np.testing.assert_array_equal(atlas[ay, ax], image[cy, cx])
        # the MD2/MDL export's integer ST (rint(u * width - 0.5)) is the image's own ST moved by the cell
        x, y = layout.cells[k, :2]
        np.testing.assert_array_equal(np.rint(out[mine][..., 0] * layout.width - 0.5),
                                      x + np.rint(uvs[mine][..., 0] * image.shape[1] - 0.5))
        np.testing.assert_array_equal(np.rint((1 - out[mine][..., 1]) * layout.height - 0.5),
                                      y + np.rint((1 - uvs[mine][..., 1]) * image.shape[0] - 0.5))


def test_uvs_outside_the_square_wrap_per_triangle_then_clamp():
    inside = np.array([[[0.1, 0.2], [0.4, 0.2], [0.3, 0.7]]])
    tiled = inside + np.array([3.0, -2.0])
    wrapped, clamped = wrap_uvs(np.concatenate([inside, tiled]))
    np.testing.assert_allclose(wrapped[1], inside[0])
    assert not clamped.any()
    spanning = np.array([[[0.8, 0.5], [1.3, 0.5], [1.1, 0.9]]])     # crosses the tile border at u = 1
    wrapped, clamped = wrap_uvs(spanning)                           # mean u 1.07: moved one tile left
    assert clamped.tolist() == [True]
    np.testing.assert_allclose(wrapped[0], [[0.0, 0.5], [0.3, 0.5], [0.1, 0.9]])
    edge = np.array([[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]])          # the whole square: no clamping
    wrapped, clamped = wrap_uvs(edge)
    assert not clamped.any()
    np.testing.assert_allclose(wrapped, edge)
