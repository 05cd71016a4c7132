"""Quake MDL skins as Blender images and materials.

Each skin slot becomes one material; a skin group keeps every image (image nodes ``mdl_skin_0``,
``mdl_skin_1``... with the first one shown) and its intervals (``material["mdl_skin_intervals"]``).
Palette indices 224-255 are drawn unlit by Quake (fullbright). Which pixels are fullbright is a
greyscale *fullbright mask* per skin image, "<skin> Fullbright" (white = fullbright, node
``mdl_fullbright_<j>`` labelled "Fullbright Mask"), painted like any image in Texture Paint; it
also feeds the material's emission (skin colour x mask) so fullbright pixels show unlit. The import
makes one for each skin image with fullbright pixels; :func:`add_fullbright_mask` (the sidebar's
*Add Fullbright Mask*) makes one for any material. On export the mask alone decides: white pixels
get the nearest of 224-255, others never do. Each image keeps the indices it was decoded from
(``image["mdl_indices"]``) so unchanged pixels export to exactly the same indices.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import bpy

from ..formats.errors import FormatError
from ..formats.images.palette import FULLBRIGHT_START, game_palette, indices_to_rgba, load_palette_lmp
from ..formats.mdl.codec import MdlSkin
from ..formats.message_text import quoted
from .contract import FULLBRIGHT_NODE, INDICES, INTERVALS, SKIN_NODE
from .skin_images import image_from_rgba, skin_material

MASK_SUFFIX = " Fullbright"
MASK_LABEL = "Fullbright Mask"

AUTO_PALETTE = "AUTO"
PALETTE_ITEMS = (("QUAKE", "Quake", "Quake's palette (palette.lmp)"),
                 ("HEXEN2", "Hexen II", "Hexen II's palette (gfx/palette.lmp)"),
                 ("FILE", "File", "The 768-byte palette lump named by Palette File"))


def palette_items(automatic: str) -> tuple:
    """The Palette menu: Automatic (the default, ``automatic`` says what it picks), then the palettes."""
    return ((AUTO_PALETTE, "Automatic", automatic),) + PALETTE_ITEMS


def chosen_palette(operator) -> str:
    """The Palette option as the import and export options take it: '' while Automatic."""
    return "" if operator.palette == AUTO_PALETTE else operator.palette


def skin_images(name: str, indices: np.ndarray, palette: np.ndarray) -> tuple[bpy.types.Image, bpy.types.Image | None]:
    """The colour image of (h, w) palette ``indices`` and, if any index is fullbright, its mask."""
    image = image_from_rgba(name, indices_to_rgba(indices, palette))
    image[INDICES] = np.ascontiguousarray(indices, dtype=np.uint8).tobytes()
    fullbright = indices >= FULLBRIGHT_START
    if not fullbright.any():
        return image, None
    return image, _mask_image(image.name, fullbright)


def _mask_image(skin_name: str, fullbright: np.ndarray) -> bpy.types.Image:
    """A packed greyscale (Non-Color) mask, white where ``fullbright`` (h, w) is True."""
    mask_rgba = np.zeros(fullbright.shape + (4,), dtype=np.uint8)
    mask_rgba[fullbright] = 255
    mask_rgba[..., 3] = 255
    mask = image_from_rgba(f"{skin_name}{MASK_SUFFIX}", mask_rgba)
    mask.colorspace_settings.name = "Non-Color"
    return mask


def skin_slot_material(name: str, skin: MdlSkin, palette: np.ndarray) -> bpy.types.Material:
    """One material for a skin slot: every image of a group, intervals, fullbright emission."""
    pairs = [skin_images(name if len(skin.images) == 1 else f"{name}_{j}", img, palette)
             for j, img in enumerate(skin.images)]
    return image_group_material(name, pairs, skin.intervals)


def fullbright_mask(image_name: str, fullbright: np.ndarray) -> bpy.types.Image | None:
    """The fullbright mask of an image from a (h, w) bool array (None where nothing is fullbright)."""
    return _mask_image(image_name, fullbright) if fullbright.any() else None


def image_group_material(name: str, pairs: list, intervals) -> bpy.types.Material:
    """A material laid out as an MDL skin slot: (image, mask or None) per image of the group in nodes
    ``mdl_skin_j`` / ``mdl_fullbright_j``, the first shown with emission = colour x mask, ``intervals``
    (cumulative end times, None for one image) kept as the MDL import keeps them."""
    material = skin_material(name, pairs[0][0])
    tree = material.node_tree
    shown = next(n for n in tree.nodes if n.type == "TEX_IMAGE")
    shown.name = SKIN_NODE.format(0)
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    for j, (image, mask) in enumerate(pairs):
        tex = shown if j == 0 else tree.nodes.new("ShaderNodeTexImage")
        if j:
            tex.name, tex.label, tex.image = SKIN_NODE.format(j), f"group image {j}", image
            tex.interpolation = "Closest"
            tex.location = (shown.location.x - 320 * j, shown.location.y - 300)
        if mask is not None:
            _add_mask_node(tree, tex, j, mask, bsdf if j == 0 else None)
    if intervals is not None:
        material[INTERVALS] = [float(x) for x in intervals]
    return material


def _add_mask_node(tree, tex, j: int, mask: bpy.types.Image, bsdf) -> bpy.types.Node:
    """The mask's image node under the skin's ``tex``; with ``bsdf``, emission = skin colour x mask."""
    mask_node = tree.nodes.new("ShaderNodeTexImage")
    mask_node.name, mask_node.label, mask_node.image = FULLBRIGHT_NODE.format(j), MASK_LABEL, mask
    mask_node.interpolation = "Closest"
    mask_node.location = (tex.location.x, tex.location.y - 280)
    if bsdf is not None:
        glow = tree.nodes.new("ShaderNodeVectorMath")
        glow.operation = "MULTIPLY"
        glow.location = (bsdf.location.x - 160, bsdf.location.y - 360)
        tree.links.new(tex.outputs["Color"], glow.inputs[0])
        tree.links.new(mask_node.outputs["Color"], glow.inputs[1])
        tree.links.new(glow.outputs[0], bsdf.inputs["Emission Color"])
        bsdf.inputs["Emission Strength"].default_value = 1.0
    return mask_node


def skin_node(material: bpy.types.Material | None):
    """The image node of a material's (first) skin: ``mdl_skin_0``, else its first image texture that
    is not a fullbright mask; None without one."""
    tree = material.node_tree if material is not None else None
    if tree is None:
        return None
    node = tree.nodes.get(SKIN_NODE.format(0))
    if node is not None and node.type == "TEX_IMAGE" and node.image is not None:
        return node
    return next((n for n in tree.nodes if n.type == "TEX_IMAGE" and n.image is not None
                 and not n.name.startswith(FULLBRIGHT_NODE.format(""))), None)


def fullbright_mask_node(material: bpy.types.Material | None):
    """The image node of the fullbright mask of a material's first skin, if any."""
    tree = material.node_tree if material is not None else None
    return tree.nodes.get(FULLBRIGHT_NODE.format(0)) if tree is not None else None


