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
mesh as the file's bytes (common/md3/contract.py).
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.contract import DEGENERATE_MD3
from ...common.file_counts import record_counts
from ...common.generated_names import mark_made
from ...common.import_shading import record_import_shading
from ...common.md3.contract import MD3_DEGENERATE, MD3_SHADERS, MD3_ST, MD3_SURFACE, MD3_SURFACE_INDEX, MD3_XYZ_NORMALS
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


def build_surface(data: bytes, model: Md3Model, index: int | list[int], label: str, scale: float,
                  file_normals: bool, warnings: list[str], name: str = "") -> tuple[bpy.types.Object, np.ndarray]:
    """The mesh object (not linked) of surface ``index``, or of the surfaces ``index`` lists merged into
    one mesh (``name``; surface k of the list is material slot k, :mod:`...common.md3.surfaces`), and
    its (F, V, 3) positions."""
    indices = [index] if isinstance(index, int) else list(index)
    parts = [_surface_part(model, i, label, scale, warnings) for i in indices]
    vertex_starts = np.cumsum([0] + [model.surfaces[i].num_verts for i in indices])
    triangle_starts = np.cumsum([0] + [len(p[1]) for p in parts])
    positions = np.concatenate([p[0] for p in parts], axis=1)
    corners = np.concatenate([p[1][p[2]][:, ::-1] + v for p, v in zip(parts, vertex_starts)])
    uvs = np.concatenate([surface_uvs(model.surfaces[i], p[1][p[2]][:, ::-1]) for p, i in zip(parts, indices)])
    surface = model.surfaces[indices[0]]
    mesh = build_triangle_mesh(name or surface.name or f"surface_{indices[0]}", positions[0], corners, uvs)
    if len(indices) > 1:
        slots = np.repeat(np.arange(len(indices), dtype=np.int32), [int(p[2].sum()) for p in parts])
        mesh.polygons.foreach_set("material_index", slots)
    if file_normals and len(positions[0]) and len(corners):
        normals = np.concatenate([decode_normals(model.surfaces[i].normal[0]) for i in indices]).astype(np.float64)
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)          # the sine table's are not unit:
        mesh.normals_split_custom_set_from_vertices(normals)               # Blender 4.2 would store them tilted
    record_import_shading(mesh)
    records = [surface_records(data, model, i) for i in indices]
    for key in records[0]:
        mesh[key] = b"".join(r[key] for r in records)
    degenerate = [(np.flatnonzero(~p[2]) + t, p[1][~p[2]] + v)
                  for p, t, v in zip(parts, triangle_starts, vertex_starts) if not p[2].all()]
    # a surface of vertices and no triangle keeps none (present, empty): the export samples its vertices
    if degenerate or (len(positions[0]) and not len(corners)):
        kept = np.zeros(sum(len(d[0]) for d in degenerate), dtype=DEGENERATE_MD3)
        if degenerate:
            kept["index"] = np.concatenate([d[0] for d in degenerate])
            kept["indexes"] = np.concatenate([d[1] for d in degenerate])
        mesh[MD3_DEGENERATE] = kept.tobytes()
    record_counts(mesh, vertices=int(vertex_starts[-1]), triangles=int(triangle_starts[-1]), frames=model.num_frames,
                  shaders=sum(len(model.surfaces[i].shaders) for i in indices))
    obj = bpy.data.objects.new(mesh.name, mesh)
    mark_made(obj)
    obj[MD3_SURFACE_INDEX] = indices[0]
    return obj, positions


def _surface_part(model: Md3Model, index: int, label: str, scale: float,
                  warnings: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Surface ``index``'s (F, V, 3) positions, (T, 3) file triangles and which of them get a face."""
    surface = model.surfaces[index]
    triangles = np.asarray(surface.triangles, dtype=np.int64).reshape(-1, 3)
    keep = faced_triangles(f"{label} surface {surface.name}", triangles, warnings)
    return surface_positions(surface, scale), triangles, keep
