"""Skins in Blender: models with images, the image a material shows, its pixels."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from formats.md2.codec import serialize_md2

from .md2_synthetic import grid_model


def md2_file(path: Path, skins: list[str]) -> Path:
    model = grid_model()
    model.skins = skins
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(serialize_md2(model))
    return path


def shown_image(obj):
    """The image on the faces: the texture of the material the polygons use."""
    index = {p.material_index for p in obj.data.polygons}
    assert index == {0}
    material = obj.data.materials[0]
    return next(n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE")


def image_rgba(image) -> np.ndarray:
    w, h = image.size
    pixels = np.empty(w * h * 4, np.float32)
    image.pixels.foreach_get(pixels)
    return np.rint(pixels.reshape(h, w, 4)[::-1] * 255).astype(np.uint8)


def files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink()}


def blender_model(bpy, image_rgba_pixels: np.ndarray, name: str = "crate_paint"):
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.active_object
    h, w = image_rgba_pixels.shape[:2]
    image = bpy.data.images.new(name, w, h, alpha=True)
    image.pixels.foreach_set((image_rgba_pixels[::-1].astype(np.float32) / 255).ravel())
    material = bpy.data.materials.new("crate")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    node = material.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    obj.data.materials.append(material)
    return obj


PLAYER = [i for i in range(16, 32)] + [i for i in range(96, 112)]


NOT_PLAYER = [i for i in range(224) if i not in PLAYER]


def set_rgb(image, rgb: np.ndarray) -> None:
    height, width = rgb.shape[:2]
    pixels = np.ones((height, width, 4), np.float32)
    pixels[..., :3] = rgb[::-1] / 255.0
    image.pixels.foreach_set(pixels.ravel())


def new_model(bpy, name: str, rgb: np.ndarray):
    """A cube named ``name`` whose material shows a new image of ``rgb``."""
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    obj.name = name
    image = bpy.data.images.new(f"{name} paint", rgb.shape[1], rgb.shape[0])
    set_rgb(image, rgb)
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tex = material.node_tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    obj.data.materials.append(material)
    return obj, image
