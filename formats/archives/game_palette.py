"""The palette an MDL's skin indices mean, from where the model comes from.

A paletted skin is only right in its game's palette, and a model file does not say which game it is
for (except RAPO, Hexen II's mission pack flavour). The game folder does: the engines draw with the
``gfx/palette.lmp`` their search path finds (Quake ``WinQuake/host.c`` ``Host_Init``:
``host_basepal = COM_LoadHunkFile ("gfx/palette.lmp")``; uHexen2 ``engine/hexen2/host.c`` ``Host_Init``
the same through ``FS_LoadHunkFile``), so:

1. ``gfx/palette.lmp`` found in the game folder (its archives and loose files, a mod's then its base's,
   :class:`.game_folder.GameFolder`), else in the model's own archive, is the final word;
2. else Hexen II's built-in palette for a RAPO model or a Hexen II game folder (``data1``, ``portals``,
   ``hw``, or a mod folder beside ``data1``);
3. else Quake's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import FormatError
from ..images.palette import game_palette, load_palette_lmp
from .archive import Archive, ArchiveError
from .game_folder import GameFolder

PALETTE_LUMP = "gfx/palette.lmp"
BUILT_IN_NAMES = {"QUAKE": "Quake's", "HEXEN2": "Hexen II's", "FILE": "the game folder's own"}


@dataclass
class PaletteChoice:
    palette: np.ndarray     # (256, 3) uint8
    name: str               # for reports: "Hexen II's (gfx/palette.lmp in .../pak0.pak)"
    game: str               # "QUAKE", "HEXEN2" or "FILE" (a lump that is neither built-in palette)


def choose_palette(game: GameFolder | None, archive: Archive | None, rapo: bool) -> PaletteChoice:
    """The palette for a model from ``game`` (its game folder, or None) and ``archive`` (the archive it
    is a member of, or None); ``rapo``: the model is RAPO. See the module for the rules."""
    lump = _palette_lump(game, archive)
    if lump is not None:
        where, data = lump
        try:
            palette = load_palette_lmp(data)
        except FormatError:
            palette = None
        if palette is not None:
            kind = next((k for k in ("QUAKE", "HEXEN2") if np.array_equal(palette, game_palette(k))), "FILE")
            return PaletteChoice(palette, f"{BUILT_IN_NAMES[kind]} palette ({PALETTE_LUMP} in {where})", kind)
    if rapo:
        return PaletteChoice(game_palette("HEXEN2"), "Hexen II's palette (built in: a RAPO model)", "HEXEN2")
    if game is not None and game.game == "Hexen II":
        return PaletteChoice(game_palette("HEXEN2"), f"Hexen II's palette (built in: {game.root.name} is a "
                                                     "Hexen II game folder)", "HEXEN2")
    return PaletteChoice(game_palette("QUAKE"), "Quake's palette (built in)", "QUAKE")


def _palette_lump(game: GameFolder | None, archive: Archive | None) -> tuple[str, bytes] | None:
    try:
        if game is not None:
            found = game.find(PALETTE_LUMP)
            if found is not None:
                where = str(found.archive) if found.archive is not None else str(found.root or game.root)
                return where, game.read(found.name)
        member = archive.find(PALETTE_LUMP) if archive is not None else None
        if member is not None and archive is not None:
            return str(archive.path), archive.read(member.name)
    except (ArchiveError, OSError):
        return None
    return None


def loose_palette(path, rapo: bool) -> PaletteChoice:
    """:func:`choose_palette` for a loose model file at ``path`` (its game folder, if any)."""
    try:
        game = GameFolder.around(path)
    except (FormatError, OSError):
        game = None
    if game is None:
        return choose_palette(None, None, rapo)
    with game:
        return choose_palette(game, None, rapo)
