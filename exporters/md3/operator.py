"""File > Export > Quake III Model (.md3): one model, its surfaces from mesh objects and its tags from
empties named ``tag_*`` (also a Collection Exporter)."""
from __future__ import annotations

import bpy
from bpy.props import StringProperty

from ..dialogs import draw_md3_export
from ..operators import FrameExportBase
from ..run_export import export_file
from .build import Md3ExportOptions
from .export import export_md3


class EXPORT_SCENE_OT_md3(bpy.types.Operator, FrameExportBase):
    """Export Quake III MD3: a surface per object (and material), tags from tag_* empties, vertex frames"""
    bl_idname = "export_scene.md3"
    bl_label = "Export MD3"

    filename_ext = ".md3"
    filter_glob: StringProperty(default="*.md3", options={"HIDDEN"})
    skin_path: StringProperty(name="Shader Path", default="",
                              description="Folder part of new shader names (e.g. models/crate); empty = implied by "
                                          "the export folder under <game>/models or <game>/players")

    def execute(self, context):
        options = Md3ExportOptions(**self.frame_options(), skin_path=self.skin_path)
        return export_file(self, context, self.with_frame_scripts(context, export_md3), options)

    def draw(self, context):
        draw_md3_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_md3
