"""Several images in one skin: the atlas layout, the packed pixels and the remapped UVs.

MD2 and MDL models have one skin on every face (the game draws skin 0, or the one the entity
picks, on the whole model), so a model whose faces use several images is exported with those
images side by side in one skin. Each image keeps its own pixels at its own size (no resampling)
in a cell of the atlas; UVs are moved into the cell, so a corner samples the same texel it sampled
in its own image.

- Layout: shelf packing, tallest images first, rows left to right. Of the row widths tried, the
  one with the smallest atlas area (then the squarer, then the lower) whose height fits
  ``max_height`` wins: the engines refuse skins taller than ``MAX_LBM_HEIGHT`` = 480 (id Quake
  ``model.c`` and Quake II ``ref_gl/gl_model.c``, Mod_LoadAliasModel: "model %s has a skin
  taller than %d"). ``width_multiple`` rounds the atlas width up (4 for MDL: Quake's
  Mod_LoadAliasModel refuses other widths).
- Gutter: each cell is surrounded by ``gutter`` pixels repeating its edge pixels, so a corner on
  the edge of an image (UV 0 or 1, whose texel rounds to the next column) and bilinear filtering in
  source ports read the image's own edge, never the neighbouring image.
- UVs outside 0..1 (tiling): each triangle is moved by whole tiles so the mean of its corners lies
  in the unit square ("wrap per triangle": a triangle inside one tile shows exactly what it showed
  with a repeating texture); corners still outside 0..1 (a triangle spanning a tile border) are
  clamped into the image and counted, since an atlas cell cannot repeat.

Coordinates: images are (h, w, ...) arrays, top row first; UVs are Blender's (v up): texel column
``u * w``, row from the top ``(1 - v) * h``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError
from .skin_limits import MAX_LBM_HEIGHT

DEFAULT_GUTTER = 2
_EDGE = 1e-6


@dataclass
class AtlasLayout:
    """Where each image goes: atlas ``width`` x ``height``; ``cells`` (n, 4) int64 rows of
    (x, y, w, h), the image's top-left pixel in the atlas (y from the top) and its size."""
    width: int
    height: int
    cells: np.ndarray
    gutter: int


def _shelves(sizes: np.ndarray, order: np.ndarray, row_width: int) -> tuple[np.ndarray, int, int]:
    """Next-fit shelves of padded ``sizes`` in ``order``: (n, 2) origins, used width, height."""
    origins = np.zeros((len(sizes), 2), np.int64)
    x = y = row_height = used = 0
    for i in order:
        w, h = sizes[i]
        if x and x + w > row_width:
            y += row_height
            x = row_height = 0
        origins[i] = (x, y)
        x += w
        used = max(used, x)
        row_height = max(row_height, h)
    return origins, used, y + row_height


def plan_atlas(sizes: list[tuple[int, int]], max_height: int = MAX_LBM_HEIGHT, width_multiple: int = 1,
               gutter: int = DEFAULT_GUTTER, max_width: int = 32767) -> AtlasLayout:
    """The layout of images of ``sizes`` (w, h); FormatError when no layout fits ``max_height``."""
    if not sizes:
        raise FormatError("no images to pack", field="skin")
    raw = np.array(sizes, np.int64).reshape(-1, 2)
    if raw.min() < 1:
        raise FormatError(f"an image to pack has no pixels: {raw.tolist()}", field="skin")
    padded = raw + 2 * gutter
    order = np.lexsort((-padded[:, 0], -padded[:, 1]))     # tallest first, then widest
    candidates = {int(padded[:, 0].max())}
    for sequence in (order, np.argsort(-padded[:, 0], kind="stable")):
        candidates.update(int(x) for x in np.cumsum(padded[sequence, 0]))
    best = None
    for row_width in sorted(candidates):
        origins, used, height = _shelves(padded, order, row_width)
        width = -(-used // width_multiple) * width_multiple
        if height > max_height or width > max_width:
            continue
        score = (width * height, max(width, height) / min(width, height), height)
        if best is None or score < best[0]:
            best = (score, origins, width, height)
    if best is None:
        total = int((padded[:, 0] * padded[:, 1]).sum())
        raise FormatError(f"images of sizes {', '.join(f'{w}x{h}' for w, h in raw.tolist())} do not fit in one "
                          f"skin at most {max_height} pixels high ({total} pixels with their borders)", field="skin")
    _, origins, width, height = best
    cells = np.concatenate([origins + gutter, raw], axis=1)
    return AtlasLayout(int(width), int(height), cells, gutter)


def pack_images(images: list[np.ndarray], layout: AtlasLayout, fill=0) -> np.ndarray:
    """The atlas of ``images`` ((h, w) or (h, w, c) arrays of one dtype, in layout order): each at its
    cell, its gutter repeating its edge pixels, the rest ``fill``."""
    first = np.asarray(images[0])
    atlas = np.empty((layout.height, layout.width) + first.shape[2:], first.dtype)
    atlas[...] = fill
    g = layout.gutter
    for image, (x, y, w, h) in zip(images, layout.cells.tolist()):
        image = np.asarray(image)
        if image.shape[:2] != (h, w):
            raise FormatError(f"image is {image.shape[1]}x{image.shape[0]}, its cell {w}x{h}", field="skin")
        pad = ((g, g), (g, g)) + ((0, 0),) * (image.ndim - 2)
        atlas[y - g:y + h + g, x - g:x + w + g] = np.pad(image, pad, mode="edge")
    return atlas


def wrap_uvs(corner_uvs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(T, 3, 2) UVs moved by whole tiles into the unit square (per triangle, by the mean of its
    corners) and clamped where a triangle still leaves it; also (T,) True for the clamped ones."""
    uvs = np.asarray(corner_uvs, np.float64)
    shift = np.floor(uvs.mean(axis=1, keepdims=True))
    local = uvs - shift
    outside = np.any((local < -_EDGE) | (local > 1.0 + _EDGE), axis=(1, 2))
    return np.clip(local, 0.0, 1.0), outside


def atlas_uvs(corner_uvs: np.ndarray, cell_index: np.ndarray, layout: AtlasLayout) -> tuple[np.ndarray, np.ndarray]:
    """(T, 3, 2) UVs of each triangle in the atlas, from its UVs in its own image (cell ``cell_index``
    (T,)); also the (T,) mask of triangles whose UVs had to be clamped (see :func:`wrap_uvs`)."""
    local, clamped = wrap_uvs(corner_uvs)
    cells = layout.cells[np.asarray(cell_index, np.int64)].astype(np.float64)
    x, y, w, h = (cells[:, None, k] for k in range(4))
    u = (x + local[..., 0] * w) / layout.width
    v = 1.0 - (y + (1.0 - local[..., 1]) * h) / layout.height
    return np.stack([u, v], axis=-1), clamped
