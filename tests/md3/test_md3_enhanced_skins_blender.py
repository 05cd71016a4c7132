"""The MDL export's *Enhanced MD3* writes one ``.skin`` file per MDL skin, numbered from 0 without a gap as
the Quake ports count them (ironwail ``Mod_LoadMD3Model``: ``x.md3_<n>.skin`` until one is missing; FTE
``Mod_CountSkinFiles``; DarkPlaces ``Mod_LoadSkinFiles``), each naming a TGA that shows that MDL skin, and
the surfaces under their own names (ironwail takes a ``.skin`` only when its surface names are the MD3's,
compared with ``strcmp``)."""
from __future__ import annotations

import struct

import numpy as np
from support.blender_helpers import reported
from support.mdl_models import synthetic_model
from support.mdl_reference import decode
from support.operators import export_mdl, import_mdl

from formats.images.palette import quake_palette
from formats.md3.codec import read_md3
from formats.mdl.codec import MdlSkin, serialize_mdl

GREY = 231                       # Blender's 0.8 grey for faces without a material, in sRGB: 1.055 * 0.8 ** (1/2.4) - 0.055


def _read_tga(data: bytes) -> np.ndarray:
    """(h, w, 4) RGBA, top row first, of an uncompressed 32-bit TGA (read here, not with the extension)."""
    id_length, _, kind = data[0], data[1], data[2]
    width, height, bits, descriptor = struct.unpack_from("<HHBB", data, 12)
    assert kind == 2 and bits == 32, (kind, bits)
    pixels = np.frombuffer(data, np.uint8, width * height * 4, 18 + id_length).reshape(height, width, 4)
    rgba = pixels[..., [2, 1, 0, 3]]
    return rgba if descriptor & 0x20 else rgba[::-1]


def _five_skins() -> bytes:
    """Five skins: four single images and, as skin 2, a group of two (8x4 palette indices each)."""
    model = synthetic_model(seed=11)
    rng = np.random.default_rng(23)
    pixels = lambda n: rng.integers(0, 224, (n, 4, 8), dtype=np.uint8)  # noqa: E731  (no fullbright colours)
    model.skins = [MdlSkin(None, pixels(1)), MdlSkin(None, pixels(1)),
                   MdlSkin(np.array([0.1, 0.2], np.float32), pixels(2)), MdlSkin(None, pixels(1)),
                   MdlSkin(None, pixels(1))]
    return serialize_mdl(model)


