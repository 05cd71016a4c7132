"""One skin for the materials a model's faces use (MD2 and MDL export option *Materials*).

The games draw one skin on every face of an MD2 or MDL model: skin 0, or the one the entity
picks. A model whose faces use several materials therefore shows, in the game, the first
material's image on every face. *One Skin* (the default) packs the images of the materials the
faces use side by side into one skin (:mod:`...formats.images.skin_atlas`) and moves each face's UVs into
its image's cell, so every face shows its own image; a material without an image gets a small cell
of its base colour. *Alternate Skins* writes one skin per material as before, for models whose
materials really are alternatives (team colours), and the report says the game draws one of them
on every face.

Packing happens only when the faces use two or more materials (or images) and at least one has
an image, so a model with one material, and every untouched import, is written as before. Images
too large to fit side by side in a skin the game loads (at most 480 pixels high) are scaled down
together, by one factor, until they fit, as a lone image is scaled to fit (the report says so);
colour cells keep their size.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...common.mdl_skins import material_skin_images
from ...formats.errors import FormatError
from ...formats.images.skin_atlas import DEFAULT_GUTTER, AtlasLayout, atlas_uvs, pack_images, plan_atlas
from ...formats.images.skin_limits import resample
from ...formats.message_text import quoted
from ...formats.report_lines import Message
from ..export_error import ExportError
from ..image_files import image_rgba
from .animated_mesh import MeshPart
from .planned import model_label

MATERIAL_MODES = ("ONE_SKIN", "ALTERNATE")
COLOUR_CELL = 4          # pixels per side of the cell of a material without an image
# Blender's colour for faces without a material (linear; sRGB 231): the default material it draws
# them with in Solid and Material Preview (blender/blender source/blender/makesdna/DNA_material_defaults.h,
# _DNA_DEFAULT_Material .r = .g = .b = 0.8)
_DEFAULT_GREY = (0.8, 0.8, 0.8, 1.0)
FLAT_KIND = "{n} material{s} without an image: each a flat skin of its base colour"    # one line, named


@dataclass
class SkinSource:
    """What one group of faces shows: a material's image (and MDL fullbright mask) or its colour."""
    label: str                          # for the report: material and image
    image: bpy.types.Image | None
    mask: bpy.types.Image | None
    colour: tuple[int, int, int, int]   # sRGB 0-255, used when there is no image
    group_images: int = 1               # images of an MDL skin group (only the first is packed)
    fitted: tuple[int, int] | None = None   # the size of its cell when the images were scaled down to fit

    @property
    def own_size(self) -> tuple[int, int]:
        if self.image is not None:
            return int(self.image.size[0]), int(self.image.size[1])
        return COLOUR_CELL, COLOUR_CELL

    @property
    def size(self) -> tuple[int, int]:
        """The size of its cell in the packed skin."""
        return self.fitted or self.own_size

    def rgba(self) -> np.ndarray:
        """(h, w, 4) uint8, top row first, at the size of its cell."""
        if self.image is not None:
            rgba = image_rgba(self.image)
            return rgba if self.fitted is None else resample(rgba, *self.fitted)
        return np.broadcast_to(np.array(self.colour, np.uint8), (COLOUR_CELL, COLOUR_CELL, 4)).copy()


@dataclass
class PackedSkin:
    """The sources the faces use, their atlas layout and the merged parts' UVs in the atlas."""
    sources: list[SkinSource]
    layout: AtlasLayout
    corner_uvs: np.ndarray              # (T, 3, 2) of the merged parts, as animated_mesh.merged orders them
    clamped: int                        # triangles whose UVs left their image and were clamped
    left_out: list[str] = field(default_factory=list)   # materials no face uses
    factor: float = 1.0                 # the images were scaled by this to fit (1: their own pixels)

    def rgba(self) -> np.ndarray:
        return pack_images([s.rgba() for s in self.sources], self.layout, fill=(0, 0, 0, 255))

    def report(self, skin: str) -> str:
        cells = ", ".join(f"{s.label} {w}x{h}" for s, (w, h) in zip(self.sources, (s.size for s in self.sources)))
        line = (f"Materials: One Skin: the faces use {len(self.sources)} materials ({cells}); packed into one "
                f"{self.layout.width}x{self.layout.height} skin {skin}, the one the game draws")
        if self.factor < 1.0:
            own = ", ".join(f"{w}x{h}" for w, h in (s.own_size for s in self.sources if s.fitted))
            line += (f"; the images ({own}) were scaled down to {self.factor:.0%} to fit one skin the game "
                     "loads")
        if self.clamped:
            line += (f"; {self.clamped} triangle(s) had UVs reaching past their image's edge (tiling across a "
                     "tile border) and were clamped to the image")
        if self.left_out:
            line += f"; materials no face uses are not written: {', '.join(self.left_out)}"
        groups = [s.label for s in self.sources if s.group_images > 1]
        if groups:
            line += f"; only the first image of each skin group is packed: {', '.join(groups)}"
        return line


