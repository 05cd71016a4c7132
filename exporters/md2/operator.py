"""File > Export > Quake II Model (.md2), one model or a Quake II player folder."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ...formats.frame_scripts import md2_animations
from ...formats.md2.codec import parse_md2
from ..operators import EnhancedModelOption, FrameExportBase
from ..run_export import export_file
from .build import Md2ExportOptions
from .dialog import draw_export
from .export import export_md2
from .player import PLAYER_BODY_FILE, export_md2_player


def _animations(data: bytes, fps: float) -> list:
    """The animations of a written MD2, for its ``.qc`` and ``.framegroups``."""
    return md2_animations(parse_md2(data).frame_names, fps)


class EXPORT_SCENE_OT_md2(bpy.types.Operator, FrameExportBase, EnhancedModelOption):
    """Export Quake II MD2: a frame every 0.1 s of the animation, as the game plays it"""
    bl_idname = "export_scene.md2"
    bl_label = "Export MD2"

    filename_ext = ".md2"
    filter_glob: StringProperty(default="*.md2", options={"HIDDEN"})
    player: BoolProperty(name="Quake II Player", default=False,
                         description="Write the selected objects into the chosen folder as a player: the body "
                                     "as tris.md2, objects named weapon* as weapon.md2 and w_* each as its own "
                                     "file, with identical frame lists; warn where it differs from the "
                                     "standard 198 frames")

    grid: EnumProperty(name="Grid", default="AUTO", items=(
        ("AUTO", "Auto", "One shared lattice unless its largest error is over 25 % above per-frame grids' "
                         "(frames of very different sizes); the report says which and the largest error"),
        ("SHARED", "Shared", "One step for every frame, translates on a common lattice: "
                             "vertices that do not move decode identically in every frame"),
        ("PER_FRAME", "Per Frame", "Each frame's grid from its own bounds: finest steps, but still "
                                   "vertices move slightly between frames")))

    skins: EnumProperty(name="Skins", default="PCX", items=(
        ("PCX", "PCX", "Write each skin as an 8-bit PCX in the Quake II palette, as the game loads it"),
        ("PNG", "PNG", "Write each skin as a true-colour PNG (source ports load it in place of the PCX)"),
        ("TGA", "TGA", "Write each skin as a true-colour TGA (source ports load it in place of the PCX)"),
        ("NAMES", "Names Only", "Store the skin names and write no skin files")))
    skin_path: StringProperty(name="Skin Path", default="",
                              description="Folder part of new skin names (e.g. models/crate); empty = implied by "
                                          "the export folder under <game>/models or <game>/players")
    dither: BoolProperty(name="Dither Skins", default=False,
                         description="Floyd-Steinberg dithering when converting skins to the Quake II palette")
    icons: EnumProperty(name="Icons", default="AUTO", items=(
        ("AUTO", "Keep or Render", "Quake II Player: an icon <skin>_i.pcx beside every skin (the game's menu "
                                         "lists a skin only with it): one already there, an image named <skin>_i, "
                                         "the icon beside the imported skin, else a 32x32 render of the model's front"),
        ("RENDER", "Render", "Quake II Player: render every skin's icon from the model's front (32x32, the Quake II "
                             "palette), replacing icons already there"),
        ("NONE", "None", "Quake II Player: write no icons (the game's menu will not list the skins)")),
        description="Quake II Player: the menu icon <skin>_i.pcx of every player skin")

    def standard_actions(self) -> str:
        return "PLAYER" if self.player else "DEFAULT"

    def check(self, context):
        changed = super().check(context)
        if self.player and bpy.path.basename(self.filepath) != PLAYER_BODY_FILE:
            self.filepath = str(Path(self.filepath).with_name(PLAYER_BODY_FILE))
            changed = True
        return changed

    def execute(self, context):
        options = Md2ExportOptions(**self.frame_options(), **self.enhanced_options(), grid=self.grid, skins=self.skins, skin_path=self.skin_path,
                                   dither=self.dither, icons=self.icons)
        if self.player:      # a folder: tris.md2 and the weapon models next to it
            self.filepath = str(Path(self.filepath).with_name(PLAYER_BODY_FILE))
        return export_file(self, context, self.with_frame_scripts(
            context, export_md2_player if self.player else export_md2, _animations), options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_md2
