"""Per-object settings kept from an import (``Object.classic_model``)."""
from __future__ import annotations

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from ..common.actions import activate_animation
from ..formats.mdl.variants import HEXEN2_FLAGS, QUAKE_FLAGS

MDL_FLAG_NAMES = tuple((name, label) for _bit, name, label in QUAKE_FLAGS)


def _flag_property(bit: int, label: str) -> BoolProperty:
    def get(self) -> bool:
        return bool(self.mdl_flags & (1 << bit))

    def set(self, value: bool) -> None:
        self.mdl_flags = (self.mdl_flags | (1 << bit)) if value else (self.mdl_flags & ~(1 << bit))
    return BoolProperty(name=label, get=get, set=set, description=f"MDL effect flag {1 << bit}"
                        + (" (Hexen II)" if bit >= len(MDL_FLAG_NAMES) else ""))


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
    mdl_flags: IntProperty(name="Flags", description="MDL effect flags (all 32 bits, as stored)")
    mdl_synctype: EnumProperty(name="Sync", default="SYNC", items=(
        ("SYNC", "Synchronised", "All instances animate in step (synctype 0)"),
        ("RAND", "Random", "Each instance starts at a random point (synctype 1)")))
    mdl_eye_position: FloatVectorProperty(name="Eye Position", size=3, subtype="XYZ",
                                          description="MDL header field eyeposition, written as set here")
    mdl_bounding_radius: FloatProperty(name="Bounding Radius", min=0.0,
                                       description="MDL header field boundingradius: kept while the "
                                                   "frames are unchanged, else computed by the export")
    mdl_size: FloatProperty(name="Size", min=0.0, description="Average triangle area (used for LOD)")
    ms3d_comment: StringProperty(name="Comment", description="MilkShape model comment")
    ms3d_joint_size: FloatProperty(name="Joint Size", default=1.0, description="MilkShape joint display size")
    ms3d_transparency_mode: IntProperty(name="Transparency Mode", default=0,
                                        description="MilkShape transparency mode: 0 simple, 1 depth buffered "
                                                    "with alpha ref, 2 depth sorted triangles")
    ms3d_alpha_ref: FloatProperty(name="Alpha Ref", default=0.5, description="MilkShape alpha reference (0-1)")


for _bit, (_name, _label) in enumerate(MDL_FLAG_NAMES):
    ClassicModelSettings.__annotations__[f"mdl_flag_{_name}"] = _flag_property(_bit, _label)
for _bit, _name, _label in HEXEN2_FLAGS:      # Hexen II's EF_ bits 8-24 (uHexen2 gl_model.h)
    ClassicModelSettings.__annotations__[f"mdl_flag_{_name}"] = _flag_property(_bit, _label)

CLASSES = (ClassicModelAnimation, ClassicModelFrame, ClassicModelSettings)


def register() -> None:
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Object.classic_model = PointerProperty(type=ClassicModelSettings)


def unregister() -> None:
    del bpy.types.Object.classic_model
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
