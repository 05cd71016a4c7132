"""Per-object settings kept from an import (``Object.classic_model``)."""
from __future__ import annotations

import bpy
from bpy.props import CollectionProperty, IntProperty, PointerProperty, StringProperty


class ClassicModelAnimation(bpy.types.PropertyGroup):
    """A named run of scene frames (``stand`` = frames 1-40)."""
    frame_start: IntProperty(name="Start")
    frame_end: IntProperty(name="End")


class ClassicModelSettings(bpy.types.PropertyGroup):
    source_format: StringProperty(name="Format", description="Format the object was imported from")
    skin_width: IntProperty(name="Skin Width", min=0, description="Skin width the texture coordinates refer to")
    skin_height: IntProperty(name="Skin Height", min=0, description="Skin height the texture coordinates refer to")
    frame_offset: IntProperty(name="First Frame", description="Scene frame that shows the file's first frame")
    animations: CollectionProperty(type=ClassicModelAnimation)
    active_animation: IntProperty(name="Active Animation", min=0)


CLASSES = (ClassicModelAnimation, ClassicModelSettings)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Object.classic_model = PointerProperty(type=ClassicModelSettings)


def unregister() -> None:
    del bpy.types.Object.classic_model
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
