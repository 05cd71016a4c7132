"""MilkShape 3D MS3D -> Blender: a mesh object per group, node materials, an armature, an action.

What an import creates (all or nothing):

* A model object named after the file: the armature when the file has joints (see
  :mod:`.ms3d_armature`), else an empty. It holds the model's settings (``classic_model``: comment,
  joint size, transparency mode, alpha ref) and ``["ms3d_model"]``: version, optional blocks and
  their sub-versions, animation fields, the materials in file order, trailing bytes.
* One mesh object per group, named after it and parented to the model object, with an Armature
  modifier and one vertex group per joint when there are joints. Its vertices are the file vertices
  its triangles use, in file order; polygon i is the group's i-th triangle, corners in file order
  (MilkShape is counter-clockwise like Blender). Axes: ``(x, y, z) -> (x, -z, y)`` by default
  (``axis_conversion`` of the forward/up options). UVs ``(s, 1 - t)``; the file's per-corner
  normals become custom normals; edges between faces of different smoothing groups are sharp.
* One node material per MS3D material: base colour = diffuse, specular tint = specular, emission
  colour = emissive (strength 1), roughness = 1 - shininess / 128, alpha = transparency; the texture
  and alpha map images are looked up next to the model (by relative path, or by file name when the
  stored path is absolute or not found) and packed.

What Blender has no place for is kept for export: point attributes ``ms3d_vertex_index`` (the file
vertex), ``ms3d_vertex_flags``, ``ms3d_refcount``, ``ms3d_skin_joints`` (own joint and
``bone_ids[3]`` as four int8 in one int32), ``ms3d_skin_weights`` (``weights[3]`` as uint8),
``ms3d_extra_0``/``_1`` (vertex extras, as int32 bit patterns); face attributes
``ms3d_triangle_index``, ``ms3d_triangle_flags``, ``ms3d_smoothing_group``; corner attributes
``ms3d_normal`` (the file normal, MilkShape axes), ``ms3d_normal_shown`` (the custom normal Blender
made of it: Blender cannot hold every file normal, e.g. not on both faces of a double-sided pair) and
``ms3d_t`` (the file's t, since ``1 - (1 - t)`` is not always t in float32); ``ms3d_triangle_group``
(face, only where a triangle's group byte disagrees with its group). Datablocks get ``["ms3d_group"]``,
``["ms3d_material"]``, ``["ms3d_joint"]`` (bones) with every raw field (names as hex of their 32 bytes)
and a snapshot of the Blender values the import set, so the exporter can tell untouched values from
edited ones.
Comments are string properties ``["ms3d_comment"]`` on the group object, material and bone.
File data no object can hold is kept on the model object as raw records (``kept_*``): triangles in
no group or using a vertex twice (dropped from their group's mesh with a warning), vertices no
group uses, and comments for an item that does not exist or a second comment for the same item.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import bpy

from bpy_extras.io_utils import axis_conversion

from ...common.contract import DEFAULT_FPS, MAX_FPS, MIN_FPS
from ...common.ms3d.contract import (
    COMMENT_PROP,
    CORNER_NORMAL,
    CORNER_NORMAL_SHOWN,
    CORNER_T,
    GROUP_PROP,
    KEPT_COMMENTS,
    KEPT_MEMBERSHIPS,
    KEPT_TRIANGLE,
    KEPT_TRIANGLES,
    KEPT_VERTEX,
    KEPT_VERTICES,
    MATERIAL_PROP,
    MODEL_EXTRAS_DEFAULTS,
    MODEL_PROP,
    REFCOUNT,
    SKIN_JOINTS,
    SKIN_WEIGHTS,
    SMOOTHING_GROUP,
    TRIANGLE_FLAGS,
    TRIANGLE_GROUP,
    TRIANGLE_INDEX,
    VERTEX_EXTRA,
    VERTEX_FLAGS,
    VERTEX_INDEX,
)
from ...common.ms3d.data import material_values, principled
from ...formats.errors import FormatError
from ...formats.message_text import quoted
from ...formats.ms3d.codec import parse_ms3d
from ...formats.ms3d.joints import joint_parents, last_frame
from ...formats.ms3d.records import Ms3dMaterial, Ms3dModel
from ...formats.ms3d.rig import pack_skin, rest_matrices, vertex_influences
from ...formats.ms3d.text import NAME_ENCODINGS
from ...formats.report_lines import Message, stored_base
from ...formats.triangles import drop_degenerate
from ..build_mesh import build_triangle_mesh
from ..file_source import FoundFile, ModelSource, as_source, load_found_image, remember_source
from ..results import ImportResult
from ..scene_timing import apply_timing, plan_timing, timing_note
from ..transaction import datablock_transaction
from .ms3d_armature import animate_joints, assign_weights, build_armature, store_joint_data

MAX_FRAME = 1048574                       # Blender's last frame (MAXFRAME)


@dataclass
class Ms3dImportOptions:
    axis_forward: str = "-Z"
    axis_up: str = "Y"
    load_images: bool = True
    name_encoding: str = "AUTO"   # a key of NAME_ENCODINGS: the code page names were written in
    scene_timing: str = "AUTO"    # 'AUTO', 'SET' or 'KEEP': see scene_timing.py


def conversion_matrix(forward: str, up: str) -> np.ndarray:
    """3x3 rotation taking MilkShape coordinates (with these forward/up axes) to Blender's."""
    return np.array(axis_conversion(from_forward=forward, from_up=up), dtype=np.float64)


