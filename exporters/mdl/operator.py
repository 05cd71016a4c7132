"""File > Export > Quake Model (.mdl): IDPO, MD16 or Hexen II's RAPO, paletted skins."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty

from ...common.mdl_skins import chosen_palette, palette_items
from ...formats.frame_scripts import mdl_animations
from ...formats.mdl.codec import parse_mdl
from ..enhanced_md3 import WithEnhancedMd3
from ..operators import EnhancedModelOption, FrameExportBase
from ..run_export import export_file, export_objects
from .build import MdlExportOptions
from .dialog import draw_export
from .export import export_mdl
from .variant import export_variant


def _animations(data: bytes, fps: float) -> list:
    """The animations of a written MDL (its frame groups too), for its ``.qc`` and ``.framegroups``."""
    return mdl_animations(parse_mdl(data), fps)


class EXPORT_SCENE_OT_mdl(bpy.types.Operator, FrameExportBase, EnhancedModelOption):
    """Export Quake MDL: a pose every 0.1 s of the animation, as the game plays it; paletted skins"""
    bl_idname = "export_scene.mdl"
    bl_label = "Export MDL"

    filename_ext = ".mdl"
    filter_glob: StringProperty(default="*.mdl", options={"HIDDEN"})

    target: EnumProperty(name="Limits", default="QUAKE", items=(
        ("QUAKE", "Quake", "The original engine: 1024 vertices, 2048 triangles, 256 frames, skins up to 480 high"),
        ("MODERN", "Source Ports", "The larger limits of modern source ports")))
    dither: BoolProperty(name="Dither Skins", default=False,
                         description="Floyd-Steinberg dithering when converting skins to the palette")
    palette: EnumProperty(name="Palette", default="AUTO", options={"SKIP_SAVE"}, items=palette_items(
        "The palette the model was imported with (its game folder's), else Hexen II's when it is written as "
        "RAPO, Quake's otherwise"), description="The palette skins are converted to")
    palette_path: StringProperty(name="Palette File", default="", subtype="FILE_PATH",
                                 description="A 768-byte palette lump; when set it is used whatever Palette says")
    skin_width_rule: EnumProperty(name="Skin Width", default="PAD", items=(
        ("PAD", "Pad", "Pad a skin whose width is not a multiple of 4"),
        ("REFUSE", "Refuse", "Refuse to export such a skin")))
    mdl_format: EnumProperty(name="Format", default="IDPO", items=(
        ("IDPO", "Quake (IDPO)", "The MDL every Quake engine loads: 8-bit positions, one texture coordinate "
                                 "per vertex"),
        ("MD16", "MD16 (16-bit)", "Positions on a lattice 256 times finer; only QuakeForge "
                                                   "and FTE load it"),
        ("RAPO", "Hexen II (RAPO)", "Hexen II: Portal of Praevus: texture coordinates of their "
                                                 "own, so UV seams split no vertex; Hexen II engines load it")),
        options={"SKIP_SAVE"},          # not remembered: each export starts from the model's own flavour
        description="MDL flavour to write (an imported model starts with its own)")
    enhanced_md3: BoolProperty(name="Enhanced MD3", default=False,
                               description="Also write <model>.md3 beside the MDL, frame for frame, with a "
                                           "<model>.md3_<n>.skin and TGA per MDL skin. vkQuake, ironwail and FTE "
                                           "draw it in place of progs/<model>.mdl; DarkPlaces does not (it draws "
                                           "the file the game names)")
    player_colours: EnumProperty(name="Player Colours", default="AUTO", items=(
        ("AUTO", "Auto", "A player model when it is named 'player' (player.mdl) and its imported skin, if any, "
                         "uses indices 16-31 or 96-111"),
        ("ON", "Player", "New skin colours may use 16-31 and 96-111, which Quake recolours to a player's shirt "
                         "and pants colours"),
        ("OFF", "Not a Player", "New skin colours are kept out of 16-31 and 96-111")),
        description="Quake recolours indices 16-31 (shirt) and 96-111 (pants) on players; unchanged imported "
                    "pixels always keep their indices")

    def invoke(self, context, event):
        if not self.properties.is_property_set("mdl_format"):
            meshes = [o for o in export_objects(self, context) if o.type == "MESH"]
            if meshes:
                self.mdl_format = export_variant(meshes[0], "")
        if not self.properties.is_property_set("palette") and self.mdl_format == "RAPO":
            self.palette = "HEXEN2"
        return super().invoke(context, event)

    def execute(self, context):
        chosen = self.mdl_format if self.properties.is_property_set("mdl_format") else ""
        options = MdlExportOptions(**self.frame_options(), **self.enhanced_options(), target=self.target, dither=self.dither,
                                   palette=chosen_palette(self),
                                   palette_path=self.palette_path,
                                   skin_width_rule=self.skin_width_rule, mdl_format=chosen,
                                   player_colours=self.player_colours, file_name=Path(self.filepath).name)
        exporter = WithEnhancedMd3(export_mdl) if self.enhanced_md3 else export_mdl
        return export_file(self, context, self.with_frame_scripts(context, exporter, _animations), options)

    def draw(self, context):
        draw_export(self, self.layout, context)


OPERATOR = EXPORT_SCENE_OT_mdl
