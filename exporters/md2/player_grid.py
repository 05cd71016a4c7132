"""One grid for every file of a Quake II player: the body (``tris.md2``) and its weapon models.

The game draws ``tris.md2`` and ``weapon.md2`` with the same frame, each decoding
``byte * scale + translate`` with its own file's grid. Quantised on their own grids, a point the
body and the weapon share (the hand on the grip) decodes to two points up to a step apart, and the
two parts crack and swim against each other. Here every frame of every file is quantised on one
grid: the grid :func:`...formats.md2.lattice.frame_grids` makes for the union of all files'
positions in that frame (per-frame grids, or the shared lattice where *Grid* asks for it), so equal
positions in Blender give equal bytes and equal decoded points in every file.

Frames that every file writes back as imported keep their grids (an untouched imported player is
written byte for byte); a frame changed in any file is quantised on the union grid in all of them.
"""
from __future__ import annotations

import numpy as np

from ...formats.md2.lattice import frame_grids
from .build import BuildResult

_GRID_NAMES = {"SHARED": "one shared lattice", "PER_FRAME": "per-frame grids"}


def share_player_grid(results: dict[str, BuildResult], grid: str) -> str | None:
    """Requantise the frames of ``results`` (file name -> built model, all with the same frame count)
    on the union grid; the report line, or None when every frame of every file was kept."""
    ordered = list(results.items())
    kept = np.logical_and.reduce([r.kept for _, r in ordered])
    redo = np.flatnonzero(~kept)
    if not len(redo):
        return None
    union = np.concatenate([r.positions[redo] for _, r in ordered], axis=1)
    grids = frame_grids(union, grid)
    start = 0
    for _, result in ordered:
        model = result.model
        count = result.positions.shape[1]
        model.frame_scale = np.array(model.frame_scale, np.float32)
        model.frame_translate = np.array(model.frame_translate, np.float32)
        model.frame_verts = np.array(model.frame_verts, np.uint8)
        model.frame_scale[redo] = grids.scale
        model.frame_translate[redo] = grids.translate
        model.frame_verts[redo] = grids.verts[:, start:start + count]
        start += count
        result.grid, result.max_error = grids.mode, grids.max_error
        result.info = [line for line in result.info if not line.startswith("MD2 grid:")]
    chosen = " (chosen by Auto)" if grid == "AUTO" else ""
    if grid == "SHARED" and grids.mode != "SHARED":
        chosen = " (no float32 lattice holds this model)"
    files = ", ".join(name for name, _ in ordered)
    return (f"MD2 grid: one grid for {files}: {_GRID_NAMES[grids.mode]}{chosen} over their union for "
            f"{len(redo)} frame(s), so points they share are the same points in every file; largest error "
            f"{grids.max_error:.4g} units")
