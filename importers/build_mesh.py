"""Triangle meshes built with ``foreach_set`` (no per-vertex Python), shared by MD2 and MDL."""
from __future__ import annotations

import numpy as np
import bpy

from ..common.triangle_mesh import build_triangle_mesh  # noqa: F401  (the importers' name for it)


def set_custom_normals(mesh: bpy.types.Mesh, vertex_normals: np.ndarray) -> None:
    """Use ``vertex_normals`` (num_vertices, 3) as the mesh's custom normals."""
    mesh.normals_split_custom_set_from_vertices(
        [tuple(n) for n in np.asarray(vertex_normals, dtype=np.float64)])