def read_ms3d(path: Path | ModelSource, name_encoding: str = "AUTO") -> Ms3dModel:
    source = as_source(path)
    try:
        return parse_ms3d(source.read(), NAME_ENCODINGS[name_encoding])
    except FormatError as exc:
        raise exc.with_filename(source.where)


def animation_fps(model: Ms3dModel) -> float:
    """The file's fps where Blender's scene can play it (1/1000 to 32767), else 24."""
    fps = float(model.animation_fps)
    return fps if math.isfinite(fps) and MIN_FPS <= fps <= MAX_FPS else DEFAULT_FPS


def last_key_frame(model: Ms3dModel, fps: float) -> float:
    """The latest key's scene frame; raises if a key lies beyond the frames Blender can hold."""
    latest = 1.0
    for joint in model.joints:
        for kind, keys in (("rotation", joint.rot_keys), ("position", joint.pos_keys)):
            if not len(keys):
                continue
            frames = keys[:, 0].astype(np.float64) * fps
            worst = int(np.argmax(np.abs(frames)))
            if abs(frames[worst]) > MAX_FRAME:
                raise FormatError(f"joint {quoted(joint.name)} has a {kind} key at {keys[worst, 0]:g} s, frame "
                                  f"{frames[worst]:.6g} at {fps:g} fps: beyond Blender's frame {MAX_FRAME}",
                                  field=f"joint {joint.name} {kind} keys")
            latest = max(latest, float(frames.max()))
    return latest


def _image_node(tree: bpy.types.NodeTree, image: bpy.types.Image, location: tuple[float, float]) -> bpy.types.Node:
    node = tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    node.location = location
    return node


