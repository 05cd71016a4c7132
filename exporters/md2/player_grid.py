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
Files may have different frame counts (a weapon keeping its own frames): frame ``i`` is shared by
the files that have it, since the game draws them at the same frame number.
"""
from __future__ import annotations

import numpy as np

from ...formats.md2.lattice import frame_grids
from .build import BuildResult

_GRID_NAMES = {"SHARED": "one shared lattice", "PER_FRAME": "per-frame grids"}


def share_player_grid(results: dict[str, BuildResult], grid: str) -> str | None:
    """Requantise the frames of ``results`` (file name -> built model) on the union grid of the files
    that have each frame; the report line, or None when every frame of every file was kept."""
    ordered = list(results.items())
    counts = sorted({len(r.kept) for _, r in ordered})
    redone, start_frame, mode, error = 0, 0, "", 0.0
    errors: dict[int, float] = {}         # id of a requantised result -> its largest error on the union grids
    for end in counts:                    # frames start..end-1 are in every file with at least end frames
        sharing = [r for _, r in ordered if len(r.kept) >= end]
        kept = np.logical_and.reduce([r.kept[start_frame:end] for r in sharing])
        redo = start_frame + np.flatnonzero(~kept)
        start_frame = end
        if not len(redo):
            continue
        union = np.concatenate([r.positions[redo] for r in sharing], axis=1)
        grids = frame_grids(union, grid)
        _requantise(sharing, redo, grids)
        for result in sharing:
            errors[id(result)] = max(errors.get(id(result), 0.0), grids.max_error)
        redone, mode, error = redone + len(redo), grids.mode, max(error, grids.max_error)
    if not redone:
        return None
    for _, result in ordered:
        if id(result) in errors:
            result.max_error = errors[id(result)]
    chosen = " (chosen by Auto)" if grid == "AUTO" else ""
    if grid == "SHARED" and mode != "SHARED":
        chosen = " (no float32 lattice holds this model)"
    files = ", ".join(name for name, _ in ordered)
    return (f"MD2 grid: one grid for {files}: {_GRID_NAMES[mode]}{chosen} over their union for "
            f"{redone} frame(s), so points they share are the same points in every file; largest error "
            f"{error:.4g} units")


def _requantise(results: list[BuildResult], redo: np.ndarray, grids) -> None:
    """Frames ``redo`` of each of ``results`` on ``grids`` (made for their positions side by side)."""
    start = 0
    for result in results:
        model = result.model
        count = result.positions.shape[1]
        model.frame_scale = np.array(model.frame_scale, np.float32)
        model.frame_translate = np.array(model.frame_translate, np.float32)
        model.frame_verts = np.array(model.frame_verts, np.uint8)
        model.frame_scale[redo] = grids.scale
        model.frame_translate[redo] = grids.translate
        model.frame_verts[redo] = grids.verts[:, start:start + count]
        start += count
        result.grid = grids.mode
        result.info = [line for line in result.info if not line.startswith("MD2 grid:")]