def test_every_mdl_skin_gets_its_skin_file_and_image(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    source = tmp_path / "knight.mdl"
    source.write_bytes(_five_skins())
    reference = decode(source.read_bytes())
    obj = import_mdl(bpy, source)
    obj.name = "Knight"                         # a surface name with capitals: written as it is
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    export_mdl(bpy, obj, progs / "knight.mdl", enhanced_md3=True)
    assert "skin 2 is a group of 2 images in the MDL: the enhanced MD3 shows its first" in capfd.readouterr().out
    md3 = read_md3((progs / "knight.md3").read_bytes())
    names = [s.name for s in md3.surfaces]
    assert names == ["Knight"]
    skins = sorted(p.name for p in progs.glob("*.skin"))
    assert skins == [f"knight.md3_{n}.skin" for n in range(5)]
    palette = quake_palette()
    images = set()
    for n, skin in enumerate(reference.skins):
        lines = (progs / f"knight.md3_{n}.skin").read_text().splitlines()
        entries = dict(line.split(",", 1) for line in lines)
        assert sorted(entries) == sorted(names)
        shader = entries["Knight"]
        assert shader.startswith("progs/") and shader.endswith(".tga")
        images.add(shader)
        shown = _read_tga((tmp_path / "id1" / shader).read_bytes())
        indices = np.frombuffer(skin.images[0], np.uint8).reshape(reference.skin_height, reference.skin_width)
        np.testing.assert_array_equal(shown[..., :3], palette[indices], err_msg=f"skin {n}")
        assert (shown[..., 3] == 255).all()
    assert len(images) == 5                    # one image per skin, each written once
    assert sorted(p.name for p in progs.glob("*.tga")) == [f"knight_{k}.tga" for k in range(5)]
    assert md3.surfaces[0].shaders[0].name == "progs/knight_0.tga"      # skin 0 stays the surface's shader


def _skin_files(progs, stem: str, md3) -> list[dict[str, str]]:
    """Each ``<stem>.md3_<n>.skin`` as {surface: path}, after checking the files run from 0 without a gap and
    each names every surface of the MD3 (ironwail takes a skin file only when its surface names are the MD3's)."""
    files = sorted(p.name for p in progs.glob("*.skin"))
    assert files == [f"{stem}.md3_{n}.skin" for n in range(len(files))]
    sets = [dict(line.split(",", 1) for line in (progs / name).read_text().splitlines()) for name in files]
    for entries in sets:
        assert sorted(entries) == sorted(s.name for s in md3.surfaces)
    return sets


def _flat_colour(game, path: str) -> tuple[int, ...]:
    """The one colour of the TGA at ``path`` (a path under the game folder ``game``)."""
    pixels = _read_tga((game / path).read_bytes()).reshape(-1, 4)
    assert (pixels == pixels[0]).all(), path
    return tuple(int(v) for v in pixels[0])


def _plain_material(bpy, name: str, colour):
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    return material


def test_plain_colour_skins_each_get_an_image_and_every_skin_file_names_every_surface(bpy_scene, tmp_path, capfd):
    """An MDL whose skins are plain colours (materials with only a base colour): skin 0 names a TGA of its
    colour as skins 1+ do (not the material's name, an image that does not exist), the MD3's shader names it
    too, and surfaces without a material (Blender's grey) or whose image file is missing (its base colour)
    are in every skin file. The two flat skins are one warning line, counted and named (its details each
    surface's own line)."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    box = bpy.context.active_object
    box.name = "Box"
    box.data.materials.append(_plain_material(bpy, "flat0", (1.0, 0.0, 0.0)))    # skin 0: red
    box.data.materials.append(_plain_material(bpy, "flat1", (0.0, 1.0, 0.0)))    # skin 1: green (no face uses it)
    bpy.ops.mesh.primitive_cube_add(location=(0.0, 0.0, 3.0))
    lid = bpy.context.active_object
    lid.name = "Lid"                                                               # no material
    box.select_set(True)
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    capfd.readouterr()
    assert bpy.ops.export_scene.mdl(filepath=str(progs / "box.mdl"), enhanced_md3=True) == {"FINISHED"}
    out = capfd.readouterr().out
    assert len(decode((progs / "box.mdl").read_bytes()).skins) == 2
    md3 = read_md3((progs / "box.md3").read_bytes())
    assert sorted(s.name for s in md3.surfaces) == ["Box", "Lid"]
    sets = _skin_files(progs, "box", md3)
    assert len(sets) == 2
    game = tmp_path / "id1"
    assert [_flat_colour(game, entries["Box"]) for entries in sets] == [(255, 0, 0, 255), (0, 255, 0, 255)]
    assert all(_flat_colour(game, entries["Lid"]) == (GREY, GREY, GREY, 255) for entries in sets)
    assert sets[0]["Lid"] == sets[1]["Lid"]                       # one image for the one colour
    shaders = {s.name: s.shaders[0].name for s in md3.surfaces}
    assert shaders == sets[0]                                     # each surface's shader names its skin-0 image
    assert "no texture for the enhanced MD3" not in out
    assert (f"surface Box shows {sets[0]['Box']} in the enhanced MD3: a flat skin of the base colour (255, 0, 0) "
            "of material 'flat0', which has no image") in out
    assert (f"surface Lid shows {sets[0]['Lid']} in the enhanced MD3: a flat skin of Blender's grey "
            f"({GREY}, {GREY}, {GREY}), as it has no material") in out
    flat_lines = [w for w in reported(out)[0] if "enhanced MD3" in w and "flat skin" in w]
    assert flat_lines == ["2 surfaces of the enhanced MD3 show a flat skin (a material without an image): Box, Lid"]


def test_a_surface_whose_image_file_is_missing_shows_its_base_colour_in_every_skin(bpy_scene, tmp_path, capfd):
    """A second object's material shows an image whose file is missing (no pixels; Alternate Skins, as One
    Skin refuses to pack it): the enhanced MD3 gives it a TGA of the material's base colour in every skin file
    and says why."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    box = bpy.context.active_object
    box.name = "Box"
    box.data.materials.append(_plain_material(bpy, "flat0", (1.0, 0.0, 0.0)))
    box.data.materials.append(_plain_material(bpy, "flat1", (0.0, 1.0, 0.0)))
    bpy.ops.mesh.primitive_cube_add(location=(0.0, 3.0, 0.0))
    handle = bpy.context.active_object
    handle.name = "Handle"
    gone = _plain_material(bpy, "gone", (0.0, 0.0, 1.0))
    node = gone.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.new("gone.png", 4, 4)
    node.image.source, node.image.filepath = "FILE", str(tmp_path / "gone.png")
    handle.data.materials.append(gone)
    box.select_set(True)
    assert tuple(node.image.size) == (0, 0)
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    capfd.readouterr()
    assert bpy.ops.export_scene.mdl(filepath=str(progs / "box.mdl"), enhanced_md3=True,
                                    materials="ALTERNATE") == {"FINISHED"}
    out = capfd.readouterr().out
    md3 = read_md3((progs / "box.md3").read_bytes())
    sets = _skin_files(progs, "box", md3)
    assert len(sets) == 2 and sets[0]["Handle"] == sets[1]["Handle"]
    assert _flat_colour(tmp_path / "id1", sets[0]["Handle"]) == (0, 0, 255, 255)
    assert (f"surface Handle shows {sets[0]['Handle']} in the enhanced MD3: a flat skin of the base colour (0, 0, "
            "255) of material 'gone', whose image 'gone.png' has no pixels (a missing file?)") in out


