"""Skins the games load, through the exporters: an image larger than Quake II loads gives an MD2 whose
header and PCX are scaled down (aspect kept) and whose STs still land on Blender's UVs; the report
says to what size. Decoded with the tests' own readers and compared with Blender's values."""
from __future__ import annotations

import numpy as np
import pytest
from support.image_files import read_pcx, read_png
from support.operators import export_md2
from support.skins import blender_model

from formats.images.palette import quake2_palette
from formats.md2.codec import parse_md2


def gradient(w: int, h: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w]
    rgba = np.empty((h, w, 4), np.uint8)
    rgba[..., 0], rgba[..., 1], rgba[..., 2], rgba[..., 3] = x * 255 // (w - 1), y * 255 // (h - 1), 128, 255
    return rgba


def quadrants(w: int, h: int) -> np.ndarray:
    """Four flat colours, one per quadrant, each a Quake II palette colour (so the PCX holds it exactly)."""
    palette = quake2_palette()
    rgba = np.full((h, w, 4), 255, np.uint8)
    rgba[:h // 2, :w // 2, :3] = palette[0]
    rgba[:h // 2, w // 2:, :3] = palette[79]
    rgba[h // 2:, :w // 2, :3] = palette[208]
    rgba[h // 2:, w // 2:, :3] = palette[15]
    return rgba


def blender_uvs(obj) -> np.ndarray:
    """Every corner's UV as Blender holds it, (N, 2) with v up."""
    layer = obj.data.uv_layers.active.data
    uvs = np.empty(len(layer) * 2, np.float32)
    layer.foreach_get("uv", uvs)
    return uvs.reshape(-1, 2).astype(np.float64)


def file_uvs(model) -> np.ndarray:
    """Every corner's texel centre as the game samples it, as a UV with v up."""
    st = model.st[model.tri_st].reshape(-1, 2).astype(np.float64)
    return np.column_stack([(st[:, 0] + 0.5) / model.skin_width, 1.0 - (st[:, 1] + 0.5) / model.skin_height])


def assert_uvs_within_half_a_texel(model, expected: np.ndarray) -> None:
    got = np.unique(np.round(file_uvs(model), 9), axis=0)
    half = np.array([0.5 / model.skin_width, 0.5 / model.skin_height]) + 1e-6
    for uv in got:                                # each written corner is on one of Blender's UVs...
        assert np.any(np.all(np.abs(expected - uv) <= half, axis=1)), uv
    for uv in np.unique(np.round(expected, 9), axis=0):   # ...and each of Blender's UVs is written
        assert np.any(np.all(np.abs(got - uv) <= half, axis=1)), uv


def test_a_1024_skin_is_scaled_to_what_quake2_loads(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    rgba = quadrants(1024, 1024)
    obj = blender_model(bpy, rgba)
    path = tmp_path / "baseq2" / "models" / "crate" / "tris.md2"
    capsys.readouterr()
    model = parse_md2(export_md2(bpy, obj, path))
    out = capsys.readouterr().out
    assert (model.skin_width, model.skin_height) == (362, 362)     # 362*362 <= 512*256 (GL_Upload8) < 363*363
    assert "skin 1024x1024 is larger than Quake II loads" in out and "362x362" in out
    indices, palette = read_pcx((tmp_path / "baseq2" / "models" / "crate" / "crate_paint.pcx").read_bytes())
    assert indices.shape == (362, 362)
    # the scaled skin shows the same four quadrants, split at half its size (181)
    colours = palette[indices].astype(np.int64)
    for rows, cols, source in ((slice(0, 181), slice(0, 181), rgba[0, 0]),
                               (slice(0, 181), slice(181, None), rgba[0, -1]),
                               (slice(181, None), slice(0, 181), rgba[-1, 0]),
                               (slice(181, None), slice(181, None), rgba[-1, -1])):
        block = colours[rows, cols].reshape(-1, 3)
        assert (block == block[0]).all()
        assert tuple(block[0]) == tuple(source[:3])
    assert_uvs_within_half_a_texel(model, blender_uvs(obj))


def test_png_skins_keep_their_pixels_and_the_header_fits(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    obj = blender_model(bpy, gradient(1024, 512))
    path = tmp_path / "baseq2" / "models" / "crate" / "tris.md2"
    capsys.readouterr()
    model = parse_md2(export_md2(bpy, obj, path, skins="PNG"))
    assert (model.skin_width, model.skin_height) == (960, 480)
    assert "the PNG file keeps its 1024x512 pixels" in capsys.readouterr().out
    assert read_png((path.parent / "crate_paint.png").read_bytes()).shape == (512, 1024, 4)
    assert_uvs_within_half_a_texel(model, blender_uvs(obj))


def test_a_skin_that_fits_is_written_as_it_is(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    obj = blender_model(bpy, gradient(296, 240))
    capsys.readouterr()
    model = parse_md2(export_md2(bpy, obj, tmp_path / "baseq2" / "models" / "crate" / "tris.md2"))
    assert (model.skin_width, model.skin_height) == (296, 240)
    assert "larger than Quake II loads" not in capsys.readouterr().out


def test_mdl_skins_over_quakes_limits_are_scaled_not_refused(bpy_scene, tmp_path, capsys):
    """Quake refuses skins over 480 high (model.c) and GLQuake's buffer holds 640*480 pixels
    (gl_draw.c GL_Upload8): a 1024x1024 image becomes a 480x480 skin, the report says so."""
    from support.operators import export_mdl

    from formats.images.palette import quake_palette
    from formats.mdl.codec import parse_mdl
    bpy = bpy_scene
    palette = quake_palette()
    rgba = np.full((1024, 1024, 4), 255, np.uint8)
    picks = {(0, 0): 0, (0, 1): 79, (1, 0): 208, (1, 1): 15}   # ordinary (not fullbright) Quake colours
    for (row, col), index in picks.items():
        rgba[row * 512:(row + 1) * 512, col * 512:(col + 1) * 512, :3] = palette[index]
    obj = blender_model(bpy, rgba)
    capsys.readouterr()
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "crate.mdl"))
    assert "skin 1024x1024 is larger than Quake loads" in capsys.readouterr().out
    assert (model.skin_width, model.skin_height) == (480, 480)
    skin = model.skins[0].images[0]
    for (row, col), index in picks.items():
        block = skin[row * 240:(row + 1) * 240, col * 240:(col + 1) * 240]
        assert (palette[block] == palette[index]).all()
    assert not model.warnings()
    uvs = blender_uvs(obj)            # every Blender UV corner lands within a texel of a written texcoord
    written = np.column_stack([(model.s + 0.5) / 480, 1.0 - (model.t + 0.5) / 480])
    seam = np.column_stack([(model.s + 240 + 0.5) / 480, 1.0 - (model.t + 0.5) / 480])[model.onseam != 0]
    candidates = np.concatenate([written, seam])
    for uv in np.unique(np.round(uvs, 9), axis=0):
        assert np.any(np.all(np.abs(candidates - uv) <= 0.5 / 480 + 1e-6, axis=1)), uv


def test_mdl_with_more_skins_than_quake_loads_is_refused(bpy_scene, tmp_path):
    """Quake's Mod_LoadAllSkins refuses more than MAX_SKINS (32) skins: 33 alternative skins are refused
    before anything is written."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    for i in range(33):
        obj.data.materials.append(bpy.data.materials.new(f"team{i}"))
    path = tmp_path / "crate.mdl"
    with pytest.raises(RuntimeError, match="33 skins"):
        bpy.ops.export_scene.mdl(filepath=str(path), materials="ALTERNATE")
    assert not path.exists()
