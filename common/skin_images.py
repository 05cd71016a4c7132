"""Skin images and materials: PCX through our own decoder, other formats through Blender."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import bpy

from ..formats.errors import FormatError
from ..formats.pcx import decode_pcx
from .contract import SOURCE_PATH


def image_from_rgba(name: str, rgba: np.ndarray) -> bpy.types.Image:
    """A packed image from (height, width, 4) uint8 pixels, top row first."""
    height, width = rgba.shape[:2]
    image = bpy.data.images.new(name, width, height, alpha=True)
    pixels = np.ascontiguousarray(rgba[::-1], dtype=np.float32) / 255.0
    image.pixels.foreach_set(pixels.ravel())
    image.pack()
    return image


def load_skin_image(path: Path) -> bpy.types.Image:
    """Load and pack the image at ``path``; raises FormatError or OSError if it cannot be read."""
    if path.suffix.lower() == ".pcx":
        pcx = decode_pcx(path.read_bytes())
        image = image_from_rgba(path.name, pcx.rgba)
        image[SOURCE_PATH] = str(path)
        return image
    try:
        image = bpy.data.images.load(str(path), check_existing=False)
    except RuntimeError as exc:
        raise FormatError(f"Blender cannot read this image: {exc}", filename=str(path)) from exc
    if image.size[0] == 0 or image.size[1] == 0:
        bpy.data.images.remove(image)
        raise FormatError("Blender cannot decode this image", filename=str(path))
    image.pack()
    return image


def skin_material(name: str, image: bpy.types.Image | None) -> bpy.types.Material:
    """A node material showing ``image`` with nearest-texel sampling, as the old engines did."""
    material = bpy.data.materials.new(name)
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is not None:
        bsdf.inputs["Roughness"].default_value = 1.0
    if image is not None and bsdf is not None:
        tex = tree.nodes.new("ShaderNodeTexImage")
        tex.image = image
        tex.interpolation = "Closest"
        tex.location = (bsdf.location.x - 320, bsdf.location.y)
        tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def material_image(material: bpy.types.Material | None) -> bpy.types.Image | None:
    """The first image texture in ``material``'s node tree, if any."""
    if material is None or material.node_tree is None:
        return None
    for node in material.node_tree.nodes:
        if node.type == "TEX_IMAGE" and node.image is not None:
            return node.image
    return None
