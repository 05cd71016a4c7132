"""The files an MD5 archive member needs beside it (its row's ``member_files``): the anim or mesh of its
name, the paired classic model (``<name>.mdl`` beside it, ``../tris.md2`` above an ``md5/`` folder) and the
Quake re-release's ``.lmp`` skins of its folder."""
from __future__ import annotations

from pathlib import PurePosixPath
from typing import Callable

from ..archives import folder_siblings


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths: ``<stem>.md5anim`` and ``<stem>.md5mesh``, ``<stem>.mdl``, the MD2 above an ``md5/``
    folder, then the ``.lmp`` pictures of the member's folder."""
    path = PurePosixPath(name.replace("\\", "/"))
    names = [str(path.with_suffix(suffix)) for suffix in (".md5anim", ".md5mesh", ".mdl")]
    if path.parent.name.lower() == "md5":
        names.append(str(path.parent.parent / f"{path.stem}.md2"))
    return names + folder_siblings(folder_files(), name, (".lmp",))
