"""Materials: One Skin on MD2 and MDL exports of cubes whose faces use two or four materials with
images of different sizes: every face of the written model samples, in the written skin, the
colour Blender shows at that face (decoded with the tests' own MD2/MDL/PCX readers, through the
game palette); Alternate Skins keeps one skin per material; untextured and single-material models
are written as before."""
from __future__ import annotations

import re

import numpy as np
import pytest
from support.environment import CORPUS
from support.image_files import read_pcx, reference_palette
from support.md2_reference import decode as decode_md2
from support.mdl_reference import decode as decode_mdl
from support.operators import export_md2, export_mdl

RNG = np.random.default_rng(18)
SIZES = {2: [(32, 16), (8, 8)], 4: [(64, 32), (16, 16), (8, 24), (12, 4)]}


def palette_colours(name: str, count: int) -> np.ndarray:
    palette = reference_palette(name)
    if palette is None:
        pytest.skip(f"reference {name} palette not found in ../shared/reference")
    # Quake: 0-223 without the player colour ranges 16-31 and 96-111, which a model that is not a
    # player never gets for a new colour (exporters/mdl/player_colours.py)
    allowed = ([i for i in range(224) if not (16 <= i < 32 or 96 <= i < 112)] if name == "quake"
               else list(range(255)))
    _, first = np.unique(palette[allowed], axis=0, return_index=True)
    return palette[np.array(allowed)[np.sort(first)]], palette


