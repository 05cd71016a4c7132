"""What the export dialogs share. A format's own dialog is ``draw_export(operator, layout, context)`` in
``exporters/<fmt>/dialog.py``, called by its operator's ``draw()`` in the file browser (File > Export)
and in Collection Exporters (Collection properties > Exporters).

Every option is drawn by name in a group (a layout panel, ``CLASSIC_MODELS_<format>_export_<group>``);
an option that does not apply to the current choices is greyed out, never hidden. The file path is
Blender's own field. In a Collection Exporter Blender chooses the objects (the collection), so
*Selected Only* and *Source Collection* are left out there.

    top           the Game Folder field, above the groups
    include       Include: Selected Only and Source Collection (file browser only), and a format's own
    frames        Frames of the formats whose frames are sampled (frame source, rate, step, names, scripts)
    transform     Transform
    frame_export  top, Include, Frames, Transform (and Enhanced Model) of the formats on FrameExportBase
"""
from __future__ import annotations

import bpy

from ..common.dialog_layout import applies_when, group, in_file_browser, start
from .sampling.action_list import draw_action_list


def top(operator, layout) -> None:
    start(layout)
    layout.prop(operator, "game_folder_path")


def _source(operator, layout) -> None:
    """Selected Only, greyed out while a Source Collection chooses the objects."""
    applies_when(layout, not operator.collection).prop(operator, "use_selection")
    layout.prop_search(operator, "collection", bpy.data, "collections")


def include(operator, layout, context, fmt: str, extra=None) -> None:
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


def frames(operator, layout, context, fmt: str) -> None:
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
        body.prop(operator, "fit_names")             # frame (and skin) names shortened to their fields
        body.prop(operator, "write_qc")              # the animations by name, for QuakeC and source ports
        body.prop(operator, "write_framegroups")


def transform(operator, layout, fmt: str, names: tuple[str, ...]) -> None:
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_transform", "Transform")
    if body:
        for name in names:
            body.prop(operator, name)


def frame_export(operator, layout, context, fmt: str, extra=None, enhanced: bool = False) -> None:
    """The groups of the formats on FrameExportBase: Include, Frames, Transform, and Enhanced Model
    (``enhanced``: the twin a source port loads instead) where asked."""
    top(operator, layout)
    include(operator, layout, context, fmt, extra)
    frames(operator, layout, context, fmt)
    transform(operator, layout, fmt, ("scale", "apply_transform"))
    body = group(layout, f"CLASSIC_MODELS_{fmt}_export_enhanced", "Enhanced Model") if enhanced else None
    if body:
        body.prop(operator, "enhanced")       # the twin in the port's layout
