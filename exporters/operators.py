"""File > Export operators (also used as Collection Exporters). Properties -> options -> one call."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from .md2_build import Md2ExportOptions
from .md2_export import export_md2
from .run_export import export_file


class ExportOperatorBase(ExportHelper):
    bl_options = {"REGISTER", "PRESET"}

    use_selection: BoolProperty(name="Selected Only", default=True,
                                description="Export the selected objects only (else every visible object)")
    collection: StringProperty(name="Source Collection", default="",
                               description="Export the objects of this collection (used by Collection Exporters)")


class EXPORT_SCENE_OT_md2(bpy.types.Operator, ExportOperatorBase):
    """Export Quake II MD2: one frame per scene frame (or per shape key)"""
    bl_idname = "export_scene.md2"
    bl_label = "Export Quake II Model"

    filename_ext = ".md2"
    filter_glob: StringProperty(default="*.md2", options={"HIDDEN"})

    frame_source: EnumProperty(name="Frames", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "One frame per scene frame of the scene range"),
        ("SHAPE_KEYS", "Shape Keys", "One frame per shape key after Basis")))
    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply coordinates before writing")
    apply_transform: BoolProperty(name="Apply Transform", default=True,
                                  description="Write world-space coordinates (object location, rotation, scale)")

    def execute(self, context):
        options = Md2ExportOptions(frame_source=self.frame_source, scale=self.scale,
                                   apply_transform=self.apply_transform)
        return export_file(self, context, export_md2, options)


CLASSES = (EXPORT_SCENE_OT_md2,)
