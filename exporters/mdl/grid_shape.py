"""The grid an MDL import read, and whether a new grid shows the same shape (:mod:`.build`).

MDL keeps one grid for all poses (``byte * scale + translate``), and the export makes it from the bounds
of every frame unless the imported one still holds. A model scaled or moved as a whole then keeps its
bytes: scaled evenly or moved, it keeps its shape too (and so its normals); squashed or stretched along
an axis, the same bytes make another shape.
"""
from __future__ import annotations

import numpy as np

from ...common.mdl.contract import MDL_GRID
from ...common.stored_records import stored_floats

SAME_SHAPE = 1e-5       # per-axis scale ratios this close (relative) are one even scale (:func:`same_shape`)


def imported_grid(mesh) -> tuple[np.ndarray, np.ndarray] | None:
    """The float32 scale and translate the import read (None: not an imported MDL)."""
    grid = stored_floats(mesh, MDL_GRID, 6)
    if grid is None:
        return None
    return np.array(grid[:3], np.float32), np.array(grid[3:], np.float32)


def same_shape(scale: np.ndarray, imported: tuple[np.ndarray, np.ndarray] | None) -> bool:
    """Whether bytes on a grid of ``scale`` show the shape they showed on the ``imported`` grid: the
    two scales differ by one factor on every axis (within ``SAME_SHAPE``), so the model was only scaled
    evenly or moved and the imported normals still hold. Squashed or stretched along an axis, the same
    bytes make another shape, whose normals lean: those are computed afresh."""
    if imported is None:
        return False
    new, old = np.asarray(scale, np.float64), np.asarray(imported[0], np.float64)
    if np.array_equal(new, old):
        return True
    flat = old == 0                      # a flat model's axis: it stays flat only on a step of 0 too
    if np.any(new[flat] != 0) or flat.all():
        return False
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = new[~flat] / old[~flat]
    if not (np.all(np.isfinite(ratio)) and np.all(ratio > 0)):
        return False
    return float(ratio.max() - ratio.min()) <= SAME_SHAPE * float(ratio.max())
