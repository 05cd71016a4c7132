"""The MD5 export dialog: the frame formats' Include, Frames (without the classic formats' frame names
and scripts), Transform, then Geometry (see exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import include, top, transform
from ..sampling.action_list import draw_action_list


def draw_export(operator, layout, context) -> None:
    top(operator, layout)
    include(operator, layout, context, "md5")
    body = group(layout, "CLASSIC_MODELS_md5_export_frames", "Frames")
    if body:
        body.prop(operator, "frame_source")
        body.prop(operator, "frame_rate")
        applies_when(body, operator.frame_source == "ACTIONS").prop(operator, "step")
        applies_when(body, operator.frame_source == "TIMELINE").prop(operator, "keep_still_frames")
        if operator.frame_source == "ACTIONS":
            draw_action_list(body, context.scene)
    transform(operator, layout, "md5", ("scale", "apply_transform"))
    body = group(layout, "CLASSIC_MODELS_md5_export_geometry", "Geometry")
    if body:
        body.prop(operator, "per_material")
