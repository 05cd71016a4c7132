"""The MS3D import dialog (Transform | Animation | Materials | Names) and MS3D's group in the Game
Archive dialog (see importers/dialogs.py)."""
from __future__ import annotations

from ..dialogs import ArchiveSection, prop_groups


def draw_import(operator, layout, context) -> None:
    prop_groups(operator, layout, "ms3d", (
        ("transform", "Transform", ("axis_forward", "axis_up")), ("animation", "Animation", ("scene_timing",)),
        ("materials", "Materials", ("load_images",)), ("names", "Names", ("name_encoding",))))


ARCHIVE_SECTIONS = (ArchiveSection(("axis_forward", "axis_up", "scene_timing", "load_images", "name_encoding")),)
