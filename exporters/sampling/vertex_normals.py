"""Angle-weighted vertex normals of many frames at once (Blender's own weighting), in numpy."""
from __future__ import annotations

import numpy as np


def vertex_normals(positions: np.ndarray, triangles: np.ndarray, chunk: int = 64) -> np.ndarray:
    """(F, V, 3) unit normals for (F, V, 3) positions and (T, 3) counter-clockwise triangles.

    Each triangle adds its unit face normal weighted by the corner angle; a vertex no triangle
    uses gets +Z.
    """
    pos = np.asarray(positions, dtype=np.float64)
    out = np.empty(pos.shape, dtype=np.float32)
    for start in range(0, len(pos), chunk):
        out[start:start + chunk] = _chunk_normals(pos[start:start + chunk], np.asarray(triangles, np.int64))
    return out


def _chunk_normals(pos: np.ndarray, tris: np.ndarray) -> np.ndarray:
    frames, num_verts = pos.shape[:2]
    acc = np.zeros((frames * num_verts, 3))
    if len(tris):
        p = pos[:, tris]                                   # (F, T, 3 corners, 3)
        face = np.cross(p[:, :, 1] - p[:, :, 0], p[:, :, 2] - p[:, :, 0])
        face /= np.maximum(np.linalg.norm(face, axis=-1, keepdims=True), 1e-30)
        base = (np.arange(frames) * num_verts)[:, None]
        for corner in range(3):
            a = p[:, :, (corner + 1) % 3] - p[:, :, corner]
            b = p[:, :, (corner + 2) % 3] - p[:, :, corner]
            cos = np.einsum("ftk,ftk->ft", a, b) / np.maximum(
                np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), 1e-30)
            weighted = face * np.arccos(np.clip(cos, -1.0, 1.0))[..., None]
            index = (base + tris[:, corner][None, :]).ravel()
            for axis in range(3):
                acc[:, axis] += np.bincount(index, weighted[..., axis].ravel(), frames * num_verts)
    length = np.linalg.norm(acc, axis=-1, keepdims=True)
    acc = np.where(length > 1e-12, acc / np.maximum(length, 1e-30), np.array([0.0, 0.0, 1.0]))
    return acc.reshape(frames, num_verts, 3)
