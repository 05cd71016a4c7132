"""The MD5 import dialog (Animation | Skins) and MD5's group in the Game Archive dialog (see
importers/dialogs.py)."""
from __future__ import annotations

from ..dialogs import ArchiveSection, prop_groups


def draw_import(operator, layout, context) -> None:
    prop_groups(operator, layout, "md5", (
        ("animation", "Animation", ("find_anims", "anim_mesh", "animations", "scene_timing")),
        ("skins", "Skins", ("load_skins",))))


ARCHIVE_SECTIONS = (ArchiveSection(("find_anims", "anim_mesh", "animations", "scene_timing", "load_skins")),)
