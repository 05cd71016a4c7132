"""Triangle meshes built with ``foreach_set`` (no per-vertex Python), shared by MD2 and MDL: the faces
Blender can have, the mesh and its custom normals."""
from __future__ import annotations

import numpy as np

import bpy

from ..common.triangle_mesh import build_triangle_mesh  # noqa: F401  (the importers' name for it)
from ..formats.triangles import drop_degenerate


def faced_triangles(label: str, triangles: np.ndarray, warnings: list[str]) -> np.ndarray:
    """Which of ``triangles`` (T, 3) Blender can have a face for (:func:`...formats.triangles.drop_degenerate`);
    one warning in ``warnings`` counts the others, which the import keeps for export."""
    keep = drop_degenerate(triangles)
    if not keep.all():
        warnings.append(f"{label}: {int((~keep).sum())} triangle(s) use a vertex twice: Blender has no face for "
                        "them; they are kept for export")
    return keep


def set_custom_normals(mesh: bpy.types.Mesh, vertex_normals: np.ndarray) -> None:
    """Use ``vertex_normals`` (num_vertices, 3) as the mesh's custom normals."""
    mesh.normals_split_custom_set_from_vertices(
        [tuple(n) for n in np.asarray(vertex_normals, dtype=np.float64)])