def build_material(source: Ms3dMaterial, index: int, images: dict, comment) -> bpy.types.Material:
    """A node material for ``source``; ``images`` maps "texture"/"alphamap" to a loaded image or None."""
    material = bpy.data.materials.new(source.name or f"material{index}")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tree = material.node_tree
    bsdf = principled(material)
    transparency = float(np.clip(source.transparency, 0.0, 1.0))
    inputs = bsdf.inputs
    inputs["Base Color"].default_value = (*[float(v) for v in source.diffuse[:3]], 1.0)
    inputs["Specular Tint"].default_value = (*[float(v) for v in source.specular[:3]], 1.0)
    inputs["Emission Color"].default_value = (*[float(v) for v in source.emissive[:3]], 1.0)
    inputs["Emission Strength"].default_value = 1.0
    inputs["Roughness"].default_value = float(np.clip(1.0 - source.shininess / 128.0, 0.0, 1.0))
    inputs["Alpha"].default_value = transparency
    x, y = bsdf.location
    if images.get("texture") is not None:
        node = _image_node(tree, images["texture"], (x - 360, y))
        tree.links.new(node.outputs["Color"], inputs["Base Color"])
    if images.get("alphamap") is not None:
        node = _image_node(tree, images["alphamap"], (x - 560, y - 300))
        multiply = tree.nodes.new("ShaderNodeMath")
        multiply.operation = "MULTIPLY"
        multiply.inputs[1].default_value = transparency
        multiply.location = (x - 240, y - 300)
        tree.links.new(node.outputs["Color"], multiply.inputs[0])
        tree.links.new(multiply.outputs["Value"], inputs["Alpha"])
    if transparency < 1.0 or images.get("alphamap") is not None:
        material.surface_render_method = "BLENDED"
    record = {"index": index, "name": material.name, "name_raw": bytes(source.name_raw).hex(),
              "ambient": [float(v) for v in source.ambient], "diffuse": [float(v) for v in source.diffuse],
              "specular": [float(v) for v in source.specular], "emissive": [float(v) for v in source.emissive],
              "shininess": float(source.shininess), "transparency": float(source.transparency),
              "mode": int(source.mode), "texture_raw": bytes(source.texture_raw).hex(),
              "alphamap_raw": bytes(source.alphamap_raw).hex()}
    shown = material_values(material)
    for key in ("texture", "alphamap"):
        if shown.pop(key) is not None:
            record[f"{key}_image"] = images[key]
    record["shown"] = shown
    if comment is not None:
        material[COMMENT_PROP] = comment.text
        record["comment_raw"] = bytes(comment.text_raw).hex()
        record["comment_shown"] = comment.text
    material[MATERIAL_PROP] = record
    return material


def _load_images(model: Ms3dModel, model_source: ModelSource, result: ImportResult) -> list[dict]:
    loaded: dict[FoundFile, bpy.types.Image] = {}
    per_material = []
    for source in model.materials:
        images = {}
        for key, stored in (("texture", source.texture), ("alphamap", source.alphamap)):
            images[key] = None
            if not stored.strip():
                continue
            found = model_source.texture(stored)
            if found is None:
                result.warnings.append(Message(f"{model_source.label}: material {quoted(source.name)}: {key} {quoted(stored)} "
                                               "not found: " + model_source.texture_search(stored),
                                               f"{model_source.label}: {{n}} image{{s}} not found", stored_base(stored)))
                continue
            if found not in loaded:
                try:
                    loaded[found] = load_found_image(found)
                except (FormatError, OSError) as exc:
                    result.warnings.append(Message(f"{model_source.label}: material {quoted(source.name)}: {key} {quoted(stored)} "
                                                   f"could not be loaded: {exc}", f"{model_source.label}: {{n}} "
                                                   "image{s} could not be loaded", stored_base(stored)))
                    continue
            images[key] = loaded[found]
        per_material.append(images)
    return per_material


def _int_attribute(mesh: bpy.types.Mesh, name: str, domain: str, values: np.ndarray) -> None:
    mesh.attributes.new(name, "INT", domain).data.foreach_set("value", np.ascontiguousarray(values, dtype=np.int32))


def _sharp_edges(mesh: bpy.types.Mesh, smoothing: np.ndarray) -> None:
    """Mark edges whose faces belong to different smoothing groups sharp."""
    edges = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("edge_index", edges)
    order = np.argsort(edges, kind="stable")
    edges, groups = edges[order], np.repeat(smoothing.astype(np.int64), 3)[order]
    between = edges[1:][(edges[1:] == edges[:-1]) & (groups[1:] != groups[:-1])]
    if len(between):
        sharp = np.zeros(len(mesh.edges), dtype=bool)
        sharp[between] = True
        mesh.edges.foreach_set("use_edge_sharp", sharp)