def add_fullbright_mask(material: bpy.types.Material) -> bpy.types.Image:
    """The fullbright mask of ``material``'s first skin, made if missing: an image of the skin's size,
    white where the skin's imported indices are 224-255 (black for an image made in Blender), in
    node ``mdl_fullbright_0`` wired into the emission. Raises ValueError without a skin image."""
    existing = fullbright_mask_node(material)
    if existing is not None and existing.image is not None:
        return existing.image
    tex = skin_node(material)
    if tex is None:
        raise ValueError(f"material {quoted(material.name)} shows no image to mark fullbright pixels on")
    tree = material.node_tree
    if tex.name != SKIN_NODE.format(0) and tree.nodes.get(SKIN_NODE.format(0)) is None:
        tex.name = SKIN_NODE.format(0)
    image = tex.image
    width, height = (int(x) for x in image.size)
    stored = image.get(INDICES)
    if stored is not None and len(bytes(stored)) == width * height:
        fullbright = np.frombuffer(bytes(stored), np.uint8).reshape(height, width) >= FULLBRIGHT_START
    else:
        fullbright = np.zeros((height, width), dtype=bool)
    mask = _mask_image(image.name, fullbright)
    if existing is not None:
        existing.image = mask
        return mask
    bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    _add_mask_node(tree, tex, 0, mask, bsdf)
    return mask


def material_skin_images(material: bpy.types.Material) -> list[tuple[bpy.types.Image, bpy.types.Image | None]]:
    """(image, fullbright mask or None) for each image of a material made by :func:`skin_slot_material`,
    else the material's first image texture (not a mask) with its mask, if it was given one."""
    tree = material.node_tree if material is not None else None
    if tree is None:
        return []
    out = []
    j = 0
    while (node := tree.nodes.get(SKIN_NODE.format(j))) is not None and node.image is not None:
        mask = tree.nodes.get(FULLBRIGHT_NODE.format(j))
        out.append((node.image, mask.image if mask is not None else None))
        j += 1
    if not out:
        first = skin_node(material)
        mask = fullbright_mask_node(material)
        if first is not None:
            out.append((first.image, mask.image if mask is not None else None))
    return out


def mdl_skin_slots(obj: bpy.types.Object) -> list[tuple[bpy.types.Material, list | None]]:
    """The MDL's skins of ``obj`` in the order the MDL export writes them, as (material, its
    :func:`material_skin_images`, or None for a flat skin of its base colour): each material slot whose
    material has an image (a material in two slots is two skins), then every other material once, so skin 0
    stays an image. The MDL export and the enhanced MD3 beside it both number skins by this."""
    slots: list[tuple[bpy.types.Material, list | None]] = []
    flat: list[tuple[bpy.types.Material, list | None]] = []
    for slot in obj.material_slots:
        pairs = material_skin_images(slot.material)
        if pairs:
            slots.append((slot.material, pairs))
        elif slot.material is not None and all(m is not slot.material for m, _ in slots + flat):
            flat.append((slot.material, None))
    return slots + flat


def read_palette(path_text: str, game: str = "QUAKE") -> np.ndarray:
    """The 768-byte palette lump at ``path_text`` (Blender-relative paths allowed); empty = the
    built-in palette ``game`` ('QUAKE', 'HEXEN2'; 'FILE' needs a path)."""
    if not path_text:
        if game == "FILE":
            raise FormatError("the Palette option is 'File' but no palette file is given", field="palette")
        return game_palette(game)
    path = Path(bpy.path.abspath(path_text))
    try:
        return load_palette_lmp(path.read_bytes())
    except FormatError as exc:
        raise exc.with_filename(str(path))
