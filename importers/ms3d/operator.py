"""File > Import > MilkShape 3D (.ms3d): properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from bpy_extras.io_utils import orientation_helper

from ..operators import ImportOperatorBase
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .ms3d_import import Ms3dImportOptions, import_ms3d


@orientation_helper(axis_forward="-Z", axis_up="Y")
class IMPORT_SCENE_OT_ms3d(bpy.types.Operator, ImportOperatorBase):
    """Import MilkShape 3D models: a mesh per group, materials, an armature and its keyframe animation"""
    bl_idname = "import_scene.ms3d"
    bl_label = "Import MS3D"

    filename_ext = ".ms3d"
    filter_glob: StringProperty(default="*.ms3d", options={"HIDDEN"})

    load_images: BoolProperty(name="Load Images", default=True,
                              description="Find the texture and alpha map images next to the model")
    name_encoding: EnumProperty(name="Name Encoding", default="AUTO", items=(
        ("AUTO", "Auto", "UTF-8 when the bytes are valid UTF-8, else Windows-1252"),
        ("UTF8", "UTF-8", "Unicode"),
        ("CP1252", "Windows-1252", "Western European"),
        ("GBK", "GBK", "Simplified Chinese"),
        ("SHIFT_JIS", "Shift-JIS", "Japanese"),
        ("CP1251", "Windows-1251", "Cyrillic")),
        description="The code page the model's names, texture paths and comments were written in "
                    "(the bytes are kept as they are, so the export is unchanged)")

    def import_options(self, exclude: tuple[str, ...] = ()) -> Ms3dImportOptions:
        return Ms3dImportOptions(axis_forward=self.axis_forward, axis_up=self.axis_up,
                                 load_images=self.load_images, name_encoding=self.name_encoding,
                                 scene_timing=self.scene_timing)

    def execute(self, context):
        return import_files(self, context, operator_paths(self), import_ms3d, self.import_options())

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_ms3d
IMPORTER = import_ms3d
