"""Triangle meshes built with ``foreach_set`` (no per-vertex Python): the imports' meshes, and the
meshes the Quake II player export renders its skin icons from."""
from __future__ import annotations

import numpy as np

import bpy


def build_triangle_mesh(name: str, positions: np.ndarray, corners: np.ndarray,
                        uvs: np.ndarray | None) -> bpy.types.Mesh:
    """Mesh with vertex i at ``positions[i]`` and polygon i made of ``corners[i]`` (in Blender order).

    ``uvs`` is (num_tris * 3, 2) per corner, in the same order as ``corners.ravel()``.
    Faces are smooth-shaded.
    """
    mesh = bpy.data.meshes.new(name)
    num_tris = len(corners)
    mesh.vertices.add(len(positions))
    mesh.vertices.foreach_set("co", np.ascontiguousarray(positions, dtype=np.float32).ravel())
    mesh.loops.add(num_tris * 3)
    mesh.loops.foreach_set("vertex_index", np.ascontiguousarray(corners, dtype=np.int32).ravel())
    mesh.polygons.add(num_tris)
    mesh.polygons.foreach_set("loop_start", np.arange(0, num_tris * 3, 3, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(num_tris, 3, dtype=np.int32))
    if uvs is not None:
        layer = mesh.uv_layers.new(name="UVMap")
        layer.uv.foreach_set("vector", np.ascontiguousarray(uvs, dtype=np.float32).ravel())
    mesh.polygons.foreach_set("use_smooth", np.ones(num_tris, dtype=bool))
    mesh.update()
    return mesh
