"""MD3 surfaces -> Blender meshes: one mesh object per surface, a shape key per frame.

Vertex i of the surface is mesh vertex i at ``xyz / 64`` (:func:`...formats.md3.vertices.decode_xyz`);
triangle i is polygon i with its corners reversed: Quake III draws its models with
``GL_Cull(CT_FRONT_SIDED)``, which culls ``GL_FRONT`` (ioquake3 renderergl1 tr_backend.c), so the
faces it shows are the file's clockwise ones, and the normals the file stores point to the side
that order makes the back (checked on every corpus file: once reversed, nearly every face agrees with
its vertices' stored normals). The surface's st pair is the UV of every corner of that vertex, with
``v = 1 - t`` (t grows downward in the image, tr_surface.c hands st to GL unchanged). The file's
normals of frame 0, decoded as the renderer decodes them, become custom normals (MD3 surfaces repeat
vertices along UV seams: Blender's own normals would show the seams). The records are kept on the
mesh as the file's bytes (common/contract.py, ``# MD3``).
"""
from __future__ import annotations

import numpy as np
import bpy

from ...common.contract import (DEGENERATE_MD3, MD3_DEGENERATE, MD3_SHADERS, MD3_ST, MD3_SURFACE,
                                MD3_SURFACE_INDEX, MD3_XYZ_NORMALS)
from ...common.file_counts import record_counts
from ...common.made_names import mark_made
from ...formats.md3.records import SHADER, ST, SURFACE, XYZ_NORMAL, Md3Model, Md3Surface
from ...formats.md3.vertices import decode_normals, decode_xyz
from ..build_mesh import build_triangle_mesh, faced_triangles


def surface_positions(surface: Md3Surface, scale: float) -> np.ndarray:
    """(F, V, 3) float32 positions of every frame."""
    positions = decode_xyz(surface.xyz)
    return positions * np.float32(scale) if scale != 1.0 else positions


def surface_uvs(surface: Md3Surface, corners: np.ndarray) -> np.ndarray:
    """(len(corners) * 3, 2) UVs of the given corners: (s, 1 - t)."""
    st = surface.st[corners.reshape(-1)].astype(np.float64)
    return np.column_stack([st[:, 0], 1.0 - st[:, 1]]).astype(np.float32)


def surface_records(data: bytes, model: Md3Model, index: int) -> dict[str, bytes]:
    """The surface's header, shader, st and xyz-normal records as the file holds them."""
    where = model.layout.surfaces[index]
    surface = model.surfaces[index]
    start = where["start"]

    def block(offset: str, size: int) -> bytes:
        return bytes(data[start + where[offset]:start + where[offset] + size])

    return {MD3_SURFACE: bytes(data[start:start + SURFACE.itemsize]),
            MD3_SHADERS: block("ofs_shaders", len(surface.shaders) * SHADER.itemsize),
            MD3_ST: block("ofs_st", surface.num_verts * ST.itemsize),
            MD3_XYZ_NORMALS: block("ofs_xyznormals", surface.num_frames * surface.num_verts * XYZ_NORMAL.itemsize)}


def build_surface(data: bytes, model: Md3Model, index: int, label: str, scale: float, file_normals: bool,
                  warnings: list[str]) -> tuple[bpy.types.Object, np.ndarray]:
    """The surface's mesh object (not linked) and its (F, V, 3) positions."""
    surface = model.surfaces[index]
    positions = surface_positions(surface, scale)
    triangles = np.asarray(surface.triangles, dtype=np.int64).reshape(-1, 3)
    keep = faced_triangles(f"{label} surface {surface.name}", triangles, warnings)
    corners = triangles[keep][:, ::-1]
    mesh = build_triangle_mesh(surface.name or f"surface_{index}", positions[0], corners,
                               surface_uvs(surface, corners))
    if file_normals and surface.num_verts and len(corners):
        normals = decode_normals(surface.normal[0]).astype(np.float64)     # the sine table's are not unit:
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)          # Blender 4.2 would store them tilted
        mesh.normals_split_custom_set_from_vertices(normals)
    for key, value in surface_records(data, model, index).items():
        mesh[key] = value
    if not keep.all():
        kept = np.zeros(int((~keep).sum()), dtype=DEGENERATE_MD3)
        kept["index"], kept["indexes"] = np.flatnonzero(~keep), triangles[~keep]
        mesh[MD3_DEGENERATE] = kept.tobytes()
    record_counts(mesh, vertices=surface.num_verts, triangles=len(triangles), frames=model.num_frames,
                  shaders=len(surface.shaders))
    obj = bpy.data.objects.new(mesh.name, mesh)
    mark_made(obj)
    obj[MD3_SURFACE_INDEX] = index
    return obj, positions
