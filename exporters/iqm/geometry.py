"""The meshes of an IQM export: triangles and vertex arrays from the evaluated meshes, in the rest pose.

- The armature is put in its rest position while the meshes are read (modifiers and shape keys
  evaluated as Blender shows them), then put back; positions and normals go to the model's space.
- One IQM mesh per object and material slot its triangles use, named after the object, its material the
  slot's material name (DarkPlaces ``Mod_INTERQUAKEMODEL_Load`` looks the skin up by it); the meshes an
  import made are named as its file's meshes (:func:`.imported_parts.mesh_names`).
- A vertex is split where its corners differ in UV, corner normal (hard edges, flat faces, custom
  normals: ``Mesh.corner_normals``) or colour. Texture coordinates are ``(u, 1 - v)`` (v down, as the
  SDK's exporter writes them and DarkPlaces' ``Mod_Decompile_OBJ`` undoes). Triangles are written
  clockwise seen from the front (Blender's corners 0 2 1: "Quake winding is reversed", the SDK's
  ``blender_scene.py``; DarkPlaces' decompiler writes ``f e0 e2 e1``).
- Blend indexes and weights: ubyte x 4 (the only form DarkPlaces reads). A vertex keeps its 4 largest
  weights of deforming bones, scaled to a sum of 255 (the largest remainders rounded up, as the SDK's
  ``normalizeWeights`` ends on 255); the vertices that had more, and those that had none (tied to the
  first joint, which DarkPlaces' ``Mod_Skeletal_AddBlend`` does for a vertex of one influence), are
  counted in :class:`MeshReport`. A mesh parented to a bone (no Armature modifier) follows that bone.
- Colour: the active colour attribute, as ubyte x 4 sRGB, when a mesh has one (others white).
Blender has no bulk read of vertex-group memberships: weights are read by :func:`..vertex_weights.vertex_weights`,
every other array with ``foreach_get``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import bpy

from ...formats.message_text import quoted
from ..export_error import ExportError
from ..vertex_weights import vertex_weights

MAX_INFLUENCES = 4                  # iqm.h blend indexes/weights as DarkPlaces reads them: ubyte x 4


@dataclass
class MeshReport:
    dropped: int = 0                # vertices that had more than 4 weights
    most: int = 0                   # the most weights a vertex had
    no_uv: list[str] = field(default_factory=list)     # objects without a UV map
    unlike: dict[str, list[str]] = field(default_factory=dict)   # Armature modifier setting -> objects using it

    def lines(self) -> list[str]:
        out = []
        if self.dropped:
            out.append(f"{self.dropped} vert{'ices' if self.dropped > 1 else 'ex'} had more than {MAX_INFLUENCES} bone "
                       f"weights (up to {self.most}): the {MAX_INFLUENCES} largest kept, scaled to a sum of 1 "
                       "(IQM holds 4)")
        if self.no_uv:
            names = ", ".join(quoted(n) for n in self.no_uv[:3]) + (f" and {len(self.no_uv) - 3} more"
                                                                     if len(self.no_uv) > 3 else "")
            out.append(f"{len(self.no_uv)} object{'s' if len(self.no_uv) > 1 else ''} without a UV map ({names}): "
                       "texture coordinates written as 0 0")
        for setting, objects in self.unlike.items():
            names = ", ".join(quoted(n) for n in objects[:3]) + (f" and {len(objects) - 3} more"
                                                                  if len(objects) > 3 else "")
            out.append(f"{len(objects)} object{'s' if len(objects) > 1 else ''} ({names}) deformed with {setting}: "
                       "the engines skin IQM linearly by the vertex weights, so the game shows them otherwise")
        return out


@dataclass
class Geometry:
    """Every IQM mesh of the export, its vertices numbered on from the previous one's."""
    names: list[tuple[str, str]] = field(default_factory=list)     # (mesh name, material name)
    slots: list[tuple[bpy.types.Object, int]] = field(default_factory=list)   # (object, material slot) of each
    vertex_counts: list[int] = field(default_factory=list)
    triangle_counts: list[int] = field(default_factory=list)
    positions: list[np.ndarray] = field(default_factory=list)
    texcoords: list[np.ndarray] = field(default_factory=list)
    normals: list[np.ndarray] = field(default_factory=list)
    colours: list[np.ndarray | None] = field(default_factory=list)
    indexes: list[np.ndarray] = field(default_factory=list)
    weights: list[np.ndarray] = field(default_factory=list)
    triangles: list[np.ndarray] = field(default_factory=list)     # file numbering
    sources: list[np.ndarray] = field(default_factory=list)       # the object's vertex of each vertex
    report: MeshReport = field(default_factory=MeshReport)

    def joined(self, name: str, width: int, dtype, fill=0) -> np.ndarray:
        parts = [np.full((n, width), fill, dtype) if a is None else a.astype(dtype)
                 for a, n in zip(getattr(self, name), self.vertex_counts)]
        return np.concatenate(parts) if parts else np.zeros((0, width), dtype)


def _get(collection, name: str, count: int, width: int, dtype=np.float32) -> np.ndarray:
    out = np.empty(count * width, dtype)
    collection.foreach_get(name, out)
    return out.reshape(count, width) if width > 1 else out


