"""File > Import > Quake Model (.mdl): properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import EnumProperty, StringProperty

from ...common.mdl_skins import chosen_palette, palette_items
from ..operators import FrameImportBase
from ..run_import import import_files, operator_paths
from .dialog import draw_import
from .mdl_import import MdlImportOptions, import_mdl


class IMPORT_SCENE_OT_mdl(bpy.types.Operator, FrameImportBase):
    """Import Quake MDL models: a mesh with one shape key per pose, paletted skins, header fields"""
    bl_idname = "import_scene.mdl"
    bl_label = "Import MDL"

    filename_ext = ".mdl"
    filter_glob: StringProperty(default="*.mdl", options={"HIDDEN"})

    palette: EnumProperty(name="Palette", default="AUTO", options={"SKIP_SAVE"}, items=palette_items(
        "The game folder's palette (gfx/palette.lmp beside the model or in its archive), else Hexen II's for a "
        "Hexen II mission-pack RAPO model, Quake's for the others"),
        description="The palette the skins' indices are decoded with")
    palette_path: StringProperty(name="Palette File", default="", subtype="FILE_PATH",
                                 description="A 768-byte palette lump; when set it is used whatever Palette says")

    def import_options(self, exclude: tuple[str, ...] = ()) -> MdlImportOptions:
        return MdlImportOptions(**self.frame_options(), palette=chosen_palette(self), palette_path=self.palette_path)

    def execute(self, context):
        return import_files(self, context, operator_paths(self), import_mdl, self.import_options())

    def draw(self, context):
        draw_import(self, self.layout, context)


OPERATOR = IMPORT_SCENE_OT_mdl
IMPORTER = import_mdl
