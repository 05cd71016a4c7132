"""File > Export > Quake III Model (.md3): one model, its surfaces from mesh objects and its tags from
empties named ``tag_*`` (also a Collection Exporter), or a Quake III player folder (:mod:`.player`)."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ...formats.frame_scripts import md2_animations
from ...formats.md3.codec import read_md3
from ..operators import FrameExportBase
from ..run_export import export_file
from .build import Md3ExportOptions
from .dialog import draw_export
from .export import export_md3
from .player import PLAYER_FILE, export_md3_player


def _animations(data: bytes, fps: float) -> list:
    """The animations of a written MD3 (by its frame names, as MD2's), for its ``.qc`` and ``.framegroups``."""
    return md2_animations(read_md3(data).frame_names, fps)


class EXPORT_SCENE_OT_md3(bpy.types.Operator, FrameExportBase):
    """Export Quake III MD3: a surface per object (and material), tags from tag_* empties, vertex frames"""
    bl_idname = "export_scene.md3"
    bl_label = "Export MD3"

    filename_ext = ".md3"
    filter_glob: StringProperty(default="*.md3", options={"HIDDEN"})
    # Quake III plays a model's frames at the rate its code or animation.cfg asks, not at a fixed 10 per
    # second: one frame per scene frame by default (an imported MD3 has one scene frame per file frame)
    frame_rate: EnumProperty(name="Frame Rate", default="SCENE", items=(
        ("SCENE", "Every Frame", "One frame per scene frame; a player's animation.cfg gets the scene's rate"),
        ("GAME", "Game (10 fps)", "Sample the animation every 0.1 s of scene time, as Quake and Quake II play "
                                  "models (for an MD3 Quake's source ports load beside an MDL)")),
        description="Timeline and Actions: how often frames are sampled (Shape Keys: one per key, always)")
    player: BoolProperty(name="Quake III Player", default=False,
                         description="Write the objects into the chosen folder as a player: lower.md3, upper.md3 "
                                     "and head.md3 (objects l_*, u_*, h_* or in collections lower, upper, head), "
                                     "upper in the frame of tag_torso and head in that of tag_head, frames from "
                                     "actions named after the game's animations (a player an MD3 import assembled: "
                                     "its parts, animation lists and skin sets on the timeline), animation.cfg, "
                                     ".skin files and the icons, rendered from the head")
    render_icons: BoolProperty(name="Render Icons", default=False,
                               description="Quake III Player: render every icon_<skin>.tga from the head, also "
                                           "for a player an MD3 import kept its own icons of (by default those are "
                                           "written back as they were; a skin set without one gets it rendered)")
    skin_path: StringProperty(name="Shader Path", default="",
                              description="Folder part of new shader names (e.g. models/crate); empty = implied by "
                                          "the export folder under <game>/models or <game>/players")

    lods: BoolProperty(name="Levels of Detail", default=True,
                       description="Also write x_1.md3 and x_2.md3 beside x.md3 from the levels of detail an MD3 "
                                   "import (Levels of Detail) put under the model root; nothing when there are none")
    textures: EnumProperty(name="Textures", default="TGA", items=(
        ("TGA", "TGA", "Write the image of each new shader as a TGA where the game looks it up (under the game "
                       "folder the export goes into, else beside the model)"),
        ("NAMES", "Names Only", "Store the shader names and write no texture files")))

    def check(self, context):
        changed = super().check(context)
        if self.player and bpy.path.basename(self.filepath) != PLAYER_FILE:
            self.filepath = str(Path(self.filepath).with_name(PLAYER_FILE))
            changed = True
        return changed

    def execute(self, context):
        options = Md3ExportOptions(**self.frame_options(), skin_path=self.skin_path, textures=self.textures,
                                   lods=self.lods, render_icons=self.render_icons)
        if self.player:      # a folder: lower.md3 and the other parts beside it
            self.filepath = str(Path(self.filepath).with_name(PLAYER_FILE))
            return export_file(self, context, export_md3_player, options)
        return export_file(self, context, self.with_frame_scripts(context, export_md3, _animations), options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_md3
