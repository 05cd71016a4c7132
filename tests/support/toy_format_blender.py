"""The toy format's File > Import and File > Export operators (see toy_format): the importer makes one
mesh of the file's triangles, the exporter writes the evaluated meshes of the scene."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import bpy
from bpy.props import StringProperty

from .toy_format import parse_toy, serialize_toy


@dataclass
class ToyResult:
    objects: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    infos: list = field(default_factory=list)


def import_toy(context, source, options) -> ToyResult:
    """One mesh object from ``source`` (a path, or an archive member with ``read()``)."""
    data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
    positions, corners = parse_toy(data)
    name = Path(getattr(source, "member", str(source))).stem
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(positions.tolist(), [], corners.tolist())
    mesh.uv_layers.new(name="UVMap")          # every texture coordinate (0, 0): the toy stores none
    obj = bpy.data.objects.new(name, mesh)
    context.scene.collection.objects.link(obj)
    return ToyResult([obj])


class IMPORT_SCENE_OT_toy(bpy.types.Operator):
    """Import a toy model"""
    bl_idname = "import_scene.toy"
    bl_label = "Import Toy"
    filepath: StringProperty(subtype="FILE_PATH")

    def import_options(self, exclude=()):
        return {}

    def execute(self, context):
        import_toy(context, Path(self.filepath), {})
        return {"FINISHED"}


class EXPORT_SCENE_OT_toy(bpy.types.Operator):
    """Export the scene's meshes as one toy model"""
    bl_idname = "export_scene.toy"
    bl_label = "Export Toy"
    filepath: StringProperty(subtype="FILE_PATH")
    check_existing: bpy.props.BoolProperty(default=True)
    use_selection: bpy.props.BoolProperty(default=False)

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
        Path(self.filepath).write_bytes(serialize_toy(np.concatenate(positions or [np.zeros((0, 3))]),
                                                      np.concatenate(corners or [np.zeros((0, 3), int)])))
        return {"FINISHED"}


class importer:          # the row's importer entry (support.toy_format_blender:importer)
    OPERATOR = IMPORT_SCENE_OT_toy
    IMPORTER = import_toy


class exporter:          # the row's exporter entry
    OPERATOR = EXPORT_SCENE_OT_toy
