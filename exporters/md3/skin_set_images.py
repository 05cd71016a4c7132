"""The head's images in each of its skin sets, for the player menu's icon of that set (``icon_<set>.tga``
shows the head wearing ``head_<set>.skin``).

The sets are the ``.skin`` files an MD3 import kept on the head's root (``MD3_SKINS``, common/md3/contract.py
``# MD3``); a set's shader for each surface (ioquake3 ``R_RegisterSkin``: surface names lower-cased,
``CG_RegisterClientSkin``) is looked up as the renderer does (:mod:`...formats.md3.shader_lookup`:
``R_FindImageFile``'s extensions in order) in the game folder the head was imported from (its archive's
folder, or the folder a loose file sits in), and loaded into a Blender image of its own for the render
(removed with it). A set whose images are not all found there is drawn as the materials show the head.
"""
from __future__ import annotations

import json
import tempfile
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import bpy

from ...common.contract import ARCHIVE_PATH, SOURCE_FILE
from ...common.md3.contract import MD3_SKINS
from ...formats.archives.archive import ArchiveError
from ...formats.archives.game_folder import GameFolder
from ...formats.errors import FormatError
from ...formats.md3.shader_lookup import find_in_folders, search_folders
from ...formats.md3.skin_file import parse_skin
from .objects import surface_name


def _folders(root: bpy.types.Object) -> list[GameFolder]:
    if root.get(ARCHIVE_PATH):
        game = GameFolder.around(Path(str(root[ARCHIVE_PATH])))
        return [game] if game is not None else []
    if root.get(SOURCE_FILE):
        return search_folders(Path(str(root[SOURCE_FILE])))
    return []


@contextmanager
def skin_set_images(root: bpy.types.Object, meshes: list[bpy.types.Object]):
    """Yields a function: set name -> {mesh name: Blender image} for every mesh of the head in that set, or
    None where a set's image is not found; every image it loaded is removed on leaving."""
    try:
        sets = {name: parse_skin(bytes.fromhex(entry["raw"]))
                for name, entry in json.loads(str(root.get(MD3_SKINS) or "{}")).items()}
    except (ValueError, KeyError, TypeError, AttributeError, FormatError):
        sets = {}
    folders = _folders(root) if sets else []
    loaded: dict[str, bpy.types.Image | None] = {}
    with tempfile.TemporaryDirectory(prefix="classic_icon_") as scratch:
        def image(shader: str) -> bpy.types.Image | None:
            if shader not in loaded:
                loaded[shader] = None
                found = find_in_folders(folders, shader)
                if found is not None:
                    folder, file = found
                    try:
                        target = Path(scratch) / f"{len(loaded)}{PurePosixPath(file.name).suffix}"
                        target.write_bytes(folder.read(file.name))
                        loaded[shader] = bpy.data.images.load(str(target), check_existing=False)
                    except (ArchiveError, OSError, RuntimeError):
                        loaded[shader] = None
            return loaded[shader]

        def of_set(name: str) -> dict[str, bpy.types.Image] | None:
            skin = sets.get(name)
            if skin is None:
                return None
            out = {}
            for mesh in meshes:
                shader = skin.shader_for(surface_name(mesh)[0])
                found = image(shader) if shader else None
                if found is None:
                    return None
                out[mesh.name] = found
            return out

        try:
            yield of_set
        finally:
            for each in loaded.values():
                if each is not None:
                    bpy.data.images.remove(each)
            for folder in folders:
                folder.close()
