"""A material without an image (a procedural one) and a model without a material still get a skin
the game shows: a flat skin of the material's base colour (Blender's grey without a material), and
the report says so. The decoded skin pixels are compared with Blender's own colour values; the top-left
texel is black, so that the game's load does not fill the whole skin black (support/skin_fill.py)."""
from __future__ import annotations

import numpy as np
from support.image_files import read_pcx
from support.operators import export_md2, export_mdl
from support.skin_fill import assert_flat_skin_survives

from formats.images.palette import quake2_palette, quake_palette
from formats.md2.codec import parse_md2
from formats.mdl.codec import parse_mdl


def srgb_to_linear(value: np.ndarray) -> np.ndarray:
    c = np.asarray(value, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(value) -> np.ndarray:
    c = np.clip(np.asarray(value, np.float64), 0, 1)
    return np.rint(255 * np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055)).astype(np.int64)


def lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of sRGB 0-255 colours."""
    xyz = srgb_to_linear(rgb) @ np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722],
                                         [0.0193, 0.1192, 0.9505]]).T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def nearest(palette: np.ndarray, rgb: np.ndarray, candidates=slice(0, 255)) -> np.ndarray:
    """The palette colour nearest to ``rgb`` in CIELAB."""
    pal = palette[candidates]
    return pal[np.argmin(np.linalg.norm(lab(pal) - lab(np.asarray(rgb)[None]), axis=1))]


def procedural_cube(bpy, colour_linear, name: str = "noise"):
    """A cube whose material shows a noise texture and no image; its Base Color holds ``colour_linear``."""
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (*colour_linear, 1.0)
    noise = tree.nodes.new("ShaderNodeTexNoise")
    tree.links.new(noise.outputs["Fac"], bsdf.inputs["Roughness"])
    obj.data.materials.append(material)
    return obj, material


def test_md2_procedural_material_gets_a_flat_skin_of_its_base_colour(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    wanted = quake2_palette()[120]
    obj, material = procedural_cube(bpy, srgb_to_linear(wanted))
    expected = linear_to_srgb(material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value[:3])
    path = tmp_path / "baseq2" / "models" / "prop" / "tris.md2"
    capsys.readouterr()
    model = parse_md2(export_md2(bpy, obj, path))
    out = capsys.readouterr().out
    assert model.skins == ["models/prop/noise.pcx"]
    assert "material 'noise' has no image: skin 'models/prop/noise.pcx' is a flat skin of its base colour" in out
    indices, palette = read_pcx((path.parent / "noise.pcx").read_bytes())
    assert indices.shape == (model.skin_height, model.skin_width)
    assert_flat_skin_survives(indices, nearest(quake2_palette(), expected), palette)


def test_md2_without_a_material_gets_a_grey_skin_and_says_so(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    path = tmp_path / "baseq2" / "models" / "prop" / "box.md2"
    capsys.readouterr()
    model = parse_md2(export_md2(bpy, obj, path))
    assert model.skins == ["models/prop/box_skin.pcx"]
    grey = linear_to_srgb([0.8, 0.8, 0.8])          # Blender's colour for faces without a material
    assert (f"{obj.name} has no material: skin 'models/prop/box_skin.pcx' is a flat "
            f"{model.skin_width}x{model.skin_height} skin of Blender's grey {tuple(grey.tolist())}"
            in capsys.readouterr().out)
    assert sorted(p.name for p in path.parent.iterdir()) == ["box.md2", "box_skin.pcx"]
    indices, palette = read_pcx((path.parent / "box_skin.pcx").read_bytes())
    assert indices.shape == (model.skin_height, model.skin_width)
    assert_flat_skin_survives(indices, nearest(quake2_palette(), grey), palette)


def test_mdl_without_a_material_gets_a_grey_skin(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    capsys.readouterr()
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "box.mdl"))
    assert "has no material: wrote a flat" in capsys.readouterr().out
    grey = linear_to_srgb([0.8, 0.8, 0.8])          # Blender's colour for faces without a material
    assert_flat_skin_survives(model.skins[0].images[0], nearest(quake_palette(), grey, slice(0, 224)), quake_palette())


def test_mdl_material_without_image_is_a_flat_skin_not_left_out(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    wanted = quake_palette()[140]     # outside the player ranges 16-31, 96-111
    obj, material = procedural_cube(bpy, srgb_to_linear(wanted), "paint")
    expected = linear_to_srgb(material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value[:3])
    capsys.readouterr()
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "prop.mdl"))
    assert "material 'paint' has no image: skin 0 is a flat skin of its base colour" in capsys.readouterr().out
    assert len(model.skins) == 1
    assert_flat_skin_survives(model.skins[0].images[0], nearest(quake_palette(), expected, slice(0, 224)),
                              quake_palette())   # 224-255 glow: not for colour


def _three_procedural_materials(bpy):
    """A cube whose faces use three materials without an image (a noise texture each), in slot order."""
    obj, first = procedural_cube(bpy, (0.2, 0.3, 0.4), "paint")
    for name, colour in (("rust", (0.5, 0.2, 0.1)), ("moss", (0.1, 0.4, 0.1))):
        _, material = procedural_cube(bpy, colour, name)
        bpy.data.objects.remove(bpy.context.active_object)
        obj.data.materials.append(material)
    obj.data.polygons.foreach_set("material_index", [0, 0, 1, 1, 2, 2])
    bpy.context.view_layer.objects.active = obj
    return obj


def test_materials_without_an_image_are_one_warning_line_counted_and_named(bpy_scene, tmp_path, capfd):
    """MDL and MD2: three materials without an image are one warning line naming them with their count (the
    popup's), each material's own line (its skin and colour) below it in the Info editor."""
    from support.blender_helpers import reported
    bpy = bpy_scene
    obj = _three_procedural_materials(bpy)
    for export, path, skins in ((export_mdl, tmp_path / "prop.mdl", ["skin 0", "skin 1", "skin 2"]),
                                (export_md2, tmp_path / "baseq2" / "models" / "prop" / "tris.md2",
                                 [f"skin 'models/prop/{n}.pcx'" for n in ("paint", "rust", "moss")])):
        capfd.readouterr()
        export(bpy, obj, path)
        warnings, messages = reported(capfd.readouterr().out)
        flat = [w for w in warnings if "without an image" in w or "has no image" in w]
        assert flat == ["3 materials without an image: each a flat skin of its base colour: 'paint', 'rust', "
                        "'moss'"], warnings
        own = [m for m in messages if "has no image" in m]
        assert [m.split(" is a flat skin")[0] for m in own] == [
            f"material '{name}' has no image: {skin}" for name, skin in zip(("paint", "rust", "moss"), skins)], own
