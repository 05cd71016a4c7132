"""Skin images and materials: PCX through our own decoder, other formats through Blender."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

import bpy

from ..formats.archives.archive import ArchiveError, open_archive
from ..formats.errors import FormatError
from ..formats.images.pcx import decode_pcx
from .contract import FULLBRIGHT_NODE, PCX_INDICES, SOURCE_ARCHIVE, SOURCE_DIGEST, SOURCE_MEMBER, SOURCE_PATH
from .disk_names import blender_safe, readable_name, storable_path, stored_path
from .generated_names import mark_made


def image_from_rgba(name: str, rgba: np.ndarray) -> bpy.types.Image:
    """A packed image from (height, width, 4) uint8 pixels, top row first."""
    height, width = rgba.shape[:2]
    image = bpy.data.images.new(name, width, height, alpha=True)
    pixels = np.ascontiguousarray(rgba[::-1], dtype=np.float32) / 255.0
    image.pixels.foreach_set(pixels.ravel())
    image.pack()
    return image


def load_skin_image(path: Path, palette: np.ndarray | None = None,
                    transparent: int | None = None) -> bpy.types.Image:
    """Load and pack the image at ``path``; raises FormatError or OSError if it cannot be read.

    An 8-bit PCX shows its indices through ``palette`` when given (the game's), else through the
    palette stored in the file; pixels of index ``transparent`` (Quake II's 255) get alpha 0. The
    image remembers its file and packed data (see contract). A file whose name is not UTF-8 is read by
    Python and given to Blender as bytes (see disk_names)."""
    if not blender_safe(str(path)):
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise FormatError(f"cannot read: {exc.strerror or exc}", filename=readable_name(str(path))) from exc
        image = skin_image_from_data(readable_name(path.name), data, readable_name(str(path)), palette,
                                     transparent=transparent)
        image[SOURCE_PATH] = storable_path(str(path))
        return image
    if path.suffix.lower() == ".pcx":
        image = _pcx_image(path.name, path.read_bytes(), str(path), palette, transparent)
    else:
        try:
            image = bpy.data.images.load(str(path), check_existing=False)
        except RuntimeError as exc:
            raise FormatError(f"Blender cannot read this image: {exc}", filename=str(path)) from exc
        if image.size[0] == 0 or image.size[1] == 0:
            bpy.data.images.remove(image)
            raise FormatError("Blender cannot decode this image", filename=str(path))
        image.pack()
    image[SOURCE_PATH] = str(path)
    image[SOURCE_DIGEST] = packed_digest(image)
    return image


def skin_image_from_data(name: str, data: bytes, source: str, palette: np.ndarray | None = None,
                         archive: Path | None = None, member: str = "",
                         transparent: int | None = None) -> bpy.types.Image:
    """:func:`load_skin_image` for a file held in memory (an archive member): PCX through our decoder,
    other formats packed as they are and decoded by Blender from the packed bytes. ``source`` names
    where the bytes came from (``pak0.pak:players/male/grunt.pcx``); nothing touches the disk."""
    if name.lower().endswith(".pcx"):
        image = _pcx_image(name, data, source, palette, transparent)
    else:
        image = bpy.data.images.new(name, 1, 1)
        image.pack(data=data, data_len=len(data))
        image.source = "FILE"
        image.filepath_raw = f"//{name}"
        if image.size[0] == 0 or image.size[1] == 0:
            bpy.data.images.remove(image)
            raise FormatError("Blender cannot decode this image", filename=source)
    image[SOURCE_PATH] = source
    image[SOURCE_DIGEST] = packed_digest(image)
    if archive is not None:
        image[SOURCE_ARCHIVE], image[SOURCE_MEMBER] = str(archive), member
    return image


def _pcx_image(name: str, data: bytes, source: str, palette: np.ndarray | None,
               transparent: int | None) -> bpy.types.Image:
    """A packed image of PCX ``data`` that remembers its indices (8-bit), see :func:`load_skin_image`."""
    try:
        pcx = decode_pcx(data)
    except FormatError as exc:
        raise exc.with_filename(source)
    rgba = pcx.rgba
    if pcx.indices is not None and (palette is not None or transparent is not None):
        rgba = rgba.copy()
        if palette is not None:
            rgba[..., :3] = palette[pcx.indices]
        if transparent is not None:
            rgba[..., 3] = np.where(pcx.indices == transparent, 0, 255)
    image = image_from_rgba(name, rgba)
    _remember_indices(image, pcx.indices)
    return image


def _remember_indices(image: bpy.types.Image, indices: np.ndarray | None) -> None:
    if indices is not None:
        image[PCX_INDICES] = np.ascontiguousarray(indices, dtype=np.uint8).tobytes()


def stored_pcx_indices(image: bpy.types.Image) -> np.ndarray | None:
    """(h, w) uint8 indices the image was decoded from, if it came from an 8-bit PCX of its size."""
    stored = image.get(PCX_INDICES)
    width, height = (int(x) for x in image.size)
    if stored is None or len(bytes(stored)) != width * height:
        return None
    return np.frombuffer(bytes(stored), np.uint8).reshape(height, width)


def unchanged_member_bytes(image: bpy.types.Image, suffix: str) -> tuple[bytes, str] | None:
    """The bytes of the archive member an unchanged ``image`` was read from, if its name ends with
    ``suffix``, and where they came from; None otherwise or when the archive cannot be read now."""
    archive, member = image.get(SOURCE_ARCHIVE), image.get(SOURCE_MEMBER)
    if not archive or not member or not str(member).lower().endswith(suffix.lower()) or not image_unchanged(image):
        return None
    try:
        with open_archive(str(archive)) as opened:
            return opened.read(str(member)), f"{archive}:{member}"
    except ArchiveError:
        return None


def packed_digest(image: bpy.types.Image) -> str:
    """SHA-1 of the image's packed data ('' when it is not packed)."""
    packed = image.packed_file
    return hashlib.sha1(bytes(packed.data)).hexdigest() if packed is not None else ""


def image_unchanged(image: bpy.types.Image) -> bool:
    """True for an imported image nobody painted on or replaced since the import."""
    stored = image.get(SOURCE_DIGEST)
    return bool(stored) and not image.is_dirty and packed_digest(image) == stored


def unchanged_source_file(image: bpy.types.Image) -> Path | None:
    """The file ``image`` still shows unchanged, if any: its import's source, or the file it was
    loaded from (not packed, not edited)."""
    if image_unchanged(image):
        source = Path(stored_path(image[SOURCE_PATH]))
    elif image.packed_file is None and image.filepath and not image.is_dirty and image.source == "FILE":
        source = Path(bpy.path.abspath(image.filepath))
    else:
        return None
    return source if source.is_file() else None


def has_holes(image: bpy.types.Image | None) -> bool:
    """True for an image with a pixel of alpha below half (Quake II's index 255, see :func:`_pcx_image`)."""
    if image is None or image.channels != 4 or image.size[0] * image.size[1] == 0:
        return False
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return bool((pixels[3::4] < 0.5).any())


def skin_material(name: str, image: bpy.types.Image | None, holes: bool = False) -> bpy.types.Material:
    """A node material showing ``image`` with nearest-texel sampling, as the old engines did; with
    ``holes`` its alpha cuts the surface (Quake II alpha-tests its skins: index 255 is a hole)."""
    material = bpy.data.materials.new(name)
    mark_made(material)
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
        if holes:
            tree.links.new(tex.outputs["Alpha"], bsdf.inputs["Alpha"])
            if hasattr(material, "surface_render_method"):       # EEVEE Next (4.2 on)
                material.surface_render_method = "DITHERED"
    return material


def material_image(material: bpy.types.Material | None) -> bpy.types.Image | None:
    """The first image texture in ``material``'s node tree that is not an MDL fullbright mask, if any."""
    if material is None or material.node_tree is None:
        return None
    for node in material.node_tree.nodes:
        if node.type == "TEX_IMAGE" and node.image is not None and not node.name.startswith(FULLBRIGHT_NODE.format("")):
            return node.image
    return None
