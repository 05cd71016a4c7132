"""The files an MD3 archive member needs beside it (its row's ``member_files``): every image name Quake
III tries for its surfaces' shaders (:mod:`...formats.md3.shader_lookup`), then the images and ``.skin``
files of its own folder (a player's skin sets and the images they name) and its ``animation.cfg``."""
from __future__ import annotations

from collections.abc import Callable

from ...formats.errors import FormatError
from ...formats.md3.codec import read_md3
from ...formats.md3.shader_lookup import image_candidates, unsafe_shader
from ..archives import IMAGE_SUFFIXES, folder_siblings


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths: the image names of each shader (none when the file cannot be read), then the images
    and ``.skin`` files of the member's folder."""
    try:
        shaders = sorted({shader.name for surface in read_md3(data).surfaces for shader in surface.shaders})
    except FormatError:
        shaders = []
    names = [candidate for shader in shaders if not unsafe_shader(shader) for candidate in image_candidates(shader)]
    files = folder_files()
    cfg = [f for f in folder_siblings(files, name, (".cfg",)) if f.replace("\\", "/").rpartition("/")[2].lower()
           == "animation.cfg"]                    # a player's part: the animations info lists for it
    return names + folder_siblings(files, name, IMAGE_SUFFIXES + (".skin",)) + cfg