def _build_group(model: Ms3dModel, g: int, conversion: np.ndarray, materials: list[bpy.types.Material],
                 skin: tuple[np.ndarray, np.ndarray], source: ModelSource, result: ImportResult
                 ) -> tuple[bpy.types.Object, np.ndarray]:
    group = model.groups[g]
    triangles = np.asarray(group.triangles, dtype=np.int64)
    corners = model.tri_vertices[triangles].astype(np.int64)
    keep = drop_degenerate(corners)
    if not keep.all():
        result.warnings.append(f"{source.label}: group {quoted(group.name)}: dropped {int((~keep).sum())} "
                               "triangle(s) that use a vertex twice")
        triangles, corners = triangles[keep], corners[keep]
    used = np.unique(corners)
    local = np.searchsorted(used, corners)
    positions = model.vert_xyz[used].astype(np.float64) @ conversion.T
    t = model.tri_t[triangles].reshape(-1)
    uvs = np.column_stack([model.tri_s[triangles].reshape(-1), 1.0 - t.astype(np.float64)])
    mesh = build_triangle_mesh(group.name or f"group{g}", positions, local, uvs)
    _int_attribute(mesh, VERTEX_INDEX, "POINT", used)
    _int_attribute(mesh, VERTEX_FLAGS, "POINT", model.vert_flags[used])
    _int_attribute(mesh, REFCOUNT, "POINT", model.vert_refcount[used])
    _int_attribute(mesh, SKIN_JOINTS, "POINT", skin[0][used])
    _int_attribute(mesh, SKIN_WEIGHTS, "POINT", skin[1][used])
    extras = model.vertex_extras
    if extras is not None and extras.extra is not None:
        for column, name in zip(range(extras.extra.shape[1]), VERTEX_EXTRA):
            _int_attribute(mesh, name, "POINT", np.ascontiguousarray(extras.extra[used, column]).view("<i4"))
    _int_attribute(mesh, TRIANGLE_INDEX, "FACE", triangles)
    _int_attribute(mesh, TRIANGLE_FLAGS, "FACE", model.tri_flags[triangles])
    _int_attribute(mesh, SMOOTHING_GROUP, "FACE", model.tri_smoothing[triangles])
    if np.any(model.tri_group[triangles] != g):
        _int_attribute(mesh, TRIANGLE_GROUP, "FACE", model.tri_group[triangles])
    file_normals = model.tri_normals[triangles].reshape(-1, 3)
    mesh.attributes.new(CORNER_NORMAL, "FLOAT_VECTOR", "CORNER").data.foreach_set(
        "vector", np.ascontiguousarray(file_normals, dtype=np.float32).ravel())
    mesh.attributes.new(CORNER_T, "FLOAT", "CORNER").data.foreach_set("value", np.ascontiguousarray(t))
    if len(triangles):
        _sharp_edges(mesh, model.tri_smoothing[triangles])
        mesh.normals_split_custom_set((file_normals.astype(np.float64) @ conversion.T).tolist())
    shown = np.empty(len(mesh.loops) * 3, dtype=np.float32)
    mesh.corner_normals.foreach_get("vector", shown)
    mesh.attributes.new(CORNER_NORMAL_SHOWN, "FLOAT_VECTOR", "CORNER").data.foreach_set("vector", shown)
    if group.material >= 0:
        mesh.materials.append(materials[group.material])
    obj = bpy.data.objects.new(mesh.name, mesh)
    record = {"index": g, "name": obj.name, "name_raw": bytes(group.name_raw).hex(), "flags": int(group.flags),
              "to_ms3d": conversion.T.ravel().tolist()}
    comment = next((c for c in model.comments.group if c.index == g), None) if model.comments else None
    if comment is not None:
        obj[COMMENT_PROP] = comment.text
        record["comment_raw"] = bytes(comment.text_raw).hex()
        record["comment_shown"] = comment.text
    obj[GROUP_PROP] = record
    obj.classic_model.source_format = "MS3D"
    return obj, used


