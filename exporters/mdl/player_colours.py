"""Which palette ranges new skin colours may use: Quake recolours a player's shirt and pants.

Quake draws a client's entity with its skin translated: indices 16-31 (``TOP_RANGE``) become the
player's shirt colour and 96-111 (``BOTTOM_RANGE``) the pants colour (id-Software/Quake
``WinQuake/gl_rmisc.c`` ``R_TranslatePlayerSkin``, the ranges in ``WinQuake/render.h``), on
whatever alias model the player's entity shows (``cl_entities[1 + playernum].model``). On other
models those indices are ordinary colours. So the export keeps NEW colours (pixels that are not an
imported skin's unchanged pixels) out of those ranges unless the model is a player (Quake's rule:
not with Hexen II's palette):

- *Player Colours* ``ON``: a player model, new colours may use every ordinary index;
- ``OFF``: new colours never land in 16-31 or 96-111;
- ``AUTO`` (default): a player when the model is named ``player`` (the export file ``player.mdl``,
  the imported file or archive member, or the object) and its imported skin, if it has one, uses
  those ranges. The skin alone cannot tell: monsters use them too (LibreQuake's zombie skin has
  13468 pixels in 16-31).
"""
from __future__ import annotations

import re
from pathlib import PurePosixPath

import numpy as np

import bpy

from ...common.contract import ARCHIVE_MEMBER, INDICES
from ...formats.images.palette import PLAYER_RANGES

PLAYER_NAMES = ("player",)
_BLENDER_SUFFIX = re.compile(r"\.\d{3}$")


def _named_player(obj: bpy.types.Object, file_name: str) -> bool:
    names = [PurePosixPath(file_name.replace("\\", "/")).stem, _BLENDER_SUFFIX.sub("", obj.name)]
    member = obj.get(ARCHIVE_MEMBER)
    if member:
        names.append(PurePosixPath(str(member)).stem)
    return any(name.lower() in PLAYER_NAMES for name in names if name)


def _imported_use(images: list[bpy.types.Image]) -> bool | None:
    """Whether the images' imported indices use the player ranges; None when none has any."""
    found = None
    for image in images:
        stored = image.get(INDICES) if image is not None else None
        if stored is None:
            continue
        indices = np.frombuffer(bytes(stored), np.uint8)
        uses = any(bool(((indices >= lo) & (indices < hi)).any()) for lo, hi in PLAYER_RANGES)
        found = bool(found) or uses
    return found


def player_colours(obj: bpy.types.Object, images: list[bpy.types.Image], choice: str,
                   file_name: str, game: str = "QUAKE") -> tuple[bool, str]:
    """(new colours may use 16-31 and 96-111, the line the export reports about it). With Hexen II's
    palette the Quake ranges do not apply (Hexen II translates player skins through its own table,
    uHexen2's ``playerTranslation``), so every ordinary index is allowed."""
    if game == "HEXEN2":
        return True, (f"Player Colours: {obj.name} uses Hexen II's palette; Quake's shirt and pants ranges "
                      "(16-31, 96-111) do not apply")
    if choice in ("ON", "OFF"):
        player, why = choice == "ON", "the Player Colours option"
    else:
        named, used = _named_player(obj, file_name), _imported_use(images)
        player = named and used is not False
        why = ("named like Quake's player" + ("" if used is None else " and its imported skin uses them")
               if player else "not named 'player'" if not named else "its imported skin uses neither range")
    if player:
        return True, (f"Player Colours: {obj.name} is a player model ({why}): new skin colours may use indices "
                      "16-31 and 96-111, which Quake recolours to the shirt and pants colours")
    return False, (f"Player Colours: {obj.name} is not a player model ({why}): new skin colours are kept out "
                   "of indices 16-31 and 96-111 (Quake recolours them on players); unchanged pixels keep theirs")
