"""The MDL import dialog (Mesh | Animation | Skins) and MDL's groups in the Game Archive dialog (see
importers/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when
from ..dialogs import FRAME_OPTIONS, ArchiveSection, frame_import


def _palette(operator, layout) -> None:
    """Palette (greyed out while a Palette File is given, which wins) and Palette File; both only
    with Load Skins."""
    column = applies_when(layout, operator.load_skins)
    applies_when(column, not operator.palette_path).prop(operator, "palette")
    column.prop(operator, "palette_path")


def draw_import(operator, layout, context) -> None:
    body = frame_import(operator, layout, "mdl")
    if body:
        _palette(operator, body)


ARCHIVE_SECTIONS = (FRAME_OPTIONS, ArchiveSection((_palette,)))
