"""File > Export > Inter-Quake Model (.iqm): the operator, its options and its dialog; the export is
:func:`.export.export_iqm` (an untouched import written back byte for byte, anything else built from
Blender); its dialog is :mod:`.dialog`. Every option is an operator property, so ``convert --export-option name=value`` reaches it."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty

from ..export_error import ExportError
from ..operators import ExportOperatorBase
from ..run_export import export_file, export_objects
from ..sampling.action_list import listed_actions, sync_action_list
from .anim_list import armature_actions
from .build import IqmExportOptions
from .dialog import draw_export
from .export import IqmFileOptions, export_iqm, model_parts


class EXPORT_SCENE_OT_iqm(bpy.types.Operator, ExportOperatorBase):
    """Export an Inter-Quake Model (.iqm): an imported IQM untouched back byte for byte; an armature with its
    meshes and actions otherwise"""
    bl_idname = "export_scene.iqm"
    bl_label = "Export IQM"

    filename_ext = ".iqm"
    filter_glob: StringProperty(default="*.iqm", options={"HIDDEN"})
    apply_transform: BoolProperty(name="Apply Transform", default=True,
                                  description="Write world-space coordinates (object location, rotation, scale); "
                                              "else in the armature's space (a static model: the first mesh's)")
    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply positions and joint translations before writing")
    colours: BoolProperty(name="Vertex Colours", default=True,
                          description="Write each mesh's active colour attribute as the vertex colour array")
    write_framegroups: BoolProperty(name="Frame Groups File", default=False,
                                    description="Also write <model file>.framegroups beside the model (first "
                                                "frame, frames, rate, loop, name per anim; an import's frame "
                                                "groups still as imported: the groups it read), which DarkPlaces "
                                                "and Xonotic read to name and split a model's animations")

    def invoke(self, context, event):
        try:
            armature, _ = model_parts(export_objects(self, context))
        except ExportError:             # several armatures: execute says so
            armature = None
        sync_action_list(context.scene, [a.name for a in armature_actions(armature)] if armature is not None else [])
        return super().invoke(context, event)

    def execute(self, context):
        build = IqmExportOptions(apply_transform=self.apply_transform, scale=self.scale, colours=self.colours)
        options = IqmFileOptions(build, listed_actions(context.scene), self.write_framegroups)
        return export_file(self, context, export_iqm, options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_iqm
