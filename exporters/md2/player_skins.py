"""A Quake II player's skins in its own folder: a real player saved as a new one.

Quake II loads a player's skins from its folder, ``players/<model>/<skin>.pcx`` (the MD2's stored
names are not used for players), so a player exported to ``players/zarlag2/`` takes every skin
with it: each skin name that points elsewhere (``models/maxx/skin.pcx``, ``players\\zarlag\\Weapon.pcx``)
becomes ``players/zarlag2/<file>.pcx``, ``<file>`` the name of the file the skin was imported from
(``zarlag``), else the old name's; a player exported back into the folder its skins came from keeps
its names (an untouched one is written byte for byte). Images the import found beside the body for no stored name (other
skins of the player, materials flagged ``md2_skin_found``) are carried over as skin files too.
An unchanged image is then copied from where the import read it (:mod:`.skins`).
"""
from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

import bpy

from ...common.contract import SOURCE_MEMBER, SOURCE_PATH
from ...common.disk_names import stored_path
from ...common.md2.contract import MD2_SKIN_FOUND
from ...common.skin_images import material_image
from ...formats.md2.codec import SKIN_NAME_SIZE
from ...formats.message_text import quoted
from ..export_error import ExportError
from .build import BuildResult
from .skins import new_skin_name


def _folder_of(name: str) -> str:
    return "/".join(p for p in name.replace("\\", "/").split("/")[:-1] if p not in ("", "."))


def source_stem(image, fallback: str) -> str:
    """The name (without extension) of the file ``image`` was imported from, else ``fallback``'s."""
    source = ""
    if isinstance(image, bpy.types.Image):
        source = stored_path(image.get(SOURCE_MEMBER, "") or image.get(SOURCE_PATH))
    return PurePosixPath((source or fallback).replace("\\", "/")).stem


def _at_home(image, model_dir: Path, folder: str) -> bool:
    """True when the skin's image was imported from the folder the player is exported to (a player
    written back where it came from keeps its stored names, byte for byte)."""
    if not isinstance(image, bpy.types.Image):
        return False
    member = str(image.get(SOURCE_MEMBER, ""))
    if member:
        return _folder_of(member).lower() == folder.lower()
    source = stored_path(image.get(SOURCE_PATH))
    return bool(source) and os.path.realpath(Path(source).parent) == os.path.realpath(model_dir)


def into_player_folder(results: dict[str, BuildResult], folder: str, model_dir: Path) -> list[str]:
    """Rename every skin of every built model that lies outside ``folder`` (the player's game path,
    ``players/zarlag2``) into it, unless its image came from the export folder ``model_dir`` itself;
    report lines. Nothing changes without a folder."""
    if not folder:
        return []
    notes = []
    for file_name, result in results.items():
        model = result.model
        renamed = []
        for name in model.skins:
            if (_folder_of(name).lower() == folder.lower()
                    or _at_home(result.skin_images.get(name), model_dir, folder)):
                renamed.append(name)
                continue
            new = new_skin_name(folder, source_stem(result.skin_images.get(name), name))
            if len(new.encode("latin-1", "replace")) >= SKIN_NAME_SIZE:
                raise ExportError(f"{file_name}: skin name {quoted(new)} would be over {SKIN_NAME_SIZE - 1} characters; "
                                  "choose a shorter player folder or skin file name")
            notes.append(f"{file_name}: skin {quoted(name)} is now {quoted(new)}, in the player's folder")
            if name in result.skin_images:
                result.skin_images.setdefault(new, result.skin_images[name])
            renamed.append(new)
        if renamed != list(model.skins):
            model.skins, model.skin_name_raw = renamed, None
    return notes


def carried_skins(objects: list[bpy.types.Object], folder: str, taken: list[str]) -> dict[str, bpy.types.Image]:
    """The player's other skins: images the import found beside the body for no stored name
    (name in the player's folder -> image), leaving out names already in ``taken``."""
    carried: dict[str, bpy.types.Image] = {}
    lowered = {t.lower() for t in taken}
    for obj in objects:
        for slot in obj.material_slots:
            image = material_image(slot.material)
            if slot.material is None or not slot.material.get(MD2_SKIN_FOUND) or image is None:
                continue
            name = new_skin_name(folder, source_stem(image, image.name))
            if name.lower() not in lowered:
                carried[name] = image
                lowered.add(name.lower())
    return carried
