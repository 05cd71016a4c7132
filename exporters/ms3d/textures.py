"""MS3D textures on export: each material's image beside the model, under the bare name the file stores.

*Textures* 'COPY': an image read from a file and not changed since is copied byte for byte; an
image that exists only in Blender (made, painted or decoded there) is written as PNG (or in the
format its stored name asks for: PNG, TGA, PCX). An existing file at the target is replaced only
by an image made or edited in Blender. 'NAMES' writes the names only.
"""
from __future__ import annotations

import os
from pathlib import Path

from ...common.ms3d.data import material_values
from ...common.skin_images import unchanged_member_bytes, unchanged_source_file
from ...formats.errors import FormatError
from ...formats.message_text import quoted
from ...formats.ms3d.text import decode_text
from ..export_error import ExportError
from ..image_files import SkinFile, encode_skin, image_rgba

ENCODERS = {".png": "PNG", ".tga": "TGA", ".pcx": "PCX"}


def _stored_name(raw: bytes) -> str:
    """The file name a stored path field names, read as the import reads it with its default *Auto*
    name encoding (:func:`...formats.ms3d.text.decode_text`: UTF-8 when valid, else cp1252), so the
    file written is the one a re-import finds. New names are stored in cp1252, MilkShape's Windows
    code page, when they fit it (else UTF-8; :func:`...formats.ms3d.text.encode_text`)."""
    return decode_text(raw).replace("\\", "/").split("/")[-1]


def plan_texture_files(model_path: Path, materials: list, exported: list) -> tuple[list[SkinFile], list[str]]:
    """The texture files to write beside ``model_path`` for Blender ``materials`` and their
    exported records; nothing is written here."""
    folder = Path(os.path.abspath(model_path)).parent
    files, warnings, planned = [], [], set()
    for material, record in zip(materials, exported):
        values = material_values(material)
        for key, raw in (("texture", record.texture_raw), ("alphamap", record.alphamap_raw)):
            image, name = values[key], _stored_name(raw)
            if image is None or not name or name in (".", ".."):
                continue
            target = folder / name
            if target in planned:
                continue
            planned.add(target)
            if not Path(os.path.realpath(target)).is_relative_to(os.path.realpath(folder)):
                warnings.append(f"{target} leads outside the export folder; {key} of {quoted(material.name)} not written")
                continue
            source = unchanged_source_file(image)
            member = unchanged_member_bytes(image, target.suffix) if source is None else None
            if source is not None and source.suffix.lower() == target.suffix.lower():
                if target.exists() and os.path.samefile(source, target):
                    continue
                data, note = source.read_bytes(), f"copied from {source}"
            elif member is not None:
                data, note = member[0], f"copied from {member[1]}"
            elif target.suffix.lower() in ENCODERS and image.size[0] > 0 and image.size[1] > 0:
                mode = ENCODERS[target.suffix.lower()]
                try:
                    data = encode_skin(image_rgba(image), mode, False)
                except FormatError as exc:
                    raise ExportError(f"{key} of {quoted(material.name)} (image {quoted(image.name)}): {exc}") from exc
                note = f"{mode} from image {quoted(image.name)}"
            else:
                warnings.append(f"{key} {quoted(name)} of {quoted(material.name)}: cannot write a {target.suffix or 'nameless'} "
                                "file from this image; not written")
                continue
            if target.exists() and (source is not None or member is not None):
                if target.read_bytes() != data:
                    warnings.append(f"{target} exists and differs; kept it, since image {quoted(image.name)} was not "
                                    "changed in Blender")
                continue
            files.append(SkinFile(target, data, note))
    return files, warnings

