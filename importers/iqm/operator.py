"""File > Import > Inter-Quake Model (.iqm): properties -> options -> one call to ``import_files``; its
dialog is :mod:`.dialog`."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, StringProperty

from ..operators import ImportOperatorBase
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .iqm_import import IqmImportOptions, import_iqm


class IMPORT_SCENE_OT_iqm(bpy.types.Operator, ImportOperatorBase):
    """Import Inter-Quake Models (.iqm): an armature of the joints, a mesh per IQM mesh with its weights, an
    action per anim"""
    bl_idname = "import_scene.iqm"
    bl_label = "Import IQM"

    filename_ext = ".iqm"
    filter_glob: StringProperty(default="*.iqm", options={"HIDDEN"})

    iqm_framegroups: BoolProperty(
        name="Frame Groups", default=True,
        description="With <model>.iqm.framegroups beside the model, one action per group it names (first frame, "
                    "count, rate, loop, name), as DarkPlaces and Xonotic play them, instead of one per anim")

    merge_meshes: BoolProperty(
        name="Merge Meshes", default=False,
        description="One mesh object for all of a file's meshes, each mesh a material slot (exports back as the "
                    "same meshes), instead of one mesh object per IQM mesh")

    def import_options(self, exclude: tuple[str, ...] = ()) -> IqmImportOptions:
        return IqmImportOptions(scene_timing=self.scene_timing, framegroups=self.iqm_framegroups,
                                merge_meshes=self.merge_meshes, exclude=exclude)

    def execute(self, context):
        return import_files(self, context, operator_paths(self), import_iqm, self.import_options())

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_iqm
IMPORTER = import_iqm