def _linear_to_srgb(value: float) -> int:
    value = min(max(float(value), 0.0), 1.0)
    encoded = value * 12.92 if value <= 0.0031308 else 1.055 * value ** (1 / 2.4) - 0.055
    return int(round(encoded * 255))


def base_colour(material: bpy.types.Material | None) -> tuple[int, int, int, int]:
    """The colour Blender shows a material in, sRGB 0-255: the Principled BSDF's Base Color, else the
    viewport colour (``diffuse_color``); Blender's grey for no material."""
    colour = _DEFAULT_GREY
    if material is not None:
        colour = tuple(material.diffuse_color)
        tree = material.node_tree
        bsdf = next((n for n in tree.nodes if n.type == "BSDF_PRINCIPLED"), None) if tree is not None else None
        if bsdf is not None:
            colour = tuple(bsdf.inputs["Base Color"].default_value)
    return (*(_linear_to_srgb(c) for c in colour[:3]), 255)


def _source(material: bpy.types.Material | None) -> tuple[tuple, SkinSource]:
    pairs = material_skin_images(material) if material is not None else []
    if pairs:
        image, mask = pairs[0]
        label = f"{quoted(material.name)} ({image.name})" if image.name != material.name else quoted(material.name)
        return (("image", image.name, mask.name if mask else ""),
                SkinSource(label, image, mask, (0, 0, 0, 255), len(pairs)))
    if material is None:
        return ("none",), SkinSource("faces without a material", None, None, base_colour(None))
    return ("colour", material.name), SkinSource(f"{quoted(material.name)} (colour)", None, None, base_colour(material))


@dataclass
class FlatSkin:
    """A skin of one colour for a material without an image (or faces without a material), so the
    export writes a skin the game shows instead of naming a file it never writes."""
    label: str                          # for the report: "material 'noise'", "faces without a material"
    colour: tuple[int, int, int, int]   # sRGB 0-255
    width: int
    height: int

    @classmethod
    def of(cls, material: bpy.types.Material | None, width: int, height: int) -> FlatSkin:
        label = f"material {quoted(material.name)}" if material is not None else "faces without a material"
        return cls(label, base_colour(material), width, height)

    def rgba(self, eight_bit: bool = False) -> np.ndarray:
        """(height, width, 4) uint8 of the colour; for an 8-bit skin (MDL, MD2's PCX) with its top-left texel
        black: Quake and Quake II fill the region of that texel's colour joined to it with black when they
        load the skin (:mod:`...formats.images.corner_fill`), which would be the whole skin."""
        pixels = np.broadcast_to(np.array(self.colour, np.uint8), (self.height, self.width, 4)).copy()
        if eight_bit:
            pixels[0, 0] = (0, 0, 0, 255)
        return pixels

    def message(self, text: str) -> Message:
        """``text`` (this skin's own line) as one item of :data:`FLAT_KIND`: the export's materials without
        an image are one line, counted and named, their own lines its details."""
        return Message(text, FLAT_KIND, self.label.removeprefix("material "))

    @property
    def note(self) -> str:
        return f"a flat skin of the base colour {self.colour[:3]} of {self.label}, which has no image"


