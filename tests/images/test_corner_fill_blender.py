"""The exports say when the game's skin load will draw faces black (formats/images/corner_fill.py): a cube
painted in one colour with an image, exported as MDL and as MD2 with a PCX skin, warns once with the
count of faces; the same image with its top-left texel black does not (the load then fills nothing)."""
from __future__ import annotations

import numpy as np
import pytest
from support.operators import export_md2, export_mdl
from support.skin_fill import engine_fill
from support.skins import blender_model, files_under

from formats.images.palette import quake2_palette, quake_palette
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl


def painted(palette: np.ndarray, index: int, black_corner: bool) -> np.ndarray:
    rgba = np.full((32, 32, 4), 255, np.uint8)
    rgba[..., :3] = palette[index]
    if black_corner:
        rgba[0, 0, :3] = 0
    return rgba


@pytest.mark.parametrize("black_corner", [False, True])
def test_mdl_export_says_which_faces_quake_draws_black(bpy_scene, tmp_path, capsys, black_corner):
    obj = blender_model(bpy_scene, painted(quake_palette(), 140, black_corner))
    capsys.readouterr()
    model = parse_mdl(export_mdl(bpy_scene, obj, tmp_path / "box.mdl"))
    out = capsys.readouterr().out
    skin = model.skins[0].images[0]
    lines = [line for line in out.splitlines() if "top-left texel" in line and "•" in line]   # the report's full lines
    drawn_black = int((engine_fill(skin) != skin).any())           # the load repaints the painted skin
    assert len(lines) == drawn_black, out
    if lines:
        assert f"skin 0: {len(model.triangles)} of the {len(model.triangles)} faces are painted" in lines[0]
        assert "Mod_FloodFillSkin" in lines[0]


@pytest.mark.parametrize("black_corner", [False, True])
def test_md2_export_says_which_faces_quake2_draws_black(bpy_scene, tmp_path, capsys, black_corner):
    obj = blender_model(bpy_scene, painted(quake2_palette(), 140, black_corner))
    path = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    capsys.readouterr()
    model = parse_md2(export_md2(bpy_scene, obj, path))
    out = capsys.readouterr().out
    pcx = [p for p in files_under(path.parent) if p.suffix == ".pcx"]
    assert len(pcx) == 1
    lines = [line for line in out.splitlines() if "top-left texel" in line and "•" in line]   # the report's full lines
    assert len(lines) == (not black_corner), out
    if lines:
        assert f"skin {pcx[0].name}: {len(model.tri_st)} of the {len(model.tri_st)} faces are painted" in lines[0]
        assert "IMG_FloodFill" in lines[0]
