"""The files an MS3D archive member needs beside it (its row's ``member_files``): the textures and alpha
maps its materials name (beside the model, then as game paths), then the images of its own folder."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from ...formats.errors import FormatError
from ...formats.ms3d.codec import parse_ms3d
from ..archives import IMAGE_SUFFIXES, folder_siblings


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths: each stored texture's base name in the member's folder and the stored path itself
    (none when the file cannot be read), then the images of the member's folder."""
    folder = PurePosixPath(name.replace("\\", "/")).parent
    names = []
    try:
        materials = parse_ms3d(data).materials
    except FormatError:
        materials = []
    for material in materials:
        for stored in (material.texture, material.alphamap):
            stored = stored.replace("\\", "/").strip()
            if stored:
                base = stored.rsplit("/", 1)[-1]
                names += [str(folder / base), stored.lstrip("./")]
    return names + folder_siblings(folder_files(), name, IMAGE_SUFFIXES)
