"""Small models of several formats the tests build (no Blender), as file bytes."""
from __future__ import annotations

import numpy as np

from formats.md2.codec import serialize_md2
from formats.mdl.codec import serialize_mdl
from formats.ms3d.records import Ms3dMaterial
from formats.ms3d.write import serialize_ms3d

from .md2_synthetic import grid_model
from .mdl_models import grouped_mdl
from .ms3d_models import synthetic_ms3d, tiny_rig


def md2_bytes(skins: list[str], seed: int = 1, frames: int = 5) -> bytes:
    model = grid_model(frames=frames, seed=seed)
    model.skins = skins
    return serialize_md2(model)


def textured_rig() -> bytes:
    model = tiny_rig()
    model.materials = [Ms3dMaterial(b"paint".ljust(32, b"\0"), *(np.float32([0.5, 0.5, 0.5, 1.0]),) * 4, 10.0, 1.0, 0,
                                    b"textures\\Paint.PNG".ljust(128, b"\0"), b"".ljust(128, b"\0"))]
    model.groups[0].material = 0
    return serialize_ms3d(model)


def degenerate_model(fmt: str) -> bytes:
    """A small valid model of ``fmt`` whose every triangle uses a vertex twice."""
    if fmt == "md2":
        model = grid_model()
        model.tri_xyz[:, 1] = model.tri_xyz[:, 0]
        return serialize_md2(model)
    if fmt == "mdl":
        model = grouped_mdl()
        model.triangles[:, 2] = model.triangles[:, 1]
        return serialize_mdl(model)
    model = synthetic_ms3d(blocks=0)
    model.tri_vertices[:, 2] = model.tri_vertices[:, 0]
    return serialize_ms3d(model)
