"""The MD3 import dialog (Mesh | Animation | Skins | Quake III Player) and MD3's group in the Game
Archive dialog (see importers/dialogs.py)."""
from __future__ import annotations

from ..dialogs import ArchiveSection, prop_groups


def draw_import(operator, layout, context) -> None:
    prop_groups(operator, layout, "md3", (
        ("mesh", "Mesh", ("scale", "md3_file_normals", "merge_surfaces", "load_lods")),
        ("animation", "Animation", ("animations", "scene_timing")),
        ("skins", "Skins", ("load_skins",)), ("player", "Quake III Player", ("assemble_player",))))


ARCHIVE_SECTIONS = (ArchiveSection(("md3_file_normals", "merge_surfaces", "assemble_player", "load_lods",
                                    "animations", "scale", "load_skins", "scene_timing")),)
