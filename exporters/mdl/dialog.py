"""The MDL export dialog: Include | Frames | Transform | Enhanced Model | Geometry | Skins (see
exporters/dialogs.py)."""
from __future__ import annotations

from ...common.dialog_layout import applies_when, group
from ..dialogs import frame_export


def draw_export(operator, layout, context) -> None:
    frame_export(operator, layout, context, "mdl", enhanced=True)
    body = group(layout, "CLASSIC_MODELS_mdl_export_geometry", "Geometry")
    if body:
        body.prop(operator, "mdl_format")
        body.prop(operator, "target")
        body.prop(operator, "enhanced_md3")          # progs/x.md3 beside progs/x.mdl
        body.prop(operator, "split_normals")
    body = group(layout, "CLASSIC_MODELS_mdl_export_skins", "Skins")
    if body:
        body.prop(operator, "materials")
        applies_when(body, not operator.palette_path).prop(operator, "palette")   # a Palette File wins
        body.prop(operator, "palette_path")
        body.prop(operator, "skin_width_rule")
        body.prop(operator, "dither")
        body.prop(operator, "player_colours")        # may new colours use the shirt and pants ranges
