"""MS3D export *Textures*: images copied (or written as PNG) beside the model under the bare name
the file stores; names only on request; an existing file kept unless the image changed in Blender."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from support.image_files import read_png, write_png

from formats.ms3d.codec import parse_ms3d

RNG = np.random.default_rng(141)


def textured_cube(bpy, image):
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    material = bpy.data.materials.new("paint")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    tree.links.new(node.outputs["Color"], bsdf.inputs["Base Color"])
    obj.data.materials.append(material)
    return obj


def export(bpy, path: Path, **options) -> list[str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert bpy.ops.export_scene.ms3d(filepath=str(path), **options) == {"FINISHED"}
    return [bytes(m.texture_raw).split(b"\0")[0].decode() for m in parse_ms3d(path.read_bytes()).materials]


def test_image_made_in_blender_is_written_as_png(bpy_scene, tmp_path):
    bpy = bpy_scene
    rgba = RNG.integers(0, 256, (8, 16, 4)).astype(np.uint8)
    image = bpy.data.images.new("wood grain", 16, 8, alpha=True)
    image.pixels.foreach_set((rgba[::-1].astype(np.float32) / 255).ravel())
    textured_cube(bpy, image)
    assert export(bpy, tmp_path / "out" / "crate.ms3d") == ["wood grain.png"]
    np.testing.assert_array_equal(read_png((tmp_path / "out" / "wood grain.png").read_bytes()), rgba)


def test_image_file_is_copied_byte_for_byte_and_an_existing_file_kept(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    source = write_png(tmp_path / "art" / "textures" / "Paint.png", RNG.integers(0, 256, (4, 4, 4)).astype(np.uint8))
    textured_cube(bpy, bpy.data.images.load(str(source)))
    out = tmp_path / "out" / "crate.ms3d"
    assert export(bpy, out) == ["Paint.png"]
    assert (out.parent / "Paint.png").read_bytes() == source.read_bytes()
    (out.parent / "Paint.png").write_bytes(b"not mine")
    export(bpy, out)
    assert (out.parent / "Paint.png").read_bytes() == b"not mine"
    assert "exists and differs; kept it" in capsys.readouterr().out


def test_names_only_writes_no_image(bpy_scene, tmp_path):
    bpy = bpy_scene
    image = bpy.data.images.new("wood", 4, 4)
    textured_cube(bpy, image)
    assert export(bpy, tmp_path / "crate.ms3d", textures="NAMES") == ["wood"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["crate.ms3d"]


def _reimported_texture(bpy, path: Path) -> np.ndarray:
    """Import ``path`` into an empty scene with the default options; the pixels of its material's image."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for image in list(bpy.data.images):
        bpy.data.images.remove(image)
    assert bpy.ops.import_scene.ms3d(filepath=str(path)) == {"FINISHED"}
    materials = [m for m in bpy.data.materials if m.users and m.node_tree is not None]
    images = [n.image for m in materials for n in m.node_tree.nodes if n.type == "TEX_IMAGE" and n.image]
    assert images, "the re-import is untextured"
    image = images[0]
    w, h = image.size
    assert w and h, f"image {image.name!r} has no pixels (its file was not found)"
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.rint(pixels.reshape(h, w, 4)[::-1] * 255).astype(np.uint8)


def test_non_ascii_names_store_and_write_the_same_file(bpy_scene, tmp_path):
    """'Haut_ä' is stored in cp1252 (MilkShape's Windows code page: b'Haut_\\xe4.png') and written as the
    file 'Haut_ä.png'; a name cp1252 cannot hold is stored in UTF-8. Each re-imports textured."""
    bpy = bpy_scene
    for name, stored in (("Haut_ä", "Haut_ä.png".encode("cp1252")), ("皮肤", "皮肤.png".encode())):
        rgba = RNG.integers(0, 256, (4, 8, 4)).astype(np.uint8)
        rgba[..., 3] = 255
        image = bpy.data.images.new(name, 8, 4, alpha=True)
        image.pixels.foreach_set((rgba[::-1].astype(np.float32) / 255).ravel())
        textured_cube(bpy, image)
        out = tmp_path / name / "skin.ms3d"
        out.parent.mkdir()
        assert bpy.ops.export_scene.ms3d(filepath=str(out)) == {"FINISHED"}
        raw = bytes(parse_ms3d(out.read_bytes()).materials[0].texture_raw).split(b"\0")[0]
        assert raw == stored
        assert sorted(p.name for p in out.parent.iterdir()) == sorted(["skin.ms3d", f"{name}.png"])
        np.testing.assert_array_equal(read_png((out.parent / f"{name}.png").read_bytes()), rgba)
        np.testing.assert_array_equal(_reimported_texture(bpy, out), rgba)
