"""The files an MD2 archive member needs beside it (its row's ``member_files``): the skins it names, then
the images and other ``.md2`` models of its own folder (a Quake II player's skins, icons and weapons)."""
from __future__ import annotations

from collections.abc import Callable

from ...formats.errors import FormatError
from ...formats.md2.codec import parse_md2
from ..archives import IMAGE_SUFFIXES, folder_siblings


def member_files(name: str, data: bytes, folder_files: Callable[[], list[str]]) -> list[str]:
    """Game paths: the stored skin names (none when the file cannot be read), then the siblings."""
    try:
        named = [skin for skin in parse_md2(data).skins if skin]
    except FormatError:
        named = []
    return named + folder_siblings(folder_files(), name, IMAGE_SUFFIXES + (".md2",))
