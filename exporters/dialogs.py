"""What the export dialogs show: one function per operator, called by its ``draw()`` in the file
browser (File > Export) and in Collection Exporters (Collection properties > Exporters).

Every option is drawn by name in a group (a layout panel, ``CLASSIC_MODELS_<format>_export_<group>``);
an option that does not apply to the current choices is greyed out, never hidden. The file path is
Blender's own field. In a Collection Exporter Blender chooses the objects (the collection), so
*Selected Only* and *Source Collection* are left out there.

    draw_md2_export   Include | Frames | Transform | Enhanced Model | Geometry | Skins
    draw_mdl_export   Include | Frames | Transform | Enhanced Model | Geometry | Skins
    draw_md3_export   Include | Frames | Transform | Geometry | Shaders
    draw_ms3d_export  Include | Transform | Animation | Textures
    draw_md5_export   Include | Frames | Transform | Geometry
"""
from __future__ import annotations

import bpy

from ..common.dialog_layout import applies_when, group, in_file_browser, start
from .sampling.action_list import draw_action_list


def _top(operator, layout) -> None:
    start(layout)
    layout.prop(operator, "game_folder_path")


def _source(operator, layout) -> None:
    """Selected Only, greyed out while a Source Collection chooses the objects."""
    applies_when(layout, not operator.collection).prop(operator, "use_selection")
    layout.prop_search(operator, "collection", bpy.data, "collections")


def _include(operator, layout, context, fmt: str, extra=None) -> None:
    """Selected Only and Source Collection (file browser only), then ``extra(operator, body)``."""
    browser = in_file_browser(context)
    if not browser and extra is None:
        return
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_include", "Include")
    if body:
        if browser:
            _source(operator, body)
        if extra is not None:
            extra(operator, body)


def _player(operator, body) -> None:
    """Quake II Player, and its menu icons (greyed out for a single model)."""
    body.prop(operator, "player")
    applies_when(body, operator.player).prop(operator, "icons")


def _frames(operator, layout, context, fmt: str) -> None:
    """Frames, Frame Rate (not for Shape Keys), Step and the action list (for Actions), and the
    QuakeC ``$frame`` and ``.framegroups`` files written beside the model."""
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_frames", "Frames")
    if body:
        body.prop(operator, "frame_source")
        applies_when(body, operator.frame_source != "SHAPE_KEYS").prop(operator, "frame_rate")
        applies_when(body, operator.frame_source == "ACTIONS").prop(operator, "step")
        applies_when(body, operator.frame_source == "TIMELINE").prop(operator, "keep_still_frames")
        if operator.frame_source == "ACTIONS":
            draw_action_list(body, context.scene)
        body.prop(operator, "fit_names")             # frame (and MD2 skin) names shortened to their fields
        body.prop(operator, "write_qc")              # the animations by name, for QuakeC and source ports
        body.prop(operator, "write_framegroups")


def _transform(operator, layout, fmt: str, names: tuple[str, ...]) -> None:
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_transform", "Transform")
    if body:
        for name in names:
            body.prop(operator, name)


def _frame_export(operator, layout, context, fmt: str, include=None, enhanced: bool = False) -> None:
    """The groups MD2 and MDL share (FrameExportBase's options): Include, Frames, Transform."""
    _top(operator, layout)
    _include(operator, layout, context, fmt, include)
    _frames(operator, layout, context, fmt)
    _transform(operator, layout, fmt, ("scale", "apply_transform"))
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_enhanced", "Enhanced Model") if enhanced else None
    if body:
        body.prop(operator, "enhanced")       # the MD5 twin in the port's layout


def draw_md2_export(operator, layout, context) -> None:
    _frame_export(operator, layout, context, "md2", _player, enhanced=True)
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


def draw_mdl_export(operator, layout, context) -> None:
    _frame_export(operator, layout, context, "mdl", enhanced=True)
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


def _md3_player(operator, body) -> None:
    body.prop(operator, "player")
    applies_when(body, operator.player).prop(operator, "render_icons")


def draw_md3_export(operator, layout, context) -> None:
    _frame_export(operator, layout, context, "md3", _md3_player)
    body = group(layout, "CLASSIC_MODELS_md3_export_geometry", "Geometry")
    if body:
        body.prop(operator, "split_normals")
        body.prop(operator, "lods")
    body = group(layout, "CLASSIC_MODELS_md3_export_shaders", "Shaders")
    if body:
        body.prop(operator, "skin_path")
        body.prop(operator, "textures")


def draw_ms3d_export(operator, layout, context) -> None:
    _top(operator, layout)
    _include(operator, layout, context, "ms3d")
    _transform(operator, layout, "ms3d", ("axis_forward", "axis_up"))
    body = group(layout, "CLASSIC_MODELS_ms3d_export_animation", "Animation")
    if body:
        body.prop(operator, "animation")
        applies_when(body, operator.animation == "KEYS").prop(operator, "tolerance")
    body = group(layout, "CLASSIC_MODELS_ms3d_export_textures", "Textures")
    if body:
        body.prop(operator, "textures")


def draw_md5_export(operator, layout, context) -> None:
    """MD5: the frame formats' Include, Frames (without the classic formats' frame names and scripts),
    Transform, then Geometry."""
    _top(operator, layout)
    _include(operator, layout, context, "md5")
    body = group(layout, "CLASSIC_MODELS_md5_export_frames", "Frames")
    if body:
        body.prop(operator, "frame_source")
        body.prop(operator, "frame_rate")
        applies_when(body, operator.frame_source == "ACTIONS").prop(operator, "step")
        applies_when(body, operator.frame_source == "TIMELINE").prop(operator, "keep_still_frames")
        if operator.frame_source == "ACTIONS":
            draw_action_list(body, context.scene)
    _transform(operator, layout, "md5", ("scale", "apply_transform"))
    body = group(layout, "CLASSIC_MODELS_md5_export_geometry", "Geometry")
    if body:
        body.prop(operator, "per_material")