def first_comments(comments: list) -> dict:
    """Index -> the first comment for it (later ones for the same index are kept as strays)."""
    out: dict = {}
    for comment in comments:
        out.setdefault(comment.index, comment)
    return out


def unheld_data(model: Ms3dModel) -> dict[str, str]:
    """File data no group object holds, as hex of numpy records: triangles in no group or using a
    vertex twice (with the group positions of the latter), and the vertices only they (or nothing) use."""
    held = np.zeros(model.num_triangles, dtype=bool)
    memberships = []
    for g, group in enumerate(model.groups):
        triangles = np.asarray(group.triangles, dtype=np.int64)
        degenerate = ~drop_degenerate(model.tri_vertices[triangles].astype(np.int64))
        held[triangles[~degenerate]] = True
        memberships += [(int(triangles[k]), g, int(k)) for k in np.flatnonzero(degenerate)]
    used = np.zeros(model.num_vertices, dtype=bool)
    used[model.tri_vertices[held].ravel()] = True
    out = {}
    loose = np.flatnonzero(~used)
    if len(loose):
        rows = np.zeros(len(loose), dtype=KEPT_VERTEX)
        rows["index"] = loose
        for name, values in (("flags", model.vert_flags), ("xyz", model.vert_xyz), ("bone", model.vert_bone),
                             ("refcount", model.vert_refcount)):
            rows["record"][name] = values[loose]
        extras = model.vertex_extras
        rows["ids"] = extras.bone_ids[loose] if extras is not None else -1
        if extras is not None:
            rows["weights"] = extras.weights[loose]
            if extras.extra is not None and extras.extra.shape[1]:
                rows["extra"][:, :extras.extra.shape[1]] = extras.extra[loose]
        out[KEPT_VERTICES] = rows.tobytes().hex()
    unheld = np.flatnonzero(~held)
    if len(unheld):
        rows = np.zeros(len(unheld), dtype=KEPT_TRIANGLE)
        rows["index"] = unheld
        for name, values in (("flags", model.tri_flags), ("vertices", model.tri_vertices),
                             ("normals", model.tri_normals), ("s", model.tri_s), ("t", model.tri_t),
                             ("smoothing_group", model.tri_smoothing), ("group", model.tri_group)):
            rows["record"][name] = values[unheld]
        out[KEPT_TRIANGLES] = rows.tobytes().hex()
    if memberships:
        out[KEPT_MEMBERSHIPS] = np.array(memberships, dtype="<i4").tobytes().hex()
    kinds = (("group", len(model.groups)), ("material", len(model.materials)), ("joint", len(model.joints)))
    if model.comments is not None:
        for kind, count in kinds:
            seen, stray = set(), []
            listed = getattr(model.comments, kind)
            for position, comment in enumerate(listed):
                if 0 <= comment.index < count and comment.index not in seen:
                    seen.add(comment.index)
                else:
                    stray.append({"position": position, "index": int(comment.index),
                                  "raw": bytes(comment.text_raw).hex()})
            if stray:
                out[KEPT_COMMENTS.format(kind)] = stray
            if len(listed) > 1:
                out[f"{kind}_comment_order"] = [int(c.index) for c in listed]
    return out


def _model_size(model: Ms3dModel) -> float:
    points = [model.vert_xyz.astype(np.float64)]
    if model.joints:
        points.append(rest_matrices(model, joint_parents(model)[0])[:, :3, 3])
    points = np.concatenate(points)
    return float(np.linalg.norm(points.max(axis=0) - points.min(axis=0))) if len(points) else 1.0


def _ensure_object_mode(context: bpy.types.Context) -> None:
    if context.mode != "OBJECT" and bpy.ops.object.mode_set.poll():
        bpy.ops.object.mode_set(mode="OBJECT")