def four_weights(count: int, rows: tuple, report: MeshReport) -> tuple[np.ndarray, np.ndarray]:
    """(count, 4) ubyte joint indexes and weights (sum 255) of weight ``rows`` (vertex, joint, weight); a
    vertex without weights gets weights 0 here (:func:`tie_unweighted` ties it to the first joint, once an
    imported file's own weights of 0 have had their chance to be kept)."""
    vertex, joint, weight = (np.asarray(r) for r in rows)
    order = np.lexsort((-weight, vertex))
    vertex, joint, weight = vertex[order], joint[order], weight[order]
    per = np.bincount(vertex, minlength=count)
    rank = np.arange(len(vertex)) - (np.cumsum(per) - per)[vertex]
    report.dropped += int((per > MAX_INFLUENCES).sum())
    report.most = max(report.most, int(per.max(initial=0)))
    keep = rank < MAX_INFLUENCES
    indexes = np.zeros((count, MAX_INFLUENCES), np.int64)
    values = np.zeros((count, MAX_INFLUENCES))
    indexes[vertex[keep], rank[keep]] = joint[keep]
    values[vertex[keep], rank[keep]] = weight[keep]
    total = values.sum(axis=1)
    none = total <= 0
    indexes[none] = 0
    scaled = np.divide(values, total[:, None], out=np.zeros_like(values), where=~none[:, None]) * 255.0
    whole = np.floor(scaled + 1e-9)
    short = np.where(none, 0, 255 - whole.sum(axis=1).astype(np.int64))   # 0 to 3: up the largest remainders
    by_remainder = np.argsort(-(scaled - whole), axis=1, kind="stable")
    bump = np.arange(MAX_INFLUENCES)[None, :] < short[:, None]
    np.put_along_axis(whole, by_remainder, np.take_along_axis(whole, by_remainder, 1) + bump, 1)
    if indexes.max(initial=0) > 255:
        raise ExportError(f"a vertex is weighted to joint {int(indexes.max())}: IQM blend indexes are bytes, so only "
                          "the first 256 joints can move vertices; reorder the bones or remove some")
    return indexes.astype(np.uint8), whole.astype(np.uint8)


def tie_unweighted(indexes: np.ndarray, weights: np.ndarray) -> str | None:
    """Tie each vertex of weights 0 (no bone weight in Blender) to the first joint, weight 255, in place;
    the report's line saying how many, or None."""
    none = ~weights.any(axis=1)
    weights[none] = (255, 0, 0, 0)
    indexes[none] = 0
    count = int(none.sum())
    return f"{count} vert{'ices' if count > 1 else 'ex'} had no bone weight: tied to the first joint" if count else None


def unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_inverse=True)`` of (N, C) floats (the rows sorted column by column,
    each once, and where each row went), by one ``lexsort`` instead of sorting the rows as records (a few
    times faster). Where that could pick another row of a group than ``np.unique`` does (a NaN, or rows
    alike but for the sign of a zero), ``np.unique`` itself: the file's bytes are the same either way."""
    if not len(rows) or np.isnan(rows).any():
        return np.unique(rows, axis=0, return_inverse=True)
    order = np.lexsort(rows.T[::-1])
    ordered = np.ascontiguousarray(rows[order], np.float64)
    first = np.empty(len(rows), bool)
    first[0] = True
    first[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    group = np.cumsum(first) - 1
    unique = ordered[first]
    if (ordered.view(np.uint64) != unique.view(np.uint64)[group]).any():
        return np.unique(rows, axis=0, return_inverse=True)
    inverse = np.empty(len(rows), np.int64)
    inverse[order] = group
    return unique, inverse


def _material_name(obj: bpy.types.Object, index: int) -> str:
    slots = obj.material_slots
    material = slots[index].material if 0 <= index < len(slots) else None
    return material.name if material is not None else ""


def _colours(mesh: bpy.types.Mesh, loops: np.ndarray, corner_vertex: np.ndarray) -> np.ndarray | None:
    """(corners, 4) sRGB 0-1 of the active colour attribute at each triangle corner, or None."""
    layer = mesh.color_attributes.active_color
    if layer is None or layer.domain not in ("POINT", "CORNER"):
        return None
    values = _get(layer.data, "color_srgb", len(layer.data), 4)
    return values[loops] if layer.domain == "CORNER" else values[corner_vertex]


# Armature modifier settings the IQM skinning (blend weights, linear) does not follow
UNLIKE = (("use_deform_preserve_volume", "Preserve Volume (dual quaternions)"),
          ("use_bone_envelopes", "Bone Envelopes"), ("use_multi_modifier", "Multi Modifier"))


def _unlike(obj: bpy.types.Object, report: MeshReport) -> None:
    """Note the Armature modifier settings of ``obj`` an engine's skinning does not have."""
    for modifier in obj.modifiers:
        if modifier.type != "ARMATURE" or not modifier.show_viewport:
            continue
        used = [setting for attribute, setting in UNLIKE if getattr(modifier, attribute, False)]
        used += ["a vertex group limiting the Armature modifier"] if modifier.vertex_group else []
        for setting in used:
            if obj.name not in report.unlike.get(setting, []):
                report.unlike.setdefault(setting, []).append(obj.name)


def read_object(context, obj: bpy.types.Object, joint_of: dict[str, int], bone_joint: int | None,
                model: np.ndarray, scale: float, geometry: Geometry, armature: bool) -> None:
    """Add ``obj``'s IQM meshes (one per material slot used) to ``geometry``; read as evaluated now."""
    if armature:
        _unlike(obj, geometry.report)
    evaluated = obj.evaluated_get(context.evaluated_depsgraph_get())
    mesh = evaluated.to_mesh()
    try:
        mesh.calc_loop_triangles()
        count = len(mesh.loop_triangles)
        if not count:
            raise ExportError(f"object {quoted(obj.name)} has no faces")
        corner_vertex = _get(mesh.loop_triangles, "vertices", count, 3, np.int32).ravel().astype(np.int64)
        loops = _get(mesh.loop_triangles, "loops", count, 3, np.int32).ravel().astype(np.int64)
        materials = _get(mesh.loop_triangles, "material_index", count, 1, np.int32)
        co = _get(mesh.vertices, "co", len(mesh.vertices), 3).astype(np.float64)
        normals = _get(mesh.corner_normals, "vector", len(mesh.loops), 3).astype(np.float64)[loops]
        layer = mesh.uv_layers.active
        if layer is None:
            geometry.report.no_uv.append(obj.name)
        uv = _get(layer.uv, "vector", len(mesh.loops), 2).astype(np.float64)[loops] if layer is not None else \
            np.tile([0.0, 1.0], (len(loops), 1))           # no UV map: 0 0 in the file (v down)
        colours = _colours(mesh, loops, corner_vertex)
        rows = None
        if armature and bone_joint is None:
            rows = vertex_weights(mesh, obj, joint_of)
    finally:
        evaluated.to_mesh_clear()
    matrix = model @ np.array(obj.matrix_world, np.float64)
    linear = matrix[:3, :3] * scale
    positions = co @ linear.T + matrix[:3, 3] * scale
    with np.errstate(invalid="ignore", divide="ignore"):
        normal_matrix = np.linalg.inv(matrix[:3, :3]).T
        normals = normals @ normal_matrix.T
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.nan_to_num(normals)
    flip = np.linalg.det(matrix[:3, :3]) < 0          # a mirroring transform: faces keep facing out
    if armature:
        if bone_joint is not None:
            n = len(co)
            rows = (np.arange(n), np.full(n, bone_joint), np.ones(n))
        indexes, weights = four_weights(len(co), rows, geometry.report)
    key_columns = [corner_vertex[:, None].astype(np.float64), uv, normals.astype(np.float32).astype(np.float64)]
    if colours is not None:
        key_columns.append(colours.astype(np.float64))
    keys = np.concatenate(key_columns, axis=1)
    triangle_material = materials
    for material in np.unique(triangle_material):
        chosen = np.repeat(triangle_material == material, 3)
        unique, inverse = unique_rows(keys[chosen])
        source = unique[:, 0].astype(np.int64)
        tris = inverse.ravel().reshape(-1, 3)
        tris = tris[:, [0, 1, 2]] if flip else tris[:, [0, 2, 1]]
        geometry.names.append((obj.name, _material_name(obj, int(material))))
        geometry.slots.append((obj, int(material)))
        geometry.vertex_counts.append(len(unique))
        geometry.triangle_counts.append(len(tris))
        geometry.positions.append(positions[source])
        geometry.texcoords.append(np.stack([unique[:, 1], 1.0 - unique[:, 2]], axis=1))
        geometry.normals.append(unique[:, 3:6])
        geometry.colours.append(None if colours is None else np.rint(np.clip(unique[:, 6:10], 0, 1) * 255))
        geometry.triangles.append(tris)
        geometry.sources.append(source)
        if armature:
            geometry.indexes.append(indexes[source])
            geometry.weights.append(weights[source])


def read_geometry(context, meshes: list[bpy.types.Object], armature: bpy.types.Object | None,
                  order: list[str], model: np.ndarray, scale: float) -> Geometry:
    """Every mesh of ``meshes`` with the armature (if any) in its rest position."""
    geometry = Geometry()
    joint_of: dict[str, int] = {}
    saved = None
    if armature is not None:
        bones = armature.data.bones
        joint_of = {name: j for j, name in enumerate(order) if bones[name].use_deform}
        saved = armature.data.pose_position
        armature.data.pose_position = "REST"
        context.view_layer.update()
    try:
        for obj in meshes:
            rigid = obj.parent is armature and obj.parent_type == "BONE" and armature is not None and \
                not any(m.type == "ARMATURE" and m.show_viewport for m in obj.modifiers)
            bone_joint = order.index(obj.parent_bone) if rigid and obj.parent_bone in order else None
            read_object(context, obj, joint_of, bone_joint, model, scale, geometry, armature is not None)
    finally:
        if armature is not None:
            armature.data.pose_position = saved
            context.view_layer.update()
    return geometry
