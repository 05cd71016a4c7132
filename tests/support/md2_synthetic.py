"""Small MD2 models built in numpy for tests that must not depend on the corpus."""
from __future__ import annotations

import numpy as np

from formats.md2.codec import Md2Model
from formats.md2.glcmds import build_glcmds
from formats.quantize import quantize_frames


def grid_model(nx: int = 4, ny: int = 3, frames: int = 5, seed: int = 1) -> Md2Model:
    """A waving (nx x ny) grid with shared ST indices, ``frames`` frames named stand01.. then run01.."""
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.arange(nx, dtype=np.float64), np.arange(ny, dtype=np.float64))
    base = np.column_stack([xs.ravel() * 8, ys.ravel() * 8, np.zeros(nx * ny)])
    pos = np.stack([base + np.column_stack([0 * base[:, 0], 0 * base[:, 0], 3 * np.sin(f + base[:, 0] / 5)]) for f in range(frames)])
    scale, translate, verts = quantize_frames(pos)
    quads = [(y * nx + x, y * nx + x + 1, (y + 1) * nx + x + 1, (y + 1) * nx + x)
             for y in range(ny - 1) for x in range(nx - 1)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, c, b), (a, d, c))], dtype=np.uint16)
    st = np.column_stack([xs.ravel() * 10, ys.ravel() * 10]).astype(np.int16)
    half = frames // 2
    names = [f"stand{i + 1:02d}" for i in range(half)] + [f"run{i + 1}" for i in range(frames - half)]
    model = Md2Model(skin_width=64, skin_height=32, skins=["models/test/skin.pcx"], st=st,
                     tri_xyz=tris, tri_st=tris.copy(), frame_names=names, frame_scale=scale,
                     frame_translate=translate, frame_verts=verts,
                     frame_normals=rng.integers(0, 162, verts.shape[:2]).astype(np.uint8))
    model.glcmds = build_glcmds(model.tri_xyz, model.tri_st, model.st, model.skin_width, model.skin_height)
    return model