def _store_model(root: bpy.types.Object, model: Ms3dModel, materials: list[bpy.types.Material], fps: float,
                 last_key: float, options: Ms3dImportOptions) -> None:
    record = {"version": int(model.version), "fps": float(model.animation_fps), "fps_used": fps,
              "last_key": last_key, "current_time": float(model.current_time), "total_frames": int(model.total_frames),
              "blocks": {name: int(sub) for name, sub in model.optional_blocks()},
              "axis_forward": options.axis_forward, "axis_up": options.axis_up,
              "trailing": bytes(model.trailing).hex()}
    if materials:
        record["materials"] = materials
    record.update(unheld_data(model))
    settings = root.classic_model
    settings.source_format = "MS3D"
    comments = model.comments
    if comments is not None and comments.model_raw is not None:
        settings.ms3d_comment = comments.model
        record["comment_raw"] = bytes(comments.model_raw).hex()
        record["comment_shown"] = settings.ms3d_comment
        record["comment_flag"] = int(comments.model_flag)
    extras = model.model_extras
    size, mode, alpha_ref = ((extras.joint_size, extras.transparency_mode, extras.alpha_ref)
                             if extras is not None else MODEL_EXTRAS_DEFAULTS)
    settings.ms3d_joint_size, settings.ms3d_transparency_mode, settings.ms3d_alpha_ref = size, mode, alpha_ref
    root[MODEL_PROP] = record


def import_ms3d(context: bpy.types.Context, path: Path | ModelSource, options: Ms3dImportOptions) -> ImportResult:
    """Read ``path`` (a file or an archive member, see :mod:`..file_source`) and build its objects in the
    active collection; all or nothing."""
    source = as_source(path)
    model = read_ms3d(source, options.name_encoding)
    result = ImportResult(warnings=[f"{source.label}: {w}" for w in model.warnings])
    conversion = conversion_matrix(options.axis_forward, options.axis_up)
    scene = context.scene
    collection = context.view_layer.active_layer_collection.collection
    file_fps = animation_fps(model)
    if model.joints and file_fps != model.animation_fps:
        result.warnings.append(f"{source.label}: animation fps is {model.animation_fps}: using {DEFAULT_FPS:g}")
    timing = plan_timing(scene, options.scene_timing)
    fps = timing.fps(file_fps)           # key time t plays at scene frame t * fps
    try:
        last_key = last_key_frame(model, fps)
    except FormatError as exc:
        raise exc.with_filename(source.where)
    _ensure_object_mode(context)
    with datablock_transaction(scene):
        images = _load_images(model, source, result) if options.load_images else [{} for _ in model.materials]
        material_comments = first_comments(model.comments.material if model.comments else [])
        materials = [build_material(m, i, images[i], material_comments.get(i)) for i, m in enumerate(model.materials)]
        armature = None
        if model.joints:
            parents, warnings = joint_parents(model)
            result.warnings += [f"{source.label}: {w}" for w in warnings]
            armature = build_armature(context, source.stem, model, parents, conversion, collection, _model_size(model))
            store_joint_data(armature, model, conversion)
            root = armature.obj
        else:
            root = bpy.data.objects.new(source.stem, None)
            root.empty_display_size = max(_model_size(model) * 0.1, 0.01)
            collection.objects.link(root)
        if armature is not None:
            apply_timing(scene, timing, 1, min(last_frame(model, fps), MAX_FRAME), fps)
            if note := timing_note(source.label, timing, file_fps):
                result.infos.append(note)
        skin = pack_skin(model)
        influences = vertex_influences(model)
        groups = []
        for g in range(len(model.groups)):
            obj, used = _build_group(model, g, conversion, materials, skin, source, result)
            collection.objects.link(obj)
            obj.parent = root
            if armature is not None:
                assign_weights(obj, armature.bone_names, used, *influences)
                modifier = obj.modifiers.new("Armature", "ARMATURE")
                modifier.object = root
            groups.append(obj)
        if armature is not None:
            animate_joints(root, model, armature.bone_names, source.stem, fps)
        _store_model(root, model, materials, fps, last_key, options)
        for obj in [root, *groups]:
            remember_source(obj, source)
    result.objects.extend(groups + [root])
    return result
