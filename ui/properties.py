"""Per-object settings kept from an import (``Object.classic_model``): what every format has here, and the
fields of each format's own, given by the ``object_fields()`` of its row's sidebar module
(``ui/<fmt>/sidebar.py``: ``{name: property}``) when the extension registers."""
from __future__ import annotations

import bpy
from bpy.props import (
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from ..common.actions import activate_animation
from ..formats import table


def _animation_chosen(settings, context) -> None:
    """Picking an animation in the sidebar list switches to its action (imports with one action each)."""
    if context is not None and getattr(context, "scene", None) is not None:
        activate_animation(context.scene, settings.id_data, settings.active_animation)


class ClassicModelAnimation(bpy.types.PropertyGroup):
    """A named run of scene frames (``stand`` = frames 1-40), and its action when the import made one
    action per animation."""
    frame_start: IntProperty(name="Start")
    frame_end: IntProperty(name="End")
    action: PointerProperty(type=bpy.types.Action, name="Action",
                            description="The shape-key action that plays this animation")


class ClassicModelFrame(bpy.types.PropertyGroup):
    """One frame of the file's frame table (``name`` is the frame name the export writes)."""
    name: StringProperty(name="Frame Name", description="The name the export writes for this frame; a new or "
                                                        "changed name has at most 15 characters")
    file_name: StringProperty(name="File Name", description="The frame name as the file stored it")
    shape_key: StringProperty(name="Shape Key", description="The shape key that holds this frame")
    group: IntProperty(name="Group", default=-1, min=-1,
                       description="MDL: the frame group this pose belongs to (-1: a single frame); "
                                   "consecutive poses with the same number form one group")
    interval: FloatProperty(name="Interval", min=0.0, description="MDL: the time this pose of its group ends, "
                                                                   "in seconds from the group's start")


class ClassicModelSettings(bpy.types.PropertyGroup):
    source_format: StringProperty(name="Format", description="Format the object was imported from")
    skin_width: IntProperty(name="Skin Width", min=0, description="Skin width the texture coordinates refer to")
    skin_height: IntProperty(name="Skin Height", min=0, description="Skin height the texture coordinates refer to")
    frame_offset: IntProperty(name="First Frame", description="Scene frame that shows the file's first frame")
    animations: CollectionProperty(type=ClassicModelAnimation, name="Animations",
                                   description="The file's animations (runs of frames named alike)")
    active_animation: IntProperty(name="Active Animation", min=0, update=_animation_chosen,
                                  description="The animation picked in the list (with one action per "
                                              "animation, its action plays)")
    animation_mode: EnumProperty(name="Animations", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "The whole file on the timeline, a marker per animation"),
        ("ACTIONS", "Actions", "One shape-key action per animation")),
        description="How the import laid out the file's animations")
    frames: CollectionProperty(type=ClassicModelFrame, name="Frames",
                               description="The file's frame table, in file order")
    active_frame: IntProperty(name="Active Frame", min=0, description="The frame picked in the frame table")


_OWN_FIELDS = dict(ClassicModelSettings.__annotations__)

CLASSES = (ClassicModelAnimation, ClassicModelFrame, ClassicModelSettings)


def _add_format_fields() -> None:
    """The fields of the formats in the table now, after the shared ones."""
    ClassicModelSettings.__annotations__.clear()
    ClassicModelSettings.__annotations__.update(_OWN_FIELDS)
    for row in table.FORMATS:
        fields = getattr(table.resolve(row.sidebar), "object_fields", None) if row.sidebar else None
        if fields is not None:
            ClassicModelSettings.__annotations__.update(fields())


def register() -> None:
    _add_format_fields()
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Object.classic_model = PointerProperty(type=ClassicModelSettings)


def unregister() -> None:
    del bpy.types.Object.classic_model
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
