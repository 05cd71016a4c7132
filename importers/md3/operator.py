"""File > Import > Quake III Model (.md3): properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty

from ..operators import ImportOperatorBase, animations_property
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .md3_import import Md3ImportOptions, import_md3


class IMPORT_SCENE_OT_md3(bpy.types.Operator, ImportOperatorBase):
    """Import Quake III MD3 models: a mesh per surface with one shape key per frame, tags as animated empties"""
    bl_idname = "import_scene.md3"
    bl_label = "Import MD3"

    filename_ext = ".md3"
    filter_glob: StringProperty(default="*.md3", options={"HIDDEN"})

    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply coordinates (1 Quake unit = 1 Blender unit by default)")
    md3_file_normals: BoolProperty(name="File Normals", default=True,
                                   description="Use the first frame's stored normals as custom normals (MD3 "
                                               "surfaces repeat vertices along UV seams: Blender's own normals "
                                               "show the seams)")
    load_skins: BoolProperty(name="Load Skins", default=True,
                             description="Find and load the images the surfaces' shaders and the .skin files beside the model name")
    assemble_player: BoolProperty(name="Assemble Player", default=True,
                                  description="With lower.md3 of a Quake III player folder, also import upper.md3 "
                                              "and head.md3 attached on their tags, and animation.cfg's animations")
    load_lods: BoolProperty(name="Levels of Detail", default=False,
                            description="Also import x_1.md3 and x_2.md3 beside x.md3, into a hidden collection")

    animations: animations_property()
    merge_surfaces: BoolProperty(name="Merge Surfaces", default=False,
                                 description="One mesh object for all of a file's surfaces, each surface a "
                                             "material slot (exports back as the same surfaces), instead of "
                                             "one mesh object per surface")

    def import_options(self, exclude: tuple[str, ...] = ()) -> Md3ImportOptions:
        return Md3ImportOptions(scale=self.scale, use_file_normals=self.md3_file_normals, load_skins=self.load_skins,
                                assemble_player=self.assemble_player, load_lods=self.load_lods,
                                merge_surfaces=self.merge_surfaces, animations=self.animations,
                                scene_timing=self.scene_timing, exclude=exclude)

    def execute(self, context):
        paths = operator_paths(self)       # a player's upper and head, given with its lower, come with it
        return import_files(self, context, paths, import_md3, self.import_options(tuple(str(p) for p in paths)))

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_md3
IMPORTER = import_md3
