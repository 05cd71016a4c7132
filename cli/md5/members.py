"""The files an MD5 archive member needs beside it (its row's ``member_files``): the anim or mesh of its
name, the paired classic model (``<name>.mdl`` beside it, ``../tris.md2`` above an ``md5/`` folder) and the
Quake re-release's skin pictures of its folder (every extension the ports try) and a ``.md5scale``."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from ...formats.md5.layout import QUAKE_SKIN_EXTENSIONS
from ...formats.md5.scale import SCALE_SUFFIX
from ..archives import folder_siblings


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths: ``<stem>.md5anim`` and ``<stem>.md5mesh``, ``<stem>.mdl``, the MD2 above an ``md5/``
    folder, ``<stem>.md5scale``, then the skin pictures of the member's folder."""
    path = PurePosixPath(name.replace("\\", "/"))
    names = [str(path.with_suffix(suffix)) for suffix in (".md5anim", ".md5mesh", ".mdl", SCALE_SUFFIX)]
    if path.parent.name.lower() == "md5":
        names.append(str(path.parent.parent / f"{path.stem}.md2"))
    return names + folder_siblings(folder_files(), name, QUAKE_SKIN_EXTENSIONS)