def cube_with_materials(bpy, sizes, colours: np.ndarray, tiled_face: int | None = None, block: int = 1):
    """A cube, one image per material (random palette colours, in squares of ``block`` pixels), face i on
    material i % n, each face's UVs the whole image (face ``tiled_face`` moved two tiles right and one
    down). Returns the object and the (h, w, 3) images top row first."""
    bpy.ops.mesh.primitive_cube_add(size=2.0)
    obj = bpy.context.active_object
    images = []
    for k, (w, h) in enumerate(sizes):
        pixels = colours[RNG.integers(0, len(colours), (-(-h // block), -(-w // block)))]
        pixels = pixels.repeat(block, 0).repeat(block, 1)[:h, :w]
        image = bpy.data.images.new(f"paint{k}", w, h, alpha=True)
        rgba = np.concatenate([pixels, np.full((h, w, 1), 255, np.uint8)], axis=-1)
        image.pixels.foreach_set((rgba[::-1].astype(np.float32) / 255).ravel())
        material = bpy.data.materials.new(f"mat{k}")
        if bpy.app.version < (5, 0, 0):
            material.use_nodes = True
        node = material.node_tree.nodes.new("ShaderNodeTexImage")
        node.image = image
        node.interpolation = "Closest"
        bsdf = material.node_tree.nodes.get("Principled BSDF")
        material.node_tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
        obj.data.materials.append(material)
        images.append(pixels)
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    uv = obj.data.uv_layers.active.uv
    for poly in obj.data.polygons:
        poly.material_index = poly.index % len(sizes)
        w, h = sizes[poly.material_index]
        # the whole image, corners at its corner texels' centres (MD2 and MDL store whole texels)
        corners = square * [(w - 1) / w, (h - 1) / h] + [0.5 / w, 0.5 / h]
        for corner, loop in enumerate(poly.loop_indices):
            uv[loop].vector = corners[corner] + ((2.0, -1.0) if poly.index == tiled_face else (0.0, 0.0))
    return obj, images


def blender_face_colours(obj, images) -> np.ndarray:
    """(T, 3) the colour Blender shows at each loop triangle's UV centroid (Closest, Repeat)."""
    mesh = obj.data
    mesh.calc_loop_triangles()
    uv = np.array([d.uv for d in mesh.uv_layers.active.data])
    out = []
    for tri in mesh.loop_triangles:
        image = images[tri.material_index]
        h, w = image.shape[:2]
        u, v = uv[list(tri.loops)].mean(axis=0) % 1.0
        out.append(image[int(np.floor((1 - v) * h)), int(np.floor(u * w))])
    return np.array(out)


def file_triangle_colours(points: np.ndarray, skin_rgb: np.ndarray) -> np.ndarray:
    """(T, 3) colour of the skin texel under each triangle's centroid; ``points`` (T, 3, 2) texel
    coordinates (s, t) of the corners, texel centres at +0.5 as the engines draw them."""
    centre = points.mean(axis=1) + 0.5
    s = np.floor(centre[:, 0]).astype(int)
    t = np.floor(centre[:, 1]).astype(int)
    return skin_rgb[t, s]


def sorted_rows(a: np.ndarray) -> np.ndarray:
    return a[np.lexsort(a.T[::-1])]


@pytest.mark.parametrize("count", [2, 4])
def test_md2_one_skin_every_face_shows_its_own_image(bpy_scene, tmp_path, count, capsys):
    bpy = bpy_scene
    colours, quake2 = palette_colours("quake2", 0)
    obj, images = cube_with_materials(bpy, SIZES[count], colours, tiled_face=1)
    expected = blender_face_colours(obj, images)
    out = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    ref = decode_md2(export_md2(bpy, obj, out))
    report = capsys.readouterr().out
    assert ref.skins == ["models/box/tris_skin.pcx"]
    assert f"Materials: One Skin: the faces use {count} materials" in report
    assert f"packed into one {ref.skin_width}x{ref.skin_height} skin" in report
    indices, _ = read_pcx((out.parent / "tris_skin.pcx").read_bytes())
    assert indices.shape == (ref.skin_height, ref.skin_width) and ref.skin_height <= 480
    st = np.array(ref.st)
    corners = np.array([st[list(t[1])] for t in ref.tris])
    got = file_triangle_colours(corners, quake2[indices])
    assert len(got) == 12
    # the file's triangles are Blender's in the same order (corners reversed)
    np.testing.assert_array_equal(got, expected)
    # and they differ from what skin 0 alone would show: the test can tell the images apart
    assert not all(np.array_equal(g, e) for g, e in zip(got, expected[:1].repeat(12, 0)))


def test_md2_one_skin_scales_images_too_large_to_fit(bpy_scene, tmp_path, capsys):
    """A 512x512 image beside a 4x4 one (issue 29, dwarf1.ms3d): no atlas at their own sizes fits
    480 pixels, so both are scaled down as a lone 512x512 image would be, and every face still shows
    its own image (squares of 128 pixels, so scaling keeps the colour under each face's centre)."""
    bpy = bpy_scene
    colours, quake2 = palette_colours("quake2", 0)
    obj, images = cube_with_materials(bpy, [(512, 512), (4, 4)], colours, block=128)
    expected = blender_face_colours(obj, images)
    out = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    ref = decode_md2(export_md2(bpy, obj, out))
    report = capsys.readouterr().out
    assert re.search(r"the images \(512x512, 4x4\) were scaled down to \d+% to fit", report)
    indices, _ = read_pcx((out.parent / "tris_skin.pcx").read_bytes())
    assert indices.shape == (ref.skin_height, ref.skin_width)
    assert ref.skin_height <= 480 and ref.skin_width * ref.skin_height <= 512 * 256
    st = np.array(ref.st)
    corners = np.array([st[list(t[1])] for t in ref.tris])
    np.testing.assert_array_equal(file_triangle_colours(corners, quake2[indices]), expected)


@pytest.mark.parametrize("count", [2, 4, "scaled"])
def test_mdl_one_skin_every_face_shows_its_own_image(bpy_scene, tmp_path, count, capsys):
    """Also a 512x512 image beside a 4x4 one: both scaled down (every n-th texel) to fit 480 high."""
    bpy = bpy_scene
    colours, quake = palette_colours("quake", 0)
    if count == "scaled":
        obj, images = cube_with_materials(bpy, [(512, 512), (4, 4)], colours, block=128)
    else:
        obj, images = cube_with_materials(bpy, SIZES[count], colours, tiled_face=3)
    expected = blender_face_colours(obj, images)
    ref = decode_mdl(export_mdl(bpy, obj, tmp_path / "box.mdl"))
    report = capsys.readouterr().out
    assert f"Materials: One Skin: the faces use {2 if count == 'scaled' else count} materials" in report
    assert (count == "scaled") == ("were scaled down to" in report)
    assert ref.num_skins == 1 and ref.skin_width % 4 == 0 and ref.skin_height <= 480
    skin = np.frombuffer(ref.skins[0].images[0], np.uint8).reshape(ref.skin_height, ref.skin_width)
    texcoords = np.array(ref.texcoords)
    corners = []
    for facesfront, *verts in ref.tris:
        seam = [(texcoords[v, 0] != 0 and facesfront == 0) * (ref.skin_width // 2) for v in verts]
        corners.append([(texcoords[v, 1] + add, texcoords[v, 2]) for v, add in zip(verts, seam)])
    got = file_triangle_colours(np.array(corners, float), quake[skin])
    np.testing.assert_array_equal(got, expected)


def test_alternate_skins_keep_one_skin_per_material(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    colours, _ = palette_colours("quake2", 0)
    obj, _ = cube_with_materials(bpy, [(16, 16), (16, 16)], colours)
    out = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    ref = decode_md2(export_md2(bpy, obj, out, materials="ALTERNATE"))
    assert ref.skins == ["models/box/paint0.pcx", "models/box/paint1.pcx"]
    assert (ref.skin_width, ref.skin_height) == (16, 16)
    assert "Materials: Alternate Skins: the faces use 2 materials" in capsys.readouterr().out
    mdl = decode_mdl(export_mdl(bpy, obj, tmp_path / "box.mdl", materials="ALTERNATE"))
    assert mdl.num_skins == 2 and (mdl.skin_width, mdl.skin_height) == (16, 16)


def test_one_material_is_written_as_before(bpy_scene, tmp_path):
    bpy = bpy_scene
    colours, _ = palette_colours("quake2", 0)
    obj, _ = cube_with_materials(bpy, [(16, 8)], colours)
    out = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    one = export_md2(bpy, obj, out)
    assert decode_md2(one).skins == ["models/box/paint0.pcx"]
    assert export_md2(bpy, obj, tmp_path / "alt" / "baseq2" / "models" / "box" / "tris.md2",
                      materials="ALTERNATE") == one


def test_material_without_image_gets_its_colour(bpy_scene, tmp_path):
    bpy = bpy_scene
    colours, quake2 = palette_colours("quake2", 0)
    obj, images = cube_with_materials(bpy, [(16, 16)], colours)
    plain = bpy.data.materials.new("plain")
    if bpy.app.version < (5, 0, 0):
        plain.use_nodes = True
    target = colours[len(colours) // 3]                   # a palette colour, given as Blender's linear value
    c = target / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    plain.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (*linear, 1.0)
    obj.data.materials.append(plain)
    for poly in obj.data.polygons:
        poly.material_index = poly.index % 2
    out = tmp_path / "baseq2" / "models" / "box" / "tris.md2"
    ref = decode_md2(export_md2(bpy, obj, out))
    indices, _ = read_pcx((out.parent / "tris_skin.pcx").read_bytes())
    st = np.array(ref.st)
    got = file_triangle_colours(np.array([st[list(t[1])] for t in ref.tris]), quake2[indices])
    obj.data.calc_loop_triangles()
    plain_faces = np.array([t.material_index == 1 for t in obj.data.loop_triangles])
    assert plain_faces.sum() == 6
    np.testing.assert_array_equal(got[plain_faces], np.broadcast_to(target, (6, 3)))
    np.testing.assert_array_equal(got[~plain_faces], blender_face_colours(obj, images + [np.zeros((4, 4, 3), np.uint8)])[~plain_faces])


def test_command_line_materials_flag(bpy_scene, tmp_path, run):
    bpy = bpy_scene
    colours, _ = palette_colours("quake2", 0)
    cube_with_materials(bpy, [(16, 16), (16, 16)], colours)
    source = tmp_path / "crate.ms3d"                     # MilkShape groups, one material each, images beside
    assert bpy.ops.export_scene.ms3d(filepath=str(source)) == {"FINISHED"}
    for flag, skins in ((None, ["crate_skin.pcx"]), ("alternate", ["paint0.pcx", "paint1.pcx"])):
        out = tmp_path / (flag or "default")
        args = ["convert", source, "--to", "md2", "-o", out] + (["--materials", flag] if flag else [])
        result = run(*args)
        assert result.returncode == 0, result.stdout + result.stderr
        assert decode_md2((out / "crate.md2").read_bytes()).skins == skins


def find_block(atlas: np.ndarray, block: np.ndarray) -> tuple[int, int] | None:
    """Top-left (x, y) where ``block`` lies in ``atlas`` exactly, if anywhere."""
    h, w = block.shape
    for y, x in np.argwhere(atlas[:atlas.shape[0] - h + 1, :atlas.shape[1] - w + 1] == block[0, 0]):
        if np.array_equal(atlas[y:y + h, x:x + w], block):
            return int(x), int(y)
    return None


def test_imported_mdl_skins_keep_their_indices_when_packed(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = CORPUS / "mdl" / "librequake" / "armor.mdl"
    if not path.is_file():
        pytest.skip(f"corpus file {path} not found")
    original = decode_mdl(path.read_bytes())
    assert bpy.ops.import_scene.mdl(filepath=str(path)) == {"FINISHED"}
    obj = bpy.context.view_layer.objects.active
    for poly in obj.data.polygons:             # the import puts every face on skin 0; give half skin 1
        poly.material_index = poly.index % 2
    images = []
    for material in obj.data.materials[:2]:
        image = next(n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE")
        w, h = image.size
        pixels = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(pixels)
        images.append(np.rint(pixels.reshape(h, w, 4)[::-1, :, :3] * 255).astype(np.uint8))
    expected = blender_face_colours(obj, images)
    ref = decode_mdl(export_mdl(bpy, obj, tmp_path / "armor.mdl"))
    assert ref.num_skins == 1 and ref.skin_width % 4 == 0
    atlas = np.frombuffer(ref.skins[0].images[0], np.uint8).reshape(ref.skin_height, ref.skin_width)
    for skin in original.skins[:2]:
        block = np.frombuffer(skin.images[0], np.uint8).reshape(original.skin_height, original.skin_width)
        assert find_block(atlas, block) is not None
    quake = reference_palette("quake")
    if quake is None:
        pytest.skip("reference Quake palette not found in ../shared/reference")
    texcoords = np.array(ref.texcoords)
    corners = [[(texcoords[v, 1] + (texcoords[v, 0] != 0 and ff == 0) * (ref.skin_width // 2), texcoords[v, 2])
                for v in verts] for ff, *verts in ref.tris]
    got = file_triangle_colours(np.array(corners, float), quake[atlas])
    # corners at texel centres in the file; Blender shows the same texel at each triangle's centroid
    np.testing.assert_array_equal(got, expected)
