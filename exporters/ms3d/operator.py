"""File > Export > MilkShape 3D (.ms3d): meshes as groups, materials, joints and keys."""
from __future__ import annotations

import bpy
from bpy.props import EnumProperty, FloatProperty, StringProperty

from bpy_extras.io_utils import orientation_helper

from ..operators import ExportOperatorBase
from ..run_export import export_file
from .build import Ms3dExportOptions
from .dialog import draw_export
from .export import export_ms3d


@orientation_helper(axis_forward="-Z", axis_up="Y")
class EXPORT_SCENE_OT_ms3d(bpy.types.Operator, ExportOperatorBase):
    """Export MilkShape 3D: mesh objects as groups, their materials, the armature's joints and keys"""
    bl_idname = "export_scene.ms3d"
    bl_label = "Export MS3D"

    filename_ext = ".ms3d"
    filter_glob: StringProperty(default="*.ms3d", options={"HIDDEN"})

    animation: EnumProperty(name="Animation", default="KEYS", items=(
        ("KEYS", "Keyframes", "A key where the action has one (rotation and location channels per bone)"),
        ("BAKE", "Bake", "A key on every scene frame, from the evaluated pose (constraints included)")))
    tolerance: FloatProperty(
        name="Tolerance", default=0.1, min=0.0, max=100.0, soft_max=5.0, precision=3, subtype="PERCENTAGE",
        description="Keyframes: add keys where MilkShape's playback (slerp, linear or Hermite positions) would "
                    "move the mesh farther than this from Blender's pose at any scene frame, in % of the model's "
                    "size (largest side of its bounding box); 0 = a key on every frame, as Bake")
    textures: EnumProperty(name="Textures", default="COPY", items=(
        ("COPY", "Copy", "Copy each material's image beside the model (PNG when it exists only in Blender); "
                         "the file stores its bare name"),
        ("NAMES", "Names Only", "Store the texture names and write no image files")))

    def execute(self, context):
        options = Ms3dExportOptions(axis_forward=self.axis_forward, axis_up=self.axis_up, animation=self.animation,
                                    textures=self.textures, tolerance=self.tolerance)
        return export_file(self, context, export_ms3d, options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_ms3d
