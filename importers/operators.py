"""What every File > Import operator shares (the file, scene timing, the frame formats' options); each
format's own operator is ``importers/<fmt>/operator.py``, named by its row in ``formats/table.py``."""
from __future__ import annotations

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, FloatProperty, StringProperty

from bpy_extras.io_utils import ImportHelper

from ..common.dialog_layout import region_current
from .scene_timing import SCENE_TIMING_ITEMS


def animations_property() -> EnumProperty:
    """The *Animations* option of the vertex-animation imports (MD2, MDL, MD3)."""
    return EnumProperty(name="Animations", default="TIMELINE", items=(
        ("TIMELINE", "Timeline", "The whole file on the timeline, a marker at each animation"),
        ("ACTIONS", "Actions", "One shape-key action per animation (MDL: per frame group; MD3: per animation.cfg "
                               "animation, its tags' actions beside), each from frame 1; the sidebar's animation "
                               "list switches between them")),
        description="How the file's animations are laid out in Blender")


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
    animations: animations_property()

    def frame_options(self) -> dict:
        return {"scale": self.scale, "use_file_normals": self.use_file_normals, "load_skins": self.load_skins,
                "animations": self.animations, "scene_timing": self.scene_timing}


def operator_classes(rows) -> tuple[type, ...]:
    """The import operator class of each row (its ``importer`` module's ``OPERATOR``)."""
    from ..formats.table import resolve
    return tuple(resolve(row.importer).OPERATOR for row in rows if row.importer)

