"""Sidebar panel (View3D > Sidebar > Model): what an imported object's format says of it, its animations,
jump and preview, and its frame table.

A format's own part is in ``ui/<fmt>/sidebar.py``, named by its row's ``sidebar``; what such a module may
hold (each optional):

    draw_sidebar(layout, settings, obj)  the format's boxes, below the source, archive and skin size
    SHOWS_ANIMATIONS                     False: no animation list nor frame table follows (default True)
    FRAMES_HEADER                        the frame table's title (default "Frames (name, shape key)")
    draw_frame(row, item)                a frame table row's columns after the name (default: its shape key)
    CLASSES                              panels and operators of the format's, registered with this panel
"""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty

from ..common.actions import activate_animation
from ..common.contract import ARCHIVE_MEMBER, ARCHIVE_PATH
from ..formats import table


def _sidebar(source_format: str):
    """The sidebar module of the row of ``source_format`` (``MDL``), or None."""
    try:
        name = table.row(source_format).sidebar if source_format else ""
    except KeyError:               # an object imported by a format no longer in the table
        return None
    return table.resolve(name) if name else None


def _active_animation(context: bpy.types.Context):
    obj = context.object
    if obj is None or not obj.classic_model.animations:
        return None
    settings = obj.classic_model
    index = min(settings.active_animation, len(settings.animations) - 1)
    return settings.animations[index]


def _draw_archive(layout, obj) -> None:
    """The game archive and member the object (or the model it belongs to) was read from."""
    while obj is not None and ARCHIVE_MEMBER not in obj:
        obj = obj.parent
    if obj is not None:
        layout.label(text=f"Archive: {Path(str(obj.get(ARCHIVE_PATH, ''))).name}", icon="PACKAGE")
        layout.label(text=f"Member: {obj[ARCHIVE_MEMBER]}", icon="FILE")


class CLASSIC_MODELS_UL_animations(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=item.name, icon="ACTION")
        row.label(text=f"{item.frame_start}-{item.frame_end}")


class CLASSIC_MODELS_UL_frames(bpy.types.UIList):
    """The file's frame table: the name each frame is written with (editable), then its shape key (or
    what the format's ``draw_frame`` shows)."""

    def draw_item(self, context, layout, data, item, icon, active_data, active_propname, index=0):
        row = layout.row(align=True)
        row.label(text=f"{index}")
        row.prop(item, "name", text="", emboss=False)
        draw_frame = getattr(_sidebar(data.source_format), "draw_frame", None)
        if draw_frame is not None:
            draw_frame(row, item)
        elif item.shape_key:        # frames kept only by name (beside a skeletal model) have no shape key
            row.label(text=item.shape_key, icon="SHAPEKEY_DATA")


class CLASSIC_MODELS_OT_play_animation(bpy.types.Operator):
    """Jump to the selected animation, or set the preview range to it"""
    bl_idname = "classic_models.play_animation"
    bl_label = "Go to Animation"
    bl_options = {"REGISTER", "UNDO"}

    set_preview_range: BoolProperty(name="Set Preview Range", default=False,
                                    description="Also set the preview range to the animation")

    @classmethod
    def poll(cls, context):
        return _active_animation(context) is not None

    def execute(self, context):
        anim = _active_animation(context)
        scene = context.scene
        activate_animation(scene, context.object, context.object.classic_model.active_animation)
        scene.frame_set(anim.frame_start)
        if self.set_preview_range:
            scene.use_preview_range = True
            scene.frame_preview_start, scene.frame_preview_end = anim.frame_start, anim.frame_end
        return {"FINISHED"}


class CLASSIC_MODELS_OT_clear_preview(bpy.types.Operator):
    """Play the whole file again"""
    bl_idname = "classic_models.clear_preview_range"
    bl_label = "Whole Timeline"
    bl_options = {"REGISTER", "UNDO"}

    def execute(self, context):
        context.scene.use_preview_range = False
        return {"FINISHED"}


class VIEW3D_PT_classic_model(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Model"
    bl_label = "Classic Model"

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.classic_model.source_format != ""

    def draw(self, context):
        layout = self.layout
        settings = context.object.classic_model
        col = layout.column(align=True)
        col.label(text=f"Imported from {settings.source_format}")
        _draw_archive(col, context.object)
        if settings.skin_width:
            col.label(text=f"Skin size {settings.skin_width} x {settings.skin_height}")
        sidebar = _sidebar(settings.source_format)
        if hasattr(sidebar, "draw_sidebar"):
            sidebar.draw_sidebar(layout, settings, context.object)
        if not getattr(sidebar, "SHOWS_ANIMATIONS", True):
            return
        layout.template_list("CLASSIC_MODELS_UL_animations", "", settings, "animations",
                             settings, "active_animation", rows=6)
        row = layout.row(align=True)
        row.operator(CLASSIC_MODELS_OT_play_animation.bl_idname, text="Go To", icon="PLAY").set_preview_range = False
        row.operator(CLASSIC_MODELS_OT_play_animation.bl_idname, text="Preview", icon="PREVIEW_RANGE").set_preview_range = True
        row.operator(CLASSIC_MODELS_OT_clear_preview.bl_idname, text="", icon="X")
        if len(settings.frames):
            box = layout.box()
            box.label(text=getattr(sidebar, "FRAMES_HEADER", "Frames (name, shape key)"), icon="KEYFRAME")
            box.template_list("CLASSIC_MODELS_UL_frames", "", settings, "frames", settings, "active_frame", rows=4)


CLASSES = (CLASSIC_MODELS_UL_animations, CLASSIC_MODELS_UL_frames, CLASSIC_MODELS_OT_play_animation,
           CLASSIC_MODELS_OT_clear_preview, VIEW3D_PT_classic_model)
_registered: tuple[type, ...] = ()      # what register() registered: unregister() removes that


def _classes() -> tuple[type, ...]:
    """This module's classes, then each row's sidebar ``CLASSES`` (panels after the Classic Model panel)."""
    formats = (table.resolve(row.sidebar) for row in table.FORMATS if row.sidebar)
    return (*CLASSES, *(cls for module in formats for cls in getattr(module, "CLASSES", ())))


def register() -> None:
    global _registered
    _registered = _classes()
    for cls in _registered:
        bpy.utils.register_class(cls)


def unregister() -> None:
    for cls in reversed(_registered):
        bpy.utils.unregister_class(cls)
