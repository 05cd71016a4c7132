"""The MDL export's *Enhanced MD3* writes one ``.skin`` file per MDL skin, numbered from 0 without a gap as
the Quake ports count them (ironwail ``Mod_LoadMD3Model``: ``x.md3_<n>.skin`` until one is missing; FTE
``Mod_CountSkinFiles``; DarkPlaces ``Mod_LoadSkinFiles``), each naming a TGA that shows that MDL skin, and
the surfaces under their own names (ironwail takes a ``.skin`` only when its surface names are the MD3's,
compared with ``strcmp``)."""
from __future__ import annotations

import struct

import numpy as np

from formats.images.palette import quake_palette
from formats.md3.codec import read_md3
from formats.mdl.codec import MdlSkin, serialize_mdl
from support.mdl_models import synthetic_model
from support.mdl_reference import decode
from support.operators import export_mdl, import_mdl


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