def face_sources(parts: list[MeshPart]) -> tuple[list[SkinSource], np.ndarray, list[str]]:
    """The distinct sources the faces use (in order of first use), each triangle's source, and the
    names of materials on the objects that no face uses."""
    keys: dict[tuple, int] = {}
    sources: list[SkinSource] = []
    cells = []
    used_materials: set[str] = set()
    all_materials: list[str] = []
    for part in parts:
        slots = [slot.material for slot in part.obj.material_slots]
        all_materials += [m.name for m in slots if m is not None and m.name not in all_materials]
        count = len(part.topology.triangles)
        index = part.topology.material_index
        if index is None:
            index = np.zeros(count, np.int32)
        slot_cell = np.zeros(max(len(slots), 1), np.int64)
        for s, material in enumerate(slots or [None]):
            if not np.any(np.minimum(index, max(len(slots) - 1, 0)) == s):
                continue
            key, source = _source(material)
            if key not in keys:
                keys[key] = len(sources)
                sources.append(source)
            slot_cell[s] = keys[key]
            if material is not None:
                used_materials.add(material.name)
        cells.append(slot_cell[np.clip(index, 0, len(slot_cell) - 1)])
    tri_cell = np.concatenate(cells) if cells else np.zeros(0, np.int64)
    return sources, tri_cell, [name for name in all_materials if name not in used_materials]


def pack_skin(parts: list[MeshPart], mode: str, max_height: int, width_multiple: int = 1) -> PackedSkin | None:
    """The packed skin for *One Skin* when the faces use two or more sources, one with an image;
    None when the export writes skins as before."""
    if mode != "ONE_SKIN":
        return None
    sources, tri_cell, left_out = face_sources(parts)
    if len(sources) < 2 or all(s.image is None for s in sources):
        return None
    for source in sources:
        if source.image is not None and (source.image.size[0] == 0 or source.image.size[1] == 0):
            raise ExportError(f"image {quoted(source.image.name)} has no pixels (missing file?); it cannot be packed "
                              "into the skin")
    try:
        layout, factor = _fitting_layout(sources, max_height, width_multiple)
    except FormatError as exc:
        raise ExportError(f"{model_label([p.obj for p in parts])}: Materials: One Skin: {exc}; scale the images "
                          "down or export with Materials: Alternate Skins") from exc
    uvs = np.concatenate([p.topology.corner_uvs for p in parts])
    if not np.all(np.isfinite(uvs)):
        raise ExportError(f"object {quoted(parts[0].obj.name)} has non-finite UV coordinates")
    corner_uvs, clamped = atlas_uvs(uvs, tri_cell, layout)
    return PackedSkin(sources, layout, corner_uvs, int(clamped.sum()), left_out, factor)


_SHRINK = 0.95    # each further try scales the images by this much more


def _fitting_layout(sources: list[SkinSource], max_height: int, width_multiple: int) -> tuple[AtlasLayout, float]:
    """The atlas of the sources at their own sizes, else with every image scaled by one factor (the
    largest tried that fits: first what brings the tallest within ``max_height``, then 5 % less at
    each try), setting each image source's ``fitted`` size; the layout and the factor."""
    try:
        return plan_atlas([s.size for s in sources], max_height=max_height, width_multiple=width_multiple), 1.0
    except FormatError as exc:
        refusal = exc
    tallest = max(s.own_size[1] for s in sources if s.image is not None)
    factor = min(1.0, (max_height - 2 * DEFAULT_GUTTER) / tallest)
    while factor * tallest >= 1:
        sizes = [(max(1, int(s.own_size[0] * factor)), max(1, int(s.own_size[1] * factor)))
                 if s.image is not None else s.own_size for s in sources]
        try:
            layout = plan_atlas(sizes, max_height=max_height, width_multiple=width_multiple)
        except FormatError:
            factor *= _SHRINK
            continue
        for source, size in zip(sources, sizes):
            source.fitted = size if source.image is not None else None
        return layout, factor
    raise refusal


def alternate_note(parts: list[MeshPart], mode: str) -> str | None:
    """For *Alternate Skins*: a note when the faces use several materials (the game shows one)."""
    if mode != "ALTERNATE":
        return None
    sources, _, _ = face_sources(parts)
    if len(sources) < 2:
        return None
    return (f"Materials: Alternate Skins: the faces use {len(sources)} materials, written as alternative skins; "
            "the game draws one skin (the first, unless the entity picks another) on every face")
