"""The Quake re-release layout's skins of one MD5 ``shader``, looked up as the ports look them up
(ironwail ``Quake/gl_model.c`` ``Mod_LoadMD5MeshModel`` and ``Quake/image.c`` ``Image_LoadImage``; the
same loop in the QuakeSpasm-Spiked lineage; docs/dev/format-facts.md, "MD5"), and made into materials
as the MDL import makes an MDL's skin slots (:func:`...common.mdl_skins.image_group_material`).

- Skin ``s`` (00, 01 ... up to :data:`MAX_SKINS`) while ``progs/<shader>_<s:02>_00`` exists; its frames
  ``_00``, ``_01`` ... up to :data:`MAX_SKIN_FRAMES`, stopping at the first one missing. Each name is
  tried with ``.png``, ``.tga``, ``.jpg``, ``.pcx``, ``.lmp`` in that order, the first found wins.
- A skin with several frames is an animated skin group, one frame every 0.1 s (the ports cycle four
  texture slots at ten a second): intervals 0.1, 0.2 ... as an MDL skin group keeps them.
- Fullbright: an 8-bit ``.lmp`` frame glows where its indices are 224-255 (``Mod_CheckFullbrights``), a
  mask made from the indices as the MDL import makes it; a truecolour frame (``.png``, ``.tga``,
  ``.jpg``, or a ``.pcx``, which the ports expand to colours) takes its glow from
  ``<name>_glow`` else ``<name>_luma`` (same extensions): its non-black pixels become the mask. A
  ``_glow``/``_luma`` beside an ``.lmp`` is not read by the ports and is only reported.
"""
from __future__ import annotations

from pathlib import PurePosixPath

import numpy as np

import bpy

from ...common.mdl_skins import fullbright_mask, image_group_material, skin_images
from ...formats.errors import FormatError
from ...formats.images.lmp import FRAME_SECONDS, MAX_SKIN_FRAMES, read_lmp
from ...formats.md5.layout import QUAKE_SKIN_EXTENSIONS, quake_skin_stem
from ...formats.message_text import quoted
from ...formats.report_lines import Message
from ..file_source import FoundFile, ModelSource, load_found_image
from ..results import ImportResult

GLOW_SUFFIXES = ("_glow", "_luma")
MAX_SKINS = 32                                               # MAX_SKINS: the loop's bound


def find_image(listing: dict[str, FoundFile], stem: str) -> FoundFile | None:
    """``stem`` with the first of the ports' extensions present in ``listing`` (lower-cased names)."""
    for ext in QUAKE_SKIN_EXTENSIONS:
        found = listing.get((stem + ext).lower())
        if found is not None:
            return found
    return None


def skin_frames(listing: dict[str, FoundFile], shader: str) -> tuple[list[list[FoundFile]], int]:
    """Per skin the frame files the ports load, and how many frames past the fourth lie beside them."""
    skins, unused = [], 0
    for s in range(MAX_SKINS):
        frames = []
        for f in range(MAX_SKIN_FRAMES):
            found = find_image(listing, quake_skin_stem(shader, s, f))
            if found is None:
                break
            frames.append(found)
        if not frames:
            break
        if len(frames) == MAX_SKIN_FRAMES:
            unused += sum(1 for f in range(MAX_SKIN_FRAMES, 100)
                          if find_image(listing, quake_skin_stem(shader, s, f)) is not None)
        skins.append(frames)
    return skins, unused


def _glow_mask(image: bpy.types.Image, glow_file: FoundFile) -> bpy.types.Image | None:
    glow = load_found_image(glow_file)
    try:
        if tuple(glow.size) != tuple(image.size):
            raise FormatError(f"{glow_file.where} is {glow.size[0]} x {glow.size[1]}, its skin "
                              f"{image.size[0]} x {image.size[1]}")
        width, height = (int(x) for x in glow.size)
        pixels = np.empty(width * height * 4, np.float32)
        glow.pixels.foreach_get(pixels)
        lit = pixels.reshape(height, width, 4)[::-1, :, :3].max(axis=-1) > 0
        return fullbright_mask(image.name, lit)
    finally:
        bpy.data.images.remove(glow)


def _frame_pair(source: ModelSource, listing: dict, file: FoundFile, palette, result: ImportResult):
    """(image, fullbright mask or None) of one skin frame file."""
    stem = PurePosixPath(file.name).stem
    glow = next((g for g in (find_image(listing, stem + suffix) for suffix in GLOW_SUFFIXES) if g is not None),
                None)
    if file.name.lower().endswith(".lmp"):
        if glow is not None:
            result.infos.append(f"{source.label}: {glow.name} beside the 8-bit {file.name} is not read by the ports "
                                "(its fullbright colours glow); not imported")
        return skin_images(stem, read_lmp(file.read()), palette)
    image = load_found_image(file)
    if glow is None:
        return image, None
    try:
        return image, _glow_mask(image, glow)
    except (FormatError, OSError) as exc:
        result.warnings.append(f"{source.label}: glow image {glow.where} not used: {exc}")
        return image, None


def shader_materials(source: ModelSource, listing: dict, shader: str, palette, result: ImportResult) -> list:
    """A material per skin of ``shader``, up to the first skin whose first frame cannot be read."""
    skins, unused = skin_frames(listing, shader)
    if not skins:
        result.warnings.append(f"{source.label}: skin {shader}_00_00 (.png, .tga, .jpg, .pcx or .lmp) not found "
                               "beside it")
    materials = []
    for s, frames in enumerate(skins):
        pairs = []
        for file in frames:
            try:
                pairs.append(_frame_pair(source, listing, file, palette, result))
            except (FormatError, OSError) as exc:
                result.warnings.append(Message(f"{source.label}: skin {file.where} could not be loaded: {exc}",
                                               f"{source.label}: {{n}} skin{{s}} could not be loaded", file.name))
                break                       # the frames after a broken one are not shown either
        if not pairs:           # the ports stop at a skin whose first frame does not load
            break
        intervals = None if len(pairs) == 1 else FRAME_SECONDS * np.arange(1, len(pairs) + 1, dtype=np.float32)
        materials.append(image_group_material(PurePosixPath(frames[0].name).stem, pairs, intervals))
        if len(pairs) == 3:
            result.warnings.append(f"{source.label}: skin {s:02d} of shader {quoted(shader)} has 3 frames: the ports "
                                   "warn and do not agree on the order they play them in")
    if unused:
        result.infos.append(f"{source.label}: {unused} skin frame(s) past _03 of shader {quoted(shader)} not imported "
                            f"(the ports load {MAX_SKIN_FRAMES} per skin)")
    return materials
