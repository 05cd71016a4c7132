"""The MD3 export dialog: Include | Frames | Transform | Geometry | Shaders (see exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import frame_export


def _player(operator, body) -> None:
    body.prop(operator, "player")
    applies_when(body, operator.player).prop(operator, "render_icons")


def draw_export(operator, layout, context) -> None:
    frame_export(operator, layout, context, "md3", _player)
    body = group(layout, "CLASSIC_MODELS_md3_export_geometry", "Geometry")
    if body:
        body.prop(operator, "split_normals")
        body.prop(operator, "lods")
    body = group(layout, "CLASSIC_MODELS_md3_export_shaders", "Shaders")
    if body:
        body.prop(operator, "skin_path")
        body.prop(operator, "textures")
