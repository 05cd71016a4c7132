"""What every File > Export operator shares (also used as Collection Exporters): the file, the objects, the
frame formats' options. Each format's own operator is ``exporters/<fmt>/operator.py``, named by its row in
``formats/table.py``: properties -> options -> one call of its ``export.py``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, IntProperty, StringProperty

from bpy_extras.io_utils import ExportHelper

from .frame_scripts import WithFrameScripts, frame_rate
from .game_path import export_dialog_path, loose_export_path
from .run_export import archive_source, export_objects, loose_source
from .sampling.action_list import listed_actions, sync_action_list
from .sampling.action_sampling import find_actions, standard_rule

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


class SampledExportBase(ExportOperatorBase):
    """What every sampled export (MD2, MDL, MD5) asks: where frames come from, their rate, scale, transform."""
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

    keep_still_frames: BoolProperty(name="Keep Still Frames", default=False,
                                    description="Timeline: write every sampled frame even when the model does not "
                                                "move (by default a model whose frames are all identical and that "
                                                "has no animation is written as one frame)")

    def sampling_options(self) -> dict:
        return {"frame_source": self.frame_source, "scale": self.scale, "apply_transform": self.apply_transform,
                "step": self.step, "actions": listed_actions(bpy.context.scene), "frame_rate": self.frame_rate,
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


class FrameExportBase(SampledExportBase):
    """Options of the vertex-animation formats (MD2, MDL, MD3): the sampled exports' and normals, materials,
    names and the frame scripts."""
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
    write_qc: BoolProperty(name="QuakeC Frames", default=False,
                           description="Also write <model>.qc beside the model: one $frame line per animation, "
                                       "in file order, with the frame names as written, for the QuakeC code")
    write_framegroups: BoolProperty(name="Frame Groups File", default=False,
                                    description="Also write <model file>.framegroups beside the model "
                                                "(first pose, poses, rate, loop, name per animation), so "
                                                "DarkPlaces and FTE play the animations as their own frames")

    def with_frame_scripts(self, context, exporter, read_animations):
        """``exporter``, followed by the ``.qc`` / ``.framegroups`` files asked for, from the animations
        ``read_animations(data, fps)`` finds in the file written."""
        return WithFrameScripts(exporter, self.write_qc, self.write_framegroups,
                                frame_rate(context, self.frame_source, self.frame_rate), read_animations)

    def frame_options(self) -> dict:
        return {**self.sampling_options(), "split_normals": self.split_normals, "materials": self.materials,
                "fit_names": self.fit_names}


class EnhancedModelOption:
    """*Enhanced Model* (MD2 and MDL): also write the MD5 twin, from the same frames."""
    enhanced: BoolProperty(name="Enhanced Model (MD5)", default=False,
                           description="Also write the model's MD5 twin from the same frames, where the source ports "
                                       "load it: progs/x.md5mesh, x.md5anim and x_00_00.lmp skins beside an MDL "
                                       "(Quake re-release), md5/tris.md5mesh and md5anim with the skins under md5/ "
                                       "beside an MD2 (Quake II remaster); needs an armature deforming the mesh")

    def enhanced_options(self) -> dict:
        return {"enhanced": enhanced_model(self.enhanced)}


def enhanced_model(wanted: bool):
    """The MD5 twin's writer the MDL and MD2 exports call for *Enhanced Model* (None: not wanted)."""
    if not wanted:
        return None
    from .md5.twin import ENHANCED
    return ENHANCED


def operator_classes(rows) -> tuple[type, ...]:
    """The export operator class of each row (its ``exporter`` module's ``OPERATOR``)."""
    from ..formats.table import resolve
    return tuple(resolve(row.exporter).OPERATOR for row in rows if row.exporter)

