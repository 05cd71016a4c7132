"""The IQM import dialog (Mesh | Animation) and IQM's group in the Game Archive dialog (see
importers/dialogs.py)."""
from __future__ import annotations

from ..dialogs import ArchiveSection, prop_groups


def draw_import(operator, layout, context) -> None:
    prop_groups(operator, layout, "iqm", (("mesh", "Mesh", ("merge_meshes",)),
                                          ("animation", "Animation", ("iqm_framegroups", "scene_timing"))))


ARCHIVE_SECTIONS = (ArchiveSection(("merge_meshes", "iqm_framegroups", "scene_timing")),)
