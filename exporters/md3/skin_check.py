"""The player export's word on the ``.skin`` files it writes back: a shader a skin names that the game will
not find (no shader script defines it, no image under the names ``R_LoadImage`` tries) is drawn with the
game's default shader (:func:`...formats.md3.player.skin_image_messages`). Looked up as the importer looks
images up (:func:`...formats.md3.shader_lookup.search_folders`): in the game folder the export goes into and
in the one the player was imported from."""
from __future__ import annotations

from pathlib import Path

import bpy

from ...common.contract import ARCHIVE_PATH, SOURCE_FILE
from ...formats.errors import FormatError
from ...formats.md3.player import skin_image_messages
from ...formats.md3.shader_lookup import find_in_folders, folder_script_names, script_key, search_folders
from ...formats.md3.skin_file import parse_skin


def source_place(root: bpy.types.Object) -> Path | None:
    """The loose file or the archive ``root`` was imported from."""
    for key in (SOURCE_FILE, ARCHIVE_PATH):
        value = root.get(key)
        if isinstance(value, str) and value:
            return Path(value)
    return None


def skin_shader_warnings(skins: dict[str, bytes], places: list[Path], prefix: str) -> list[str]:
    """A warning per shader of ``skins`` (file name -> bytes) found in none of the game folders of ``places``
    (one kind of problem: the report folds them into one line)."""
    parsed = {}
    for name, data in skins.items():
        try:
            parsed[name] = parse_skin(data)
        except FormatError:
            continue
    folders = [folder for place in places for folder in search_folders(place)]
    scripts: set[str] | None = None

    def found(shader: str) -> bool:
        nonlocal scripts
        if find_in_folders(folders, shader) is not None:
            return True
        if scripts is None:                     # read only when an image is missing
            scripts = folder_script_names(folders)
        return script_key(shader) in scripts

    try:
        return skin_image_messages(parsed, found, prefix)
    finally:
        for folder in folders:
            folder.close()
