"""The IQM export dialog: Include, Animation (the action list, the frame groups file), Transform, Geometry
(see exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import group
from ..dialogs import include, top, transform
from ..sampling.action_list import draw_action_list


def draw_export(operator, layout, context) -> None:
    top(operator, layout)
    include(operator, layout, context, "iqm")
    body = group(layout, "CLASSIC_MODELS_iqm_export_animation", "Animation")
    if body:
        draw_action_list(body, context.scene)
        body.prop(operator, "write_framegroups")
    transform(operator, layout, "iqm", ("apply_transform", "scale"))
    body = group(layout, "CLASSIC_MODELS_iqm_export_geometry", "Geometry")
    if body:
        body.prop(operator, "colours")
