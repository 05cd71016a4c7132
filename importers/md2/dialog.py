"""The MD2 import dialog (Mesh | Animation | Skins | Quake II Player) and MD2's groups in the Game
Archive dialog (see importers/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import FRAME_OPTIONS, ArchiveSection, frame_import


def draw_import(operator, layout, context) -> None:
    body = frame_import(operator, layout, "md2")
    if body:
        column = applies_when(body, operator.load_skins)
        column.prop(operator, "skin_image")
        column.prop(operator, "pcx_colours")
    body = group(layout, "CLASSIC_MODELS_md2_import_player", "Quake II Player")
    if body:
        body.prop(operator, "load_weapons")


def _pcx_colours(operator, body) -> None:
    applies_when(body, operator.load_skins).prop(operator, "pcx_colours")


ARCHIVE_SECTIONS = (FRAME_OPTIONS, ArchiveSection((_pcx_colours, "load_weapons")))
