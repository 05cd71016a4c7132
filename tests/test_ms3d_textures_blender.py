"""MS3D export *Textures*: images copied (or written as PNG) beside the model under the bare name
the file stores; names only on request; an existing file kept unless the image changed in Blender."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from formats.ms3d.codec import parse_ms3d
from image_files import read_png, write_png

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
