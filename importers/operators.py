"""File > Import operators. Each is properties -> options -> one call to ``import_files``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, StringProperty
from bpy_extras.io_utils import ImportHelper, orientation_helper

from ..common.dialog_layout import region_current
from ..common.mdl_skins import chosen_palette, palette_items
from .dialogs import draw_md2_import, draw_mdl_import, draw_ms3d_import
from .md2.md2_import import Md2ImportOptions, import_md2
from .mdl.mdl_import import MdlImportOptions, import_mdl
from .ms3d.ms3d_import import Ms3dImportOptions, import_ms3d
from .run_import import import_files, operator_paths
from .scene_timing import SCENE_TIMING_ITEMS


class ImportOperatorBase(ImportHelper):
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filepath: StringProperty(name="File Path", description="The file to read", maxlen=1024, subtype="FILE_PATH",
                             options={"SKIP_SAVE", "SKIP_PRESET"})     # a preset must not choose the file
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    scene_timing: EnumProperty(name="Scene Timing", default="AUTO", items=SCENE_TIMING_ITEMS,
                               description="Whether the import sets the scene's frame rate and range to the "
                                           "model's or keeps the scene's rate (other animation in the scene "
                                           "keeps its speed)")

    def invoke(self, context, event):
        if hasattr(self, "invoke_popup"):
            with region_current(context):      # from a timer or startup script: no region (a crash in draw)
                return self.invoke_popup(context)
        return super().invoke(context, event)


class FrameImportBase(ImportOperatorBase):
    """Options of the vertex-animation formats (MD2, MDL)."""
    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply coordinates (1 Quake unit = 1 Blender unit by default)")
    use_file_normals: BoolProperty(name="File Normals", default=False,
                                   description="Use the first frame's stored normals as custom normals")
    load_skins: BoolProperty(name="Load Skins", default=True,
                             description="Find and load the skin images (MD2) or decode the paletted skins (MDL)")
    animations: EnumProperty(name="Animations", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "The whole file on the timeline, a marker at each animation"),
        ("ACTIONS", "Actions", "One shape-key action per animation (MDL: per frame group), each from frame 1; "
                               "the sidebar's animation list switches between them")),
        description="How the file's animations are laid out in Blender")

    def frame_options(self) -> dict:
        return {"scale": self.scale, "use_file_normals": self.use_file_normals, "load_skins": self.load_skins,
                "animations": self.animations, "scene_timing": self.scene_timing}


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
        draw_md2_import(self, self.layout, context)


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
        draw_mdl_import(self, self.layout, context)


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
        draw_ms3d_import(self, self.layout, context)


CLASSES = (IMPORT_SCENE_OT_md2, IMPORT_SCENE_OT_mdl, IMPORT_SCENE_OT_ms3d,)
