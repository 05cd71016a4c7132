"""File > Import > MD5 (.md5mesh): properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..operators import ImportOperatorBase
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .md5_files import ANIM_SUFFIX
from .md5_import import Md5ImportOptions, import_md5

FIND_ANIMS_ITEMS = (
    ("STEM", "Same Name", "The .md5anim with the mesh's name beside it (the Quake and Quake II re-releases' layout)"),
    ("FOLDER", "Folder", "Every .md5anim beside the mesh whose joints are the mesh's, one action each"),
    ("NONE", "None", "Only the .md5anim files chosen with the mesh"))


class IMPORT_SCENE_OT_md5(bpy.types.Operator, ImportOperatorBase):
    """Import MD5 models (.md5mesh with its .md5anim): an armature, a mesh per block, an action per anim"""
    bl_idname = "import_scene.md5"
    bl_label = "Import MD5"

    filename_ext = ".md5mesh"
    filter_glob: StringProperty(default="*.md5mesh;*.md5anim", options={"HIDDEN"})

    find_anims: EnumProperty(name="Anims", default="STEM", items=FIND_ANIMS_ITEMS,
                             description="Which .md5anim files beside the mesh become actions (anims chosen with "
                                         "the mesh in the file browser always do)")
    anim_mesh: EnumProperty(name="Anim Alone", default="MESH", items=(
        ("MESH", "Onto Its Mesh", "The .md5mesh beside it whose joints are the anim's: of its name, the one the "
                                  "folder's md5.cfg loads it with (Sauerbraten, Red Eclipse), else any; without "
                                  "one, its own skeleton"),
        ("SKELETON", "Own Skeleton", "An armature of the anim's own hierarchy at its base frame, no mesh")),
        description="What an .md5anim chosen without its mesh is imported onto")
    load_skins: BoolProperty(name="Load Skins", default=True,
                             description="With the classic model beside it (progs/x.mdl, models/x/tris.md2), "
                                         "show the layout's skins (progs/x_00_00.lmp, the MD2's skins under md5/)")

    animations: EnumProperty(name="Animations", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "One action per anim; with the classic model beside it, a marker at each of its "
                                 "animations"),
        ("ACTIONS", "Actions", "With the classic model beside it (progs/x.mdl, models/x/tris.md2), the anim "
                               "split into one action per classic animation (MDL: per frame group), each from "
                               "frame 1; the sidebar's animation list switches between them")),
        description="How the anim's frames are laid out in Blender when the classic model names them")

    def import_options(self, exclude: tuple[str, ...] = (), anims: tuple[str, ...] = ()) -> Md5ImportOptions:
        return Md5ImportOptions(scene_timing=self.scene_timing, find_anims=self.find_anims, anim_files=anims,
                                load_skins=self.load_skins, animations=self.animations, exclude=exclude,
                                anim_mesh=self.anim_mesh)

    def execute(self, context):
        paths = operator_paths(self)
        anims = tuple(str(p) for p in paths if p.suffix.lower() == ANIM_SUFFIX)
        meshes = [p for p in paths if p.suffix.lower() != ANIM_SUFFIX]
        if not meshes:          # anims alone: each onto the mesh beside it of its joints, else its own skeleton
            return import_files(self, context, paths, import_md5, self.import_options())
        return import_files(self, context, meshes, import_md5, self.import_options(anims=anims))

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_md5
IMPORTER = import_md5
