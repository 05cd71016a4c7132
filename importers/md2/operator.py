"""File > Import > Quake II Model (.md2): properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ..operators import FrameImportBase
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .md2_import import Md2ImportOptions, import_md2


class IMPORT_SCENE_OT_md2(bpy.types.Operator, FrameImportBase):
    """Import Quake II MD2 models: a mesh with one shape key per frame, animated on the timeline"""
    bl_idname = "import_scene.md2"
    bl_label = "Import MD2"

    filename_ext = ".md2"
    filter_glob: StringProperty(default="*.md2", options={"HIDDEN"})

    skin_image: StringProperty(name="Skin Image", default="", subtype="FILE_PATH",
                               description="Show this image on the model; empty = find the skin automatically "
                                           "(the names the file stores, else the model's own image beside it)")
    pcx_colours: EnumProperty(name="PCX Colours", default="FILE", items=(
        ("FILE", "File", "The palette stored in the PCX, as it was painted"),
        ("GAME", "Game", "Quake II's palette, as the game draws 8-bit skins")))

    load_weapons: BoolProperty(name="Weapon Models", default=True,
                               description="With a Quake II player's tris.md2, also import the weapon models "
                                           "beside it (weapon.md2, w_*.md2), parented to the player")

    def import_options(self, exclude: tuple[str, ...] = ()) -> Md2ImportOptions:
        return Md2ImportOptions(**self.frame_options(), skin_image=getattr(self, "skin_image", ""),
                                pcx_colours=self.pcx_colours, load_weapons=self.load_weapons, exclude=exclude)

    def execute(self, context):
        paths = operator_paths(self)
        return import_files(self, context, paths, import_md2, self.import_options(tuple(str(p) for p in paths)))

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_md2
IMPORTER = import_md2
