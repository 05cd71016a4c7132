"""Triangles, corners and UVs of a mesh object as numpy arrays (triangulated as Blender does)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bpy

from .frame_sampling import has_active_modifiers
from .shading import Shading, read_shading
from .topology_change import TopologyAt


@dataclass
class Topology:
    num_vertices: int
    triangles: np.ndarray              # (T, 3) vertex indices, counter-clockwise (Blender order)
    corner_uvs: np.ndarray | None      # (T, 3, 2) float64 UVs of each triangle corner
    int_attributes: dict[str, np.ndarray]  # integer attributes by name: corner (T, 3), face (T,), point (V,)
    at: TopologyAt                     # its vertex and face counts and the scene frame it was read at
    material_index: np.ndarray | None = None  # (T,) material slot of each triangle
    shading: Shading | None = None     # polygons and corner normals, for normals as Blender shades them


def _read_topology(mesh: bpy.types.Mesh, int_attributes: tuple[str, ...], frame: float) -> Topology:
    mesh.calc_loop_triangles()
    count = len(mesh.loop_triangles)
    tris = np.empty(count * 3, dtype=np.int32)
    loops = np.empty(count * 3, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", tris)
    mesh.loop_triangles.foreach_get("loops", loops)
    uvs = None
    layer = mesh.uv_layers.active
    if layer is not None:
        flat = np.empty(len(mesh.loops) * 2, dtype=np.float32)
        layer.uv.foreach_get("vector", flat)
        uvs = flat.reshape(-1, 2)[loops].reshape(count, 3, 2).astype(np.float64)
    extra = {}
    polygons = None
    for name in int_attributes:
        attr = mesh.attributes.get(name)
        if attr is None or attr.data_type != "INT" or attr.domain not in ("CORNER", "FACE", "POINT"):
            continue
        values = np.empty(len(attr.data), dtype=np.int32)
        attr.data.foreach_get("value", values)
        if attr.domain == "CORNER":
            extra[name] = values[loops].reshape(count, 3)
        elif attr.domain == "FACE":
            if polygons is None:
                polygons = np.empty(count, dtype=np.int32)
                mesh.loop_triangles.foreach_get("polygon_index", polygons)
            extra[name] = values[polygons]
        else:
            extra[name] = values
    material_index = np.empty(count, dtype=np.int32)
    mesh.loop_triangles.foreach_get("material_index", material_index)
    return Topology(len(mesh.vertices), tris.reshape(count, 3), uvs, extra,
                    TopologyAt(frame, len(mesh.vertices), len(mesh.polygons)), material_index=material_index,
                    shading=read_shading(mesh, loops))


def object_topology(context: bpy.types.Context, obj: bpy.types.Object,
                    int_attributes: tuple[str, ...] = ()) -> Topology:
    """Topology of ``obj`` as exported: the evaluated mesh (at the current frame) when modifiers are active."""
    frame = context.scene.frame_current + context.scene.frame_subframe
    if not has_active_modifiers(obj):
        return _read_topology(obj.data, int_attributes, frame)
    obj_eval = obj.evaluated_get(context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    try:
        return _read_topology(mesh, int_attributes, frame)
    finally:
        obj_eval.to_mesh_clear()
