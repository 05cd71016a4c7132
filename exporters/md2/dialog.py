"""The MD2 export dialog: Include | Frames | Transform | Enhanced Model | Geometry | Skins (see
exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import frame_export


def _player(operator, body) -> None:
    """Quake II Player, and its menu icons (greyed out for a single model)."""
    body.prop(operator, "player")
    applies_when(body, operator.player).prop(operator, "icons")


def draw_export(operator, layout, context) -> None:
    frame_export(operator, layout, context, "md2", _player, enhanced=True)
    body = group(layout, "CLASSIC_MODELS_md2_export_geometry", "Geometry")
    if body:
        body.prop(operator, "grid")
        body.prop(operator, "split_normals")
    body = group(layout, "CLASSIC_MODELS_md2_export_skins", "Skins")
    if body:
        body.prop(operator, "materials")
        body.prop(operator, "skins")
        body.prop(operator, "skin_path")
        applies_when(body, operator.skins == "PCX").prop(operator, "dither")     # only PCX is paletted
