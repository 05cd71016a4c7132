"""File > Export operators (also used as Collection Exporters). Properties -> options -> one call."""
from __future__ import annotations

from pathlib import Path

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, orientation_helper

from ..common.mdl_skins import chosen_palette, palette_items
from .md2.build import Md2ExportOptions
from .md2.export import export_md2
from .mdl.build import MdlExportOptions
from .mdl.export import export_mdl
from .mdl.variant import export_variant
from .ms3d.build import Ms3dExportOptions
from .ms3d.export import export_ms3d
from .sampling.action_list import listed_actions, sync_action_list
from .sampling.action_sampling import find_actions, standard_rule
from .md2.player import PLAYER_BODY_FILE, export_md2_player
from .dialogs import draw_md2_export, draw_mdl_export, draw_ms3d_export
from .game_path import export_dialog_path, loose_export_path
from .frame_scripts import WithFrameScripts, frame_rate
from .run_export import archive_source, export_file, export_objects, loose_source


MATERIALS_ITEMS = (
    ("ONE_SKIN", "One Skin", "The game draws one skin on every face: pack the images of the materials the faces "
                             "use into one skin, each face's UVs moved into its image's cell"),
    ("ALTERNATE", "Alternate Skins", "One skin per material, for materials that are alternatives (team colours); "
                                     "the game draws one of them on every face"))


class ExportOperatorBase(ExportHelper):
    bl_options = {"REGISTER", "PRESET"}

    filepath: StringProperty(name="File Path", description="The file to write", maxlen=1024, subtype="FILE_PATH",
                             options={"SKIP_SAVE", "SKIP_PRESET"})     # a preset must not rename the export
    use_selection: BoolProperty(name="Selected Only", default=True,
                                description="Export the selected objects only (else every visible object)")
    collection: StringProperty(name="Collection", default="",
                               description="Export the objects of this collection (used by Collection Exporters)")
    game_folder_path: StringProperty(
        name="Subfolders", default="", options={"SKIP_SAVE", "SKIP_PRESET"},
        description="Folders under the chosen folder the file goes into (created when missing), e.g. players/male; "
                    "set to the archive member's folders for a model imported from a game archive")

    def invoke(self, context, event):
        objects = export_objects(self, context)
        source = archive_source(context, objects)
        if source is not None:
            self.filepath, self.game_folder_path = export_dialog_path(self.filepath, *source, self.filename_ext)
        elif (loose := loose_source(context, objects)) is not None:
            self.filepath = loose_export_path(self.filepath, loose, self.filename_ext)
        return super().invoke(context, event)


class FrameExportBase(ExportOperatorBase):
    """Options of the vertex-animation formats (MD2, MDL): where frames come from, scale, transform."""
    frame_source: EnumProperty(name="Frames", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "One frame per scene frame of the scene range"),
        ("SHAPE_KEYS", "Shape Keys", "One frame per shape key after Basis"),
        ("ACTIONS", "Actions", "Each action animating the objects (their own, their armature's, their shape "
                               "keys'), over its own frame range, in the order of the list; frames <action><nn>")))
    frame_rate: EnumProperty(name="Frame Rate", default="GAME", items=(
        ("GAME", "Game (10 fps)", "Sample the animation every 0.1 s of scene time (subframes where the scene "
                                         "rate is not a multiple of 10), so Quake and Quake II, which play 10 model "
                                         "frames a second, play it as long as Blender does"),
        ("SCENE", "Every Frame", "One frame per scene frame: at another scene rate than 10 fps the game "
                                       "plays the animation faster or slower than Blender")),
        description="Timeline and Actions: how often frames are sampled (Shape Keys: one per key, always)")
    step: IntProperty(name="Step", default=1, min=1, max=100,
                      description="Actions: write every Nth frame of each action (its last frame always)")
    scale: FloatProperty(name="Scale", default=1.0, min=1e-4, max=1e4, soft_min=0.001, soft_max=100.0,
                         description="Multiply coordinates before writing")
    apply_transform: BoolProperty(name="Apply Transform", default=True,
                                  description="Write world-space coordinates (object location, rotation, scale)")
    split_normals: BoolProperty(name="Split Normals", default=False,
                                description="Flat faces and sharp edges (and split custom normals) become copies "
                                            "of their vertices with their own normals, so the game lights them "
                                            "as Blender shades them; costs vertices (the report says how many)")

    materials: EnumProperty(name="Materials", default="ONE_SKIN", items=MATERIALS_ITEMS,
                            description="What several materials on the faces become: one packed skin, or "
                                        "alternative skins")
    fit_names: BoolProperty(name="Fit Names", default=False,
                            description="Shorten frame names (and MD2 skin names) that do not fit their field "
                                        "instead of refusing the export: a frame name keeps its number, so "
                                        "animations stay grouped; the report lists what was shortened")
    keep_still_frames: BoolProperty(name="Keep Still Frames", default=False,
                                    description="Timeline: write every sampled frame even when the model does not "
                                                "move (by default a model whose frames are all identical and that "
                                                "has no animation is written as one frame)")
    write_qc: BoolProperty(name="QuakeC Frames", default=False,
                           description="Also write <model>.qc beside the model: one $frame line per animation, "
                                       "in file order, with the frame names as written, for the QuakeC code")
    write_framegroups: BoolProperty(name="Frame Groups File", default=False,
                                    description="Also write <model file>.framegroups beside the model "
                                                "(first pose, poses, rate, loop, name per animation), so "
                                                "DarkPlaces and FTE play the animations as their own frames")

    def with_frame_scripts(self, context, exporter):
        """``exporter``, followed by the ``.qc`` / ``.framegroups`` files asked for."""
        return WithFrameScripts(exporter, self.write_qc, self.write_framegroups,
                                frame_rate(context, self.frame_source, self.frame_rate))

    def frame_options(self) -> dict:
        return {"frame_source": self.frame_source, "scale": self.scale, "apply_transform": self.apply_transform,
                "step": self.step, "actions": listed_actions(bpy.context.scene), "frame_rate": self.frame_rate,
                "split_normals": self.split_normals, "materials": self.materials, "fit_names": self.fit_names,
                "keep_still_frames": self.keep_still_frames}

    def standard_actions(self) -> str:
        """How actions named after Quake II's player animations are ordered (see find_actions)."""
        return ""

    def invoke(self, context, event):
        meshes = [o for o in export_objects(self, context) if o.type == "MESH"]
        order = standard_rule(meshes, self.standard_actions())
        sync_action_list(context.scene, [action.name for action, _ in find_actions(meshes, order)],
                         player=order == "PLAYER")
        return super().invoke(context, event)


