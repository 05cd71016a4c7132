"""File > Export operators (also used as Collection Exporters). Properties -> options -> one call."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, orientation_helper

from ..formats.md2 import parse_md2, serialize_md2
from ..formats.mdl import parse_mdl, serialize_mdl
from ..formats.ms3d import parse_ms3d, serialize_ms3d
from .md2_build import Md2ExportOptions, build_md2
from .mdl_build import MdlExportOptions, build_mdl
from .ms3d_build import Ms3dExportOptions, build_ms3d
from .run_export import ModelWriter, export_file

export_md2 = ModelWriter(build_md2, serialize_md2, parse_md2)
export_mdl = ModelWriter(build_mdl, serialize_mdl, parse_mdl)
export_ms3d = ModelWriter(build_ms3d, serialize_ms3d, parse_ms3d)


class ExportOperatorBase(ExportHelper):
    bl_options = {"REGISTER", "PRESET"}

    use_selection: BoolProperty(name="Selected Only", default=True,
                                description="Export the selected objects only (else every visible object)")
    collection: StringProperty(name="Source Collection", default="",
                               description="Export the objects of this collection (used by Collection Exporters)")


class FrameExportBase(ExportOperatorBase):
    """Options of the vertex-animation formats (MD2, MDL): where frames come from, scale, transform."""
    frame_source: EnumProperty(name="Frames", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "One frame per scene frame of the scene range"),
        ("SHAPE_KEYS", "Shape Keys", "One frame per shape key after Basis")))
    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply coordinates before writing")
    apply_transform: BoolProperty(name="Apply Transform", default=True,
                                  description="Write world-space coordinates (object location, rotation, scale)")

    def frame_options(self) -> dict:
        return {"frame_source": self.frame_source, "scale": self.scale, "apply_transform": self.apply_transform}


class EXPORT_SCENE_OT_md2(bpy.types.Operator, FrameExportBase):
    """Export Quake II MD2: one frame per scene frame (or per shape key)"""
    bl_idname = "export_scene.md2"
    bl_label = "Export Quake II Model"

    filename_ext = ".md2"
    filter_glob: StringProperty(default="*.md2", options={"HIDDEN"})


    def execute(self, context):
        options = Md2ExportOptions(**self.frame_options())
        return export_file(self, context, export_md2, options)


class EXPORT_SCENE_OT_mdl(bpy.types.Operator, FrameExportBase):
    """Export Quake MDL: one pose per scene frame (or per shape key), paletted skins"""
    bl_idname = "export_scene.mdl"
    bl_label = "Export Quake Model"

    filename_ext = ".mdl"
    filter_glob: StringProperty(default="*.mdl", options={"HIDDEN"})

    target: EnumProperty(name="Limits", default="QUAKE", items=(
        ("QUAKE", "Quake", "The original engine: 1024 vertices, 2048 triangles, 256 frames, skins up to 480 high"),
        ("MODERN", "Source Ports", "The larger limits of modern source ports")))
    dither: BoolProperty(name="Dither Skins", default=False,
                         description="Floyd-Steinberg dithering when converting skins to the palette")
    palette_path: StringProperty(name="Palette", default="", subtype="FILE_PATH",
                                 description="A 768-byte palette lump; empty = Quake's palette")
    skin_width_rule: EnumProperty(name="Skin Width", default="PAD", items=(
        ("PAD", "Pad", "Pad a skin whose width is not a multiple of 4"),
        ("REFUSE", "Refuse", "Refuse to export such a skin")))

    def execute(self, context):
        options = MdlExportOptions(**self.frame_options(), target=self.target, dither=self.dither,
                                   palette_path=self.palette_path, skin_width_rule=self.skin_width_rule)
        return export_file(self, context, export_mdl, options)


@orientation_helper(axis_forward="-Z", axis_up="Y")
class EXPORT_SCENE_OT_ms3d(bpy.types.Operator, ExportOperatorBase):
    """Export MilkShape 3D: mesh objects as groups, their materials, the armature's joints and keys"""
    bl_idname = "export_scene.ms3d"
    bl_label = "Export MilkShape 3D"

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

    def execute(self, context):
        options = Ms3dExportOptions(axis_forward=self.axis_forward, axis_up=self.axis_up, animation=self.animation,
                                    tolerance=self.tolerance)
        return export_file(self, context, export_ms3d, options)


CLASSES = (EXPORT_SCENE_OT_md2, EXPORT_SCENE_OT_mdl, EXPORT_SCENE_OT_ms3d,)
