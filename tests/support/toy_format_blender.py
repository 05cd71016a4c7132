"""The toy format's File > Import and File > Export operators (see toy_format): the importer makes one
mesh of the file's triangles (*Flip Faces*: each triangle's corners reversed), the exporter writes the
evaluated meshes of the scene (*Scale*: times ``toy_scale``); its import dialog and Game Archive group
(:class:`dialog`) and its part of the sidebar (:class:`sidebar`), each named by the toy row."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import bpy
from bpy.props import BoolProperty, FloatProperty, StringProperty

from .toy_format import parse_toy, serialize_toy


@dataclass
class ToyResult:
    objects: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    infos: list = field(default_factory=list)
    files: int = 1


def import_toy(context, source, options) -> ToyResult:
    """One mesh object from ``source`` (a path, or an archive member with ``read()``)."""
    data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
    positions, corners = parse_toy(data)
    if options.get("toy_flip"):
        corners = corners[:, ::-1]
    name = Path(getattr(source, "member", str(source))).stem
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(positions.tolist(), [], corners.tolist())
    mesh.uv_layers.new(name="UVMap")          # every texture coordinate (0, 0): the toy stores none
    obj = bpy.data.objects.new(name, mesh)
    obj.classic_model.source_format = "TOY"
    context.scene.collection.objects.link(obj)
    return ToyResult([obj])


class IMPORT_SCENE_OT_toy(bpy.types.Operator):
    """Import a toy model"""
    bl_idname = "import_scene.toy"
    bl_label = "Import Toy"
    filepath: StringProperty(subtype="FILE_PATH")
    toy_flip: BoolProperty(name="Flip Faces", default=False, description="Reverse each triangle's corners")

    def import_options(self, exclude=()):
        return {"toy_flip": self.toy_flip}

    def execute(self, context):
        import_toy(context, Path(self.filepath), self.import_options())
        return {"FINISHED"}

    def draw(self, context):
        dialog.draw_import(self, self.layout, context)


class EXPORT_SCENE_OT_toy(bpy.types.Operator):
    """Export the scene's meshes as one toy model"""
    bl_idname = "export_scene.toy"
    bl_label = "Export Toy"
    filepath: StringProperty(subtype="FILE_PATH")
    check_existing: bpy.props.BoolProperty(default=True)
    use_selection: bpy.props.BoolProperty(default=False)
    toy_scale: FloatProperty(name="Scale", default=1.0, description="Multiply the positions written")

    def execute(self, context):
        depsgraph = context.evaluated_depsgraph_get()
        positions, corners = [], []
        for obj in context.scene.objects:
            if obj.type != "MESH":
                continue
            mesh = obj.evaluated_get(depsgraph).to_mesh()
            mesh.calc_loop_triangles()
            points = np.empty(len(mesh.vertices) * 3, np.float32)
            mesh.vertices.foreach_get("co", points)
            triangles = np.empty(len(mesh.loop_triangles) * 3, np.int64)
            mesh.loop_triangles.foreach_get("vertices", triangles)
            corners.append(triangles.reshape(-1, 3) + sum(len(p) for p in positions))
            positions.append(points.reshape(-1, 3))
            obj.evaluated_get(depsgraph).to_mesh_clear()
        Path(self.filepath).write_bytes(serialize_toy(np.concatenate(positions or [np.zeros((0, 3))]) * self.toy_scale,
                                                      np.concatenate(corners or [np.zeros((0, 3), int)])))
        return {"FINISHED"}


class _Section:
    """A group of the Game Archive dialog (what importers/dialogs.py reads of one: ``items``)."""

    def __init__(self, items: tuple) -> None:
        self.items = items


class dialog:            # the row's import_dialog (support.toy_format_blender:dialog)
    ARCHIVE_SECTIONS = (_Section(("toy_flip",)),)

    @staticmethod
    def draw_import(operator, layout, context) -> None:
        header, body = layout.panel("CLASSIC_MODELS_toy_import_mesh")
        header.label(text="Mesh")
        if body:
            body.prop(operator, "toy_flip")


class sidebar:           # the row's sidebar (support.toy_format_blender:sidebar)
    FRAMES_HEADER = "Frames (toy)"

    @staticmethod
    def draw_sidebar(layout, settings, obj) -> None:
        layout.box().label(text=f"Toy model: {len(obj.data.vertices)} vertices")


class importer:          # the row's importer entry (support.toy_format_blender:importer)
    OPERATOR = IMPORT_SCENE_OT_toy
    IMPORTER = import_toy


class exporter:          # the row's exporter entry
    OPERATOR = EXPORT_SCENE_OT_toy