class EXPORT_SCENE_OT_md2(bpy.types.Operator, FrameExportBase):
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
        options = Md2ExportOptions(**self.frame_options(), grid=self.grid, skins=self.skins, skin_path=self.skin_path,
                                   dither=self.dither, icons=self.icons)
        if self.player:      # a folder: tris.md2 and the weapon models next to it
            self.filepath = str(Path(self.filepath).with_name(PLAYER_BODY_FILE))
        return export_file(self, context, self.with_frame_scripts(
            context, export_md2_player if self.player else export_md2), options)

    def draw(self, context):
        draw_md2_export(self, self.layout, context)


class EXPORT_SCENE_OT_mdl(bpy.types.Operator, FrameExportBase):
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
        options = MdlExportOptions(**self.frame_options(), target=self.target, dither=self.dither,
                                   palette=chosen_palette(self),
                                   palette_path=self.palette_path,
                                   skin_width_rule=self.skin_width_rule, mdl_format=chosen,
                                   player_colours=self.player_colours, file_name=Path(self.filepath).name)
        return export_file(self, context, self.with_frame_scripts(context, export_mdl), options)

    def draw(self, context):
        draw_mdl_export(self, self.layout, context)


@orientation_helper(axis_forward="-Z", axis_up="Y")
class EXPORT_SCENE_OT_ms3d(bpy.types.Operator, ExportOperatorBase):
    """Export MilkShape 3D: mesh objects as groups, their materials, the armature's joints and keys"""
    bl_idname = "export_scene.ms3d"
    bl_label = "Export MS3D"

    filename_ext = ".ms3d"
    filter_glob: StringProperty(default="*.ms3d", options={"HIDDEN"})

    animation: EnumProperty(name="Animation", default="KEYS", items=(
        ("KEYS", "Keyframes", "A key where the action has one (rotation and location channels per bone)"),
        ("BAKE", "Bake", "A key on every scene frame, from the evaluated pose (constraints included)")))
    tolerance: FloatProperty(
        name="Tolerance", default=0.1, min=0.0, max=100.0, soft_max=5.0, precision=3, subtype="PERCENTAGE",
        description="Keyframes: add keys where MilkShape's playback (slerp, linear or Hermite positions) would "
                    "move the mesh farther than this from Blender's pose at any scene frame, in % of the model's "
                    "size (largest side of its bounding box); 0 = a key on every frame, as Bake")
    textures: EnumProperty(name="Textures", default="COPY", items=(
        ("COPY", "Copy", "Copy each material's image beside the model (PNG when it exists only in Blender); "
                         "the file stores its bare name"),
        ("NAMES", "Names Only", "Store the texture names and write no image files")))

    def execute(self, context):
        options = Ms3dExportOptions(axis_forward=self.axis_forward, axis_up=self.axis_up, animation=self.animation,
                                    textures=self.textures, tolerance=self.tolerance)
        return export_file(self, context, export_ms3d, options)

    def draw(self, context):
        draw_ms3d_export(self, self.layout, context)


from .md3.operator import OPERATOR as EXPORT_SCENE_OT_md3  # noqa: E402  (it subclasses FrameExportBase)

CLASSES = (EXPORT_SCENE_OT_md2, EXPORT_SCENE_OT_mdl, EXPORT_SCENE_OT_md3, EXPORT_SCENE_OT_ms3d,)
