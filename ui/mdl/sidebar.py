"""MDL in the sidebar (View3D > Sidebar > Model, ``ui/panel.py``): the Quake MDL header box of an imported
MDL, each frame's group and interval in the frame table; the *Quake Model* panels (sidebar and
Properties > Object): the MDL header fields of any mesh; and those fields (``Object.classic_model.mdl_*``,
:func:`object_fields`)."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty

from ...common.dialog_layout import group
from ...common.mdl.contract import MDL_VARIANT
from ...formats.mdl.variants import HEXEN2_FLAGS, QUAKE_FLAGS, RAPO, hexen2_flag_names

FRAMES_HEADER = "Frames (name, group, interval)"
MDL_FLAG_NAMES = tuple((name, label) for _bit, name, label in QUAKE_FLAGS)


def _flag_property(bit: int, label: str) -> BoolProperty:
    def get(self) -> bool:
        return bool(self.mdl_flags & (1 << bit))

    def set(self, value: bool) -> None:
        self.mdl_flags = (self.mdl_flags | (1 << bit)) if value else (self.mdl_flags & ~(1 << bit))
    return BoolProperty(name=label, get=get, set=set, description=f"MDL effect flag {1 << bit}"
                        + (" (Hexen II)" if bit >= len(MDL_FLAG_NAMES) else ""))


def object_fields() -> dict:
    """The MDL header fields an export takes from any mesh object, and a tick box per effect flag."""
    fields = {
        "mdl_flags": IntProperty(name="Flags", description="MDL effect flags (all 32 bits, as stored)"),
        "mdl_synctype": EnumProperty(name="Sync", default="SYNC", items=(
            ("SYNC", "Synchronised", "All instances animate in step (synctype 0)"),
            ("RAND", "Random", "Each instance starts at a random point (synctype 1)"))),
        "mdl_eye_position": FloatVectorProperty(name="Eye Position", size=3, subtype="XYZ",
                                                description="MDL header field eyeposition, written as set here"),
        "mdl_bounding_radius": FloatProperty(name="Bounding Radius", min=0.0,
                                             description="MDL header field boundingradius: kept while the "
                                                         "frames are unchanged, else computed by the export"),
        "mdl_size": FloatProperty(name="Size", min=0.0, description="Average triangle area (used for LOD)"),
    }
    for bit, (name, label) in enumerate(MDL_FLAG_NAMES):
        fields[f"mdl_flag_{name}"] = _flag_property(bit, label)
    for bit, name, label in HEXEN2_FLAGS:      # Hexen II's EF_ bits 8-24 (uHexen2 gl_model.h)
        fields[f"mdl_flag_{name}"] = _flag_property(bit, label)
    return fields


def draw_sidebar(layout, settings, obj) -> None:
    box = layout.box()
    variant = obj.get(MDL_VARIANT, "IDPO")
    box.label(text=f"Quake MDL header ({variant})")
    draw_quake_model(box, settings, variant)
    column = box.column(align=True)           # one a line: side by side the sidebar cut "Boundi..."
    column.prop(settings, "mdl_bounding_radius")
    column.prop(settings, "mdl_size")


def draw_frame(row, item) -> None:
    """A frame table row's columns after the name: the frame group and the pose's interval in it."""
    row.prop(item, "group", text="")
    if item.group >= 0:
        row.prop(item, "interval", text="")


def draw_quake_model(layout, settings, variant: str = "IDPO") -> None:
    """The MDL header fields an export takes from the object (``Object.classic_model``): the effect flags
    of the game that loads ``variant`` (Quake's 8; Hexen II's 8 + 17 for RAPO), the other game's folded
    (its title counts those set), sync type and eye position; for any mesh, imported or new."""
    grid = layout.grid_flow(columns=2, align=True)
    for name, _label in MDL_FLAG_NAMES:
        grid.prop(settings, f"mdl_flag_{name}")
    count = len(hexen2_flag_names(settings.mdl_flags))
    title = f"Hexen II Flags ({count} set)" if count else "Hexen II Flags"
    if variant == RAPO:                     # Hexen II's own: always shown
        body = layout.box()
        body.label(text=title)
    else:                                   # another game's: folded until opened (QuakeSpasm reads Holey)
        body = group(layout, "CLASSIC_MODELS_hexen2_flags", title, default_closed=True)
    if body:
        grid = body.grid_flow(columns=2, align=True)
        for _bit, name, _label in HEXEN2_FLAGS:
            grid.prop(settings, f"mdl_flag_{name}")
    layout.prop(settings, "mdl_flags")
    layout.prop(settings, "mdl_synctype")
    layout.prop(settings, "mdl_eye_position")


class VIEW3D_PT_quake_model(bpy.types.Panel):
    """Sidebar > Model: the MDL header of a mesh made in Blender; an imported MDL shows it in the
    Classic Model panel, and any mesh (one imported from MD2 or MS3D too) in Properties > Object."""
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Model"
    bl_label = "Quake Model"

    @classmethod
    def poll(cls, context):
        obj = context.object
        return obj is not None and obj.type == "MESH" and obj.classic_model.source_format == ""   # new meshes

    def draw(self, context):
        self.layout.label(text="Written into the MDL header on export")
        draw_quake_model(self.layout, context.object.classic_model)


class OBJECT_PT_quake_model(bpy.types.Panel):
    """Properties > Object: the same MDL header fields, for any mesh object."""
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "object"
    bl_label = "Quake Model"
    bl_options = {"DEFAULT_CLOSED"}

    @classmethod
    def poll(cls, context):
        return context.object is not None and context.object.type == "MESH"

    def draw(self, context):
        draw_quake_model(self.layout, context.object.classic_model, context.object.get(MDL_VARIANT, "IDPO"))


CLASSES = (VIEW3D_PT_quake_model, OBJECT_PT_quake_model)
