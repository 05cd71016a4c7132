"""Small ``.md5mesh`` texts of issue 44's vertices no triangle uses, laid out as ``support/md5_weight_cases.py``
lays its files out: a block with such a vertex in the middle of its vertex list, one with such a vertex past
the last one the triangles use, one of vertices but ``numtris 0``, and one whose last vertex only triangles
that use a vertex twice use (Blender has no face for them: the import keeps them aside). Each loose vertex has a texture
coordinate and a weight range of its own (two weights), which only the file holds: Blender keeps a UV per
face corner, and a vertex no face uses has none."""
from __future__ import annotations

import numpy as np

from .md5_weight_cases import PLAIN, QUAD, TRIS, UV, block, md5mesh

LOOSE_POINT = (0.5, 0.25, 2.0)
LOOSE_UV = (0.25, 0.625)
LOOSE_WEIGHTS = [(1, 0.4, 0.0), (4, 0.6, 0.0)]


def _with_loose(at: int) -> tuple[dict, np.ndarray, list, list]:
    """The quad with a vertex no triangle uses inserted at index ``at``: weights, points, UVs, triangles."""
    points = np.insert(QUAD, at, LOOSE_POINT, axis=0)
    uv = UV[:at] + [LOOSE_UV] + UV[at:]
    tris = [tuple(v + (v >= at) for v in tri) for tri in TRIS]
    weights = {v + (v >= at): w for v, w in PLAIN.items()}
    weights[at] = LOOSE_WEIGHTS
    return weights, points, uv, tris


def loose_block(at: int, shader: str = "models/thing/loose") -> str:
    weights, points, uv, tris = _with_loose(at)
    return block(weights, shader, points, uv, tris)


NO_TRIANGLES = block(PLAIN, "models/thing/points", tris=[])


def degenerate_block() -> str:
    """The quad with vertex 4 used only by triangle 1 (4 4 1), and triangle 3 (0 0 2) using a vertex twice."""
    weights, points, uv, tris = _with_loose(4)
    return block(weights, "models/thing/degenerate", points, uv, [tris[0], (4, 4, 1), tris[1], (0, 0, 2)])

LOOSE_CASES = {
    "unused-middle": md5mesh([loose_block(2)]),
    "unused-last": md5mesh([loose_block(4)]),
    "no-triangles": md5mesh([NO_TRIANGLES]),
    "degenerate": md5mesh([degenerate_block()]),
    "unused-mixed": md5mesh([block(PLAIN, "models/thing/plain"), loose_block(2), NO_TRIANGLES, loose_block(4, "models/thing/last")]),
}
