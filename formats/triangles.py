"""Triangle-list helpers shared by the codecs' users on both sides (bpy-free)."""
from __future__ import annotations

import numpy as np


def drop_degenerate(triangles: np.ndarray) -> np.ndarray:
    """Boolean mask of triangles whose three vertex indices are distinct (the others draw nothing)."""
    t = np.asarray(triangles).reshape(-1, 3)
    return (t[:, 0] != t[:, 1]) & (t[:, 1] != t[:, 2]) & (t[:, 0] != t[:, 2])
