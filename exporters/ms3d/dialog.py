"""The MS3D export dialog: Include | Transform | Animation | Textures (see exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import include, top, transform


def draw_export(operator, layout, context) -> None:
    top(operator, layout)
    include(operator, layout, context, "ms3d")
    transform(operator, layout, "ms3d", ("axis_forward", "axis_up"))
    body = group(layout, "CLASSIC_MODELS_ms3d_export_animation", "Animation")
    if body:
        body.prop(operator, "animation")
        applies_when(body, operator.animation == "KEYS").prop(operator, "tolerance")
    body = group(layout, "CLASSIC_MODELS_ms3d_export_textures", "Textures")
    if body:
        body.prop(operator, "textures")