def _image_material(bpy, name: str, pixels: np.ndarray):
    """A material showing a new image of ``pixels`` ((h, w, 4) uint8, top row first)."""
    height, width = pixels.shape[:2]
    image = bpy.data.images.new(name, width, height, alpha=True)
    image.pixels.foreach_set((pixels[::-1].astype(np.float32) / 255.0).ravel())
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    node = material.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    material.node_tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def test_skins_follow_the_mdls_first_object_when_the_first_selected_mesh_is_empty(bpy_scene, tmp_path):
    """The MDL leaves a mesh without faces out and takes its skins from the next object; so does the MD3:
    skin n shows the image of the MDL's skin n, not of the empty mesh's n-th material."""
    bpy = bpy_scene
    rng = np.random.default_rng(5)
    images = rng.integers(0, 256, (4, 4, 8, 4), dtype=np.uint8)
    images[..., 3] = 255
    empty = bpy.data.objects.new("Empty", bpy.data.meshes.new("Empty"))        # no vertices, linked first
    bpy.context.collection.objects.link(empty)
    for k in (0, 1):
        empty.data.materials.append(_image_material(bpy, f"other{k}", images[2 + k]))
    bpy.ops.mesh.primitive_cube_add()
    box = bpy.context.active_object
    box.name = "Box"
    for k in (0, 1):
        box.data.materials.append(_image_material(bpy, f"skin{k}", images[k]))
    empty.select_set(True)
    assert bpy.context.selected_objects[0] == empty                # the empty mesh comes first
    progs = tmp_path / "id1" / "progs"
    progs.mkdir(parents=True)
    assert bpy.ops.export_scene.mdl(filepath=str(progs / "box.mdl"), enhanced_md3=True) == {"FINISHED"}
    assert len(decode((progs / "box.mdl").read_bytes()).skins) == 2
    md3 = read_md3((progs / "box.md3").read_bytes())
    sets = _skin_files(progs, "box", md3)
    assert len(sets) == 2
    for n, entries in enumerate(sets):
        shown = _read_tga((tmp_path / "id1" / entries["Box"]).read_bytes())
        np.testing.assert_array_equal(shown, images[n], err_msg=f"skin {n}")


def test_the_tooltip_names_the_engines_that_load_the_md3_by_name(bpy_scene):
    """vkQuake (``Mod_LoadModel``), ironwail (``loadMd3Replacement``) and FTE (``r_replacemodels``) load
    ``progs/x.md3`` when the game names ``progs/x.mdl``; DarkPlaces loads the file named (by its magic) and
    never swaps the name, so the tooltip must not promise it."""
    import bpy
    text = bpy.ops.export_scene.mdl.get_rna_type().properties["enhanced_md3"].description
    engines, _, rest = text.partition(" draw it in place of ")
    assert all(name in engines for name in ("vkQuake", "ironwail", "FTE")) and "DarkPlaces" not in engines, text
    assert "DarkPlaces does not" in rest, text
