"""IQM meshes -> Blender mesh objects: one per IQM mesh (``iqmmesh``: ``first_vertex``, ``num_vertexes``,
``first_triangle``, ``num_triangles``, a name and a material, offsets into the text).

Vertex i of the object is the file's vertex ``first_vertex + i`` at its position (the bind pose, model
space: IQM is Z-up as Blender); polygon i is the mesh's triangle i with its corners reversed: IQM
triangles are clockwise seen from the front, as the Quake engines draw them (every triangle of the
corpus's files faces its vertices' stored normals that way), Blender's faces counter-clockwise. UV
``(u, 1 - v)`` (IQM's v runs down the image, as the SDK's Blender exporter writes ``1 - v``); the normal
array as custom normals; the colour array (ubyte or float x 4) as the float colour attribute ``Color``
of the points; the blend arrays as vertex groups (:func:`.iqm_rig.assign_weights`). Triangles that use a
vertex twice have no face; triangles naming a vertex outside the mesh's range are left out (a warning:
DarkPlaces' ``Mod_ValidateElements`` replaces such indexes too).
"""
from __future__ import annotations

import numpy as np

import bpy

from ...common.generated_names import mark_made
from ...common.iqm.contract import IQM_MERGED, IQM_MESH_INDEX
from ...common.triangle_mesh import build_triangle_mesh
from ...formats.iqm.animation import vertex_values
from ...formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS, COLOR, NORMAL, POSITION, TEXCOORD, IqmModel
from ..build_mesh import faced_triangles, set_custom_normals
from .iqm_rig import assign_weights

COLOR_ATTRIBUTE = "Color"


def _rows(values: np.ndarray | None, first: int, count: int, width: int) -> np.ndarray | None:
    if values is None or values.shape[1] < width:
        return None
    return values[first:first + count, :width]


def decoded_arrays(model: IqmModel) -> dict[int, np.ndarray | None]:
    """The vertex arrays an import reads (positions, texcoords, normals, colours, blend indexes and weights),
    each decoded once for every mesh (None where the file has no such array)."""
    return {kind: vertex_values(model, kind) for kind in (POSITION, TEXCOORD, NORMAL, COLOR, BLENDWEIGHTS, BLENDINDEXES)}


def _part(model: IqmModel, arrays: dict, index: int, label: str, warnings: list[str]) -> dict:
    """Mesh ``index``'s vertex rows (positions, texcoords, normals, colours, blend indexes and weights from
    ``arrays``, :func:`decoded_arrays`; None where the file has no such array) and its faced triangles
    (T, 3) in its own vertex numbers."""
    record = model.meshes[index]
    first, count = int(record["first_vertex"]), int(record["num_vertexes"])
    start, tris = int(record["first_triangle"]), int(record["num_triangles"])
    positions = _rows(arrays[POSITION], first, count, 3)
    triangles = model.triangles[start:start + tris].astype(np.int64) - first
    inside = ((triangles >= 0) & (triangles < count)).all(axis=1)
    if not inside.all():
        warnings.append(f"{label}: {int((~inside).sum())} triangle(s) name a vertex outside their mesh: left out")
    triangles = triangles[inside]
    keep = faced_triangles(label, triangles, warnings)
    part = {"count": count, "triangles": triangles[keep],
            "positions": np.zeros((count, 3), np.float32) if positions is None else positions,
            "texcoords": _rows(arrays[TEXCOORD], first, count, 2),
            "normals": _rows(arrays[NORMAL], first, count, 3),
            "colors": _rows(arrays[COLOR], first, count, 4), "weights": None, "indexes": None}
    if _rows(arrays[BLENDWEIGHTS], first, count, 1) is not None and \
            _rows(arrays[BLENDINDEXES], first, count, 1) is not None:
        part["weights"] = arrays[BLENDWEIGHTS][first:first + count]
        part["indexes"] = arrays[BLENDINDEXES][first:first + count]
    return part


def _joined(parts: list[dict], key: str) -> np.ndarray | None:
    """The parts' rows of ``key`` one after the other (None when the file has no such array)."""
    values = [p[key] for p in parts]
    return None if any(v is None for v in values) else np.concatenate(values)


def mesh_object(model: IqmModel, arrays: dict, indices: list[int], labels: list[str], name: str,
                materials: list[bpy.types.Material | None], bone_names: list[str],
                warnings: list[str]) -> bpy.types.Object:
    """The object of the mesh ``indices`` names (module docstring), or of the meshes it lists merged into
    one (mesh k of the list: its vertices after the previous meshes', its faces in material slot k with
    ``materials[k]``; ``IQM_MERGED`` says how many), not linked to a collection; ``arrays``: the file's
    :func:`decoded_arrays`."""
    parts = [_part(model, arrays, i, label, warnings) for i, label in zip(indices, labels)]
    starts = np.cumsum([0] + [p["count"] for p in parts])
    positions = np.concatenate([p["positions"] for p in parts]) if parts else np.zeros((0, 3), np.float32)
    corners = np.concatenate([p["triangles"][:, ::-1] + s for p, s in zip(parts, starts)]).reshape(-1, 3)
    texcoords = _joined(parts, "texcoords")
    uv = None
    if texcoords is not None:
        uv = np.column_stack([texcoords[:, 0], 1.0 - texcoords[:, 1]])[corners.ravel()]
    data = build_triangle_mesh(name, positions, corners, uv)
    if len(indices) > 1:
        slots = np.repeat(np.arange(len(indices), dtype=np.int32), [len(p["triangles"]) for p in parts])
        data.polygons.foreach_set("material_index", slots)
    normals = _joined(parts, "normals")
    if normals is not None and len(corners):
        with np.errstate(all="ignore"):
            lengths = np.linalg.norm(normals.astype(np.float64), axis=1, keepdims=True)
            lengths = np.where(np.isfinite(lengths), lengths, 0.0)
        set_custom_normals(data, np.where(lengths > 0, normals / np.where(lengths > 0, lengths, 1.0), 0.0))
    colors = _joined(parts, "colors")
    if colors is not None and len(positions):
        attribute = data.color_attributes.new(COLOR_ATTRIBUTE, "FLOAT_COLOR", "POINT")
        attribute.data.foreach_set("color_srgb", np.ascontiguousarray(colors, np.float32).ravel())
    for material in materials:
        if material is not None or len(indices) > 1:       # merged: slot k is mesh k's, even without a material
            data.materials.append(material)
    obj = bpy.data.objects.new(name, data)
    mark_made(obj)
    obj[IQM_MESH_INDEX] = indices[0]
    if len(indices) > 1:
        obj[IQM_MERGED] = len(indices)
    weights, indexes = _joined(parts, "weights"), _joined(parts, "indexes")
    outside = assign_weights(obj, bone_names, indexes, weights)
    if outside:
        warnings.append(f"{labels[0] if len(labels) == 1 else name}: {outside} weight(s) name a joint past the "
                        f"model's {len(bone_names)}: left out")
    return obj
