"""File > Export > MD5 (.md5mesh): an armature-deformed mesh as .md5mesh and its .md5anim."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..operators import SampledExportBase
from ..run_export import export_file
from .build import Md5ExportOptions
from .dialog import draw_export
from .export import export_md5


class EXPORT_SCENE_OT_md5(bpy.types.Operator, SampledExportBase):
    """Export MD5 (.md5mesh and .md5anim): the armature's bones as joints, the meshes with their bone weights, one
    anim sampled as the MD2 and MDL exports sample (Timeline or Actions); an imported MD5's anims back at their own rate"""
    bl_idname = "export_scene.md5"
    bl_label = "Export MD5"

    filename_ext = ".md5mesh"
    filter_glob: StringProperty(default="*.md5mesh", options={"HIDDEN"})
    frame_source: EnumProperty(name="Frames", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "One anim frame per sampled scene frame of the scene range"),
        ("ACTIONS", "Actions", "Each action animating the armature, over its own frame range, in the order of the "
                               "list, one after another in the one anim")))
    frame_rate: EnumProperty(name="Frame Rate", default="AUTO", items=(
        ("AUTO", "Automatic", "An imported MD5's anims at their own frameRate, each anim back to the file it came "
                              "from (the mesh's own name: the exported name); a model made in Blender at the game's "
                              "10 per second"),
        ("GAME", "Game (10 fps)", "Sample the animation every 0.1 s of scene time (subframes where the scene rate "
                                  "is not a multiple of 10), into one anim, as the Quake ports play the MDL and MD2"),
        ("SCENE", "Every Frame", "One frame per scene frame, into one anim, written at the scene's rate")),
        description="Timeline and Actions: how often frames are sampled, and which .md5anim files are written")
    per_material: BoolProperty(name="Mesh per Material", default=True,
                               description="A mesh block per object and material (else one per object, named after "
                                           "its first material)")

    def execute(self, context):
        options = Md5ExportOptions(**self.sampling_options(), per_material=self.per_material)
        return export_file(self, context, export_md5, options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_md5
