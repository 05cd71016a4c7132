"""Blender -> :class:`Ms3dModel`: groups, materials, joints, keyframes, weights, comments, extras.

* Mesh objects become groups (one per object, or one per material when an object uses several),
  triangulated as Blender does, with per-corner normals and UVs ``(u, 1 - v)``, the material of
  their polygons and smoothing groups from sharp edges (regions joined by smooth edges; flat faces
  get group 0). Coordinates are in the armature's space when there is an armature, else in world
  space, converted to MilkShape's axes (``axis_conversion`` to the forward/up options; the defaults
  invert the import's ``(x, y, z) -> (x, -z, y)``). Meshes with modifiers other than Armature are
  evaluated with the Armature modifiers switched off (the file holds the bind pose). A mirrored
  object (negative determinant of that transform) has every triangle's corners reversed, so its
  faces keep facing as in Blender; its normals go through the inverse transpose and point out.
* The armature becomes joints: rest rotation and position in the parent's space from the bones
  (``L = B_parent⁻¹ · B``, ``C⁻¹ · B`` for a root: see :mod:`...importers.ms3d.ms3d_armature`, maths in
  :mod:`...formats.ms3d.rig`); its animation becomes keys (:mod:`.animation`).
* Vertex groups named after bones become the skin: the strongest four influences, percentages
  summing to 100 (largest remainder), strongest as the vertex's own joint.
* Limits are checked before anything is written: 65534 vertices and triangles, 255 groups,
  128 materials, 128 joints, 31-byte names, 127-byte texture paths.

What the import kept (names in :mod:`...common.ms3d.contract`, meanings in :mod:`...importers.ms3d.ms3d_import`) is written back wherever Blender still
shows what the import set: a value is compared with the import's snapshot (or, per vertex and
corner, recomputed from the stored raw value) and, if unchanged, the file's own value is written.
So an untouched import exports the same file contents: vertex, triangle and group order, raw names,
flags, normals, ``t`` coordinates, weights, rest poses, key times, colours, comments, extras,
version and sub-versions.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import bpy

from bpy_extras.io_utils import axis_conversion

from ...common.contract import DEFAULT_FPS
from ...common.generated_names import is_made
from ...common.ms3d.contract import (
    CORNER_NORMAL,
    CORNER_NORMAL_SHOWN,
    CORNER_T,
    GROUP_PROP,
    JOINT_PROP,
    KEPT_MEMBERSHIPS,
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
from ...common.ms3d.data import bone_color, bone_rest_poses
from ...common.stored_records import stored_group
from ...formats.message_text import quoted
from ...formats.ms3d.records import (
    NAME_SIZE,
    Ms3dGroup,
    Ms3dJoint,
    Ms3dJointExtras,
    Ms3dModel,
    Ms3dModelExtras,
    Ms3dVertexExtras,
)
from ...formats.ms3d.rig import (
    combined_weights,
    global_matrices,
    hierarchy_order,
    influences_from_raw,
    local_matrices,
    unpack_skin,
)
from ..export_error import ExportError
from ..limits import over_limits, refuse
from .animation import animate_joints
from .materials import material_record
from .parts import NEW, VERTEX_RECORD, JointTable, Part
from .skin import dense_weights, skin_from_weights, smoothing_from_edges, stored_smoothing_holds, vertex_weights
from .values import MadeNames, float32_equal, kept_comment, kept_name, raw_field
from .write_back import (
    blocks_needed,
    kept_triangles,
    kept_vertices,
    merge_records,
    model_comments,
    remap_joints,
    triangle_rows,
    uid_lookup,
)

MAX_VERTICES = MAX_TRIANGLES = 65534
MAX_GROUPS = 255
MAX_MATERIALS = 128
MAX_JOINTS = 128
NORMAL_TOLERANCE = 1e-5           # a corner normal this close to the one the import showed is unchanged
DEFAULT_JOINT_COLOR = (1.0, 1.0, 0.0)


@dataclass
class Ms3dExportOptions:
    axis_forward: str = "-Z"
    axis_up: str = "Y"
    animation: str = "KEYS"       # or "BAKE": every scene frame from the evaluated pose
    textures: str = "COPY"        # or "NAMES": see :mod:`.textures`
    tolerance: float = 0.1        # KEYS: % of the model's size MilkShape's playback may stray; 0 = bake


@dataclass
class Ms3dBuildResult:
    model: Ms3dModel
    warnings: list[str] = field(default_factory=list)
    materials: list = field(default_factory=list)   # the Blender materials of model.materials, in order
    info: list[str] = field(default_factory=list)      # reported as information, not warnings


def _conversion(options: Ms3dExportOptions) -> np.ndarray:
    """3x3 rotation taking Blender coordinates to MilkShape's."""
    return np.array(axis_conversion(to_forward=options.axis_forward, to_up=options.axis_up), dtype=np.float64)


def _armature(objects: list[bpy.types.Object], meshes: list[bpy.types.Object]) -> bpy.types.Object | None:
    armatures = {o for o in objects if o.type == "ARMATURE"}
    if not armatures:
        armatures = {m.object for obj in meshes for m in obj.modifiers
                     if m.type == "ARMATURE" and m.object is not None and m.show_viewport}
    if len(armatures) > 1:
        names = ", ".join(sorted(quoted(a.name) for a in armatures))
        raise ExportError(f"several armatures ({names}): an MS3D model has one skeleton; export them separately")
    return next(iter(armatures), None)


def _model_root(objects: list[bpy.types.Object], meshes: list[bpy.types.Object],
                armature: bpy.types.Object | None) -> bpy.types.Object | None:
    candidates = ([armature] if armature is not None else []) + list(objects) + [m.parent for m in meshes]
    return next((o for o in candidates if o is not None and stored_group(o, MODEL_PROP) is not None), None)


def _bone_order(bones: list[bpy.types.Bone]) -> list[bpy.types.Bone]:
    stored = sorted((b for b in bones if JOINT_PROP in b), key=lambda b: int(b[JOINT_PROP].get("index", 0)))
    placed = {b.name for b in stored}
    new = [b for b in bones if b.name not in placed]
    index = {b.name: i for i, b in enumerate(new)}
    parents = [index.get(b.parent.name, -1) if b.parent is not None else -1 for b in new]
    return stored + [new[i] for i in hierarchy_order(parents)]


def _joints(armature: bpy.types.Object, to_ms: np.ndarray, problems: list[str], made: MadeNames) -> JointTable:
    table = JointTable()
    bones = _bone_order(list(armature.data.bones))
    table.bone_names = [b.name for b in bones]
    rest = bone_rest_poses(armature, table.bone_names, to_ms.T)
    names_raw = []
    for j, (bone, (rotation, position)) in enumerate(zip(bones, rest)):
        record = bone.get(JOINT_PROP)
        if record is not None and "index" in record:
            table.original_to_export[int(record["index"])] = j
        names_raw.append(kept_name(bone.name, record, problems, "joint name", made if is_made(bone) else None))
        shown = record.get("rest_shown") if record else None
        if shown is not None and np.allclose(list(shown), [*rotation, *position], rtol=0.0, atol=1e-9, equal_nan=True):
            rotation = np.array(record["rotation"], dtype=np.float32)
            position = np.array(record["position"], dtype=np.float32)
        color = bone_color(bone)
        table.custom_colors |= color is not None
        if record is not None and "color" in record and float32_equal(record.get("color_shown"), color):
            color = list(record["color"])
            table.stored_colors = True
        table.colors.append(color if color is not None else list(DEFAULT_JOINT_COLOR))
        table.comments.append(kept_comment(bone, record))
        table.joints.append(Ms3dJoint(int(record.get("flags", 0)) if record else 0, names_raw[-1], b"",
                                      np.asarray(rotation, dtype=np.float32), np.asarray(position, dtype=np.float32),
                                      np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)))
    index = table.index_of()
    for bone, joint in zip(bones, table.joints):
        record = bone.get(JOINT_PROP)
        stored_parent = raw_field(record, "parent_raw")
        if bone.parent is None:
            keep = stored_parent is not None and not any(
                stored_parent.split(b"\0", 1)[0] == n.split(b"\0", 1)[0] for n in names_raw)
            joint.parent_raw = stored_parent if keep else bytes(NAME_SIZE)
        else:
            parent_raw = names_raw[index[bone.parent.name]]
            same = stored_parent is not None and stored_parent.split(b"\0", 1)[0] == parent_raw.split(b"\0", 1)[0]
            joint.parent_raw = stored_parent if same else parent_raw
    table.parents = [index[b.parent.name] if b.parent is not None else -1 for b in bones]
    return table


def _export_mesh(context: bpy.types.Context, obj: bpy.types.Object):
    """The mesh to export: ``obj.data``, or the evaluated mesh with Armature modifiers switched off
    when other modifiers are active. Returns (mesh, cleanup)."""
    others = [m for m in obj.modifiers if m.show_viewport and m.type != "ARMATURE"]
    if not others:
        return obj.data, lambda: None
    armatures = [m for m in obj.modifiers if m.show_viewport and m.type == "ARMATURE"]
    for m in armatures:
        m.show_viewport = False
    try:
        obj_eval = obj.evaluated_get(context.evaluated_depsgraph_get())
        mesh = obj_eval.to_mesh()
    finally:
        for m in armatures:
            m.show_viewport = True

    return mesh, obj_eval.to_mesh_clear


def _attribute(mesh: bpy.types.Mesh, name: str, domain: str, count: int, default: int = 0,
               components: int = 1, kind: str = "INT") -> np.ndarray | None:
    attr = mesh.attributes.get(name)
    if attr is None or attr.domain != domain:
        return None
    if kind == "INT" and attr.data_type == "INT":
        out = np.empty(count, dtype=np.int32)
        attr.data.foreach_get("value", out)
        return out
    if kind == "FLOAT" and attr.data_type == "FLOAT":
        out = np.empty(count, dtype=np.float32)
        attr.data.foreach_get("value", out)
        return out
    if kind == "FLOAT_VECTOR" and attr.data_type == "FLOAT_VECTOR":
        out = np.empty(count * 3, dtype=np.float32)
        attr.data.foreach_get("vector", out)
        return out.reshape(count, 3)
    return None


def _mesh_parts(context: bpy.types.Context, obj: bpy.types.Object, space: np.ndarray, to_ms: np.ndarray,
                joints: JointTable, problems: list[str], warnings: list[str], made: MadeNames) -> list[Part]:
    mesh, cleanup = _export_mesh(context, obj)
    try:
        return _read_parts(obj, mesh, space, to_ms, joints, problems, warnings, made)
    finally:
        cleanup()


def _read_parts(obj: bpy.types.Object, mesh: bpy.types.Mesh, space: np.ndarray, to_ms: np.ndarray,
                joints: JointTable, problems: list[str], warnings: list[str], made: MadeNames) -> list[Part]:
    count = len(mesh.vertices)
    matrix = space @ np.array(obj.matrix_world, dtype=np.float64)
    if np.allclose(matrix, np.eye(4), rtol=0.0, atol=1e-12):
        matrix = np.eye(4)
    co = np.empty(count * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3).astype(np.float64)
    linear = to_ms @ matrix[:3, :3]
    xyz = co @ linear.T + to_ms @ matrix[:3, 3]
    if not np.all(np.isfinite(xyz)):
        raise ExportError(f"object {quoted(obj.name)} has non-finite (NaN or infinite) vertex coordinates")

    mesh.calc_loop_triangles()
    tri_count = len(mesh.loop_triangles)
    tri_vertices = np.empty(tri_count * 3, dtype=np.int32)
    tri_loops = np.empty(tri_count * 3, dtype=np.int32)
    tri_polygon = np.empty(tri_count, dtype=np.int32)
    mesh.loop_triangles.foreach_get("vertices", tri_vertices)
    mesh.loop_triangles.foreach_get("loops", tri_loops)
    mesh.loop_triangles.foreach_get("polygon_index", tri_polygon)
    tri_vertices, tri_loops = tri_vertices.reshape(-1, 3), tri_loops.reshape(-1, 3)
    if np.linalg.det(linear) < 0:     # mirrored: reversed corners keep every face facing as in Blender
        tri_vertices, tri_loops = tri_vertices[:, ::-1].copy(), tri_loops[:, ::-1].copy()

    loops = len(mesh.loops)
    shown = np.empty(loops * 3, dtype=np.float32)
    mesh.corner_normals.foreach_get("vector", shown)
    shown = shown.reshape(-1, 3)
    normal_matrix = linear if np.array_equal(matrix[:3, :3], np.eye(3)) else to_ms @ np.linalg.inv(matrix[:3, :3]).T
    normals = shown.astype(np.float64) @ normal_matrix.T
    length = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, length, out=normals.copy(), where=length > 0)
    stored_normals = _attribute(mesh, CORNER_NORMAL, "CORNER", loops, kind="FLOAT_VECTOR")
    shown_normals = _attribute(mesh, CORNER_NORMAL_SHOWN, "CORNER", loops, kind="FLOAT_VECTOR")
    record = stored_group(obj, GROUP_PROP)
    import_to_ms = record.get("to_ms3d") if record else None
    if (stored_normals is not None and shown_normals is not None and import_to_ms is not None
            and np.allclose(linear, np.reshape(list(import_to_ms), (3, 3)), rtol=0.0, atol=1e-9)):
        close = (np.abs(shown - shown_normals) <= NORMAL_TOLERANCE) | (np.isnan(shown) & np.isnan(shown_normals))
        same = np.all(close, axis=1)
        normals[same] = stored_normals[same]
    broken = ~np.all(np.isfinite(normals), axis=1)
    if broken.any():
        normals[broken] = 0.0
        warnings.append(f"object {quoted(obj.name)}: {int(broken.sum())} corner normal(s) could not be computed "
                        "(degenerate or huge geometry): written as zero")

    uv = np.zeros((loops, 2), dtype=np.float32)
    if mesh.uv_layers.active is not None:
        flat = np.empty(loops * 2, dtype=np.float32)
        mesh.uv_layers.active.uv.foreach_get("vector", flat)
        uv = flat.reshape(-1, 2)
    if not np.all(np.isfinite(uv)):
        raise ExportError(f"object {quoted(obj.name)} has non-finite UV coordinates")
    s = uv[:, 0].copy()
    t = (1.0 - uv[:, 1].astype(np.float64)).astype(np.float32)
    stored_t = _attribute(mesh, CORNER_T, "CORNER", loops, kind="FLOAT")
    if stored_t is not None:
        same = (1.0 - stored_t.astype(np.float64)).astype(np.float32) == uv[:, 1]
        t[same] = stored_t[same]

    polygons = len(mesh.polygons)
    stored_smoothing = _attribute(mesh, SMOOTHING_GROUP, "FACE", polygons)
    if stored_smoothing is not None and stored_smoothing_holds(mesh, stored_smoothing):
        smoothing = stored_smoothing.astype(np.int64)
    else:
        smoothing = smoothing_from_edges(mesh) if polygons else np.zeros(0, np.int64)
    tri_flags = _attribute(mesh, TRIANGLE_FLAGS, "FACE", polygons)
    tri_flags = tri_flags if tri_flags is not None else np.zeros(polygons, np.int32)
    tri_index = _attribute(mesh, TRIANGLE_INDEX, "FACE", polygons)
    group_bytes = _attribute(mesh, TRIANGLE_GROUP, "FACE", polygons)
    running = NEW + np.arange(tri_count, dtype=np.int64)
    tri_order = (np.where(tri_index[tri_polygon] >= 0, tri_index[tri_polygon], running)
                 if tri_index is not None else running)

    vertices = _vertex_records(obj, mesh, xyz, joints, tri_vertices)
    material_index = np.empty(polygons, dtype=np.int32)
    mesh.polygons.foreach_get("material_index", material_index)
    tri_material = material_index[tri_polygon] if tri_count else np.zeros(0, np.int32)
    slots = [s.material for s in obj.material_slots]
    used_slots = sorted(set(tri_material.tolist())) or [0]
    group_index = int(record.get("index", 0)) if record else NEW
    parts = []
    for k, slot in enumerate(used_slots):
        pick = np.flatnonzero(tri_material == slot)
        material = slots[slot] if 0 <= slot < len(slots) else None
        if len(used_slots) == 1:
            name_raw = kept_name(obj.name, record, problems, "group name", made if is_made(obj) else None)
            comment = kept_comment(obj, record)
        else:
            label = f"{obj.name}_{material.name if material else slot}"
            name_raw = kept_name(label, None, problems, "group name", made)
            comment = None
        corners_loops = tri_loops[pick]
        parts.append(Part(
            obj=obj, name_raw=name_raw, flags=int(record.get("flags", 0)) if record else 0, material=material,
            comment=comment, sort_key=(group_index, obj.name, k), vertices=vertices,
            corners=tri_vertices[pick], normals=normals[corners_loops].astype(np.float32),
            s=s[corners_loops], t=t[corners_loops], smoothing=smoothing[tri_polygon[pick]].astype(np.uint8),
            tri_flags=tri_flags[tri_polygon[pick]].astype(np.uint16), tri_order=tri_order[pick],
            tri_group_bytes=group_bytes[tri_polygon[pick]] if group_bytes is not None else None,
            group_index=group_index if len(used_slots) == 1 else NEW))
    if np.any(smoothing > 255):
        problems.append(f"object {quoted(obj.name)} has smoothing groups above 255")
    return parts


def _vertex_records(obj: bpy.types.Object, mesh: bpy.types.Mesh, xyz: np.ndarray, joints: JointTable,
                    tri_vertices: np.ndarray) -> np.ndarray:
    count = len(mesh.vertices)
    records = np.zeros(count, dtype=VERTEX_RECORD)
    records["xyz"] = xyz.astype(np.float32)
    original = _attribute(mesh, VERTEX_INDEX, "POINT", count)
    running = NEW + np.arange(count, dtype=np.int64)
    records["uid"] = np.where(original >= 0, original, running) if original is not None else running
    flags = _attribute(mesh, VERTEX_FLAGS, "POINT", count)
    records["flags"] = flags.astype(np.uint8) if flags is not None else 0
    refcount = _attribute(mesh, REFCOUNT, "POINT", count)
    if refcount is None:
        refcount = np.minimum(np.bincount(tri_vertices.ravel(), minlength=count), 255)
    records["refcount"] = refcount.astype(np.uint8)
    for column, name in enumerate(VERTEX_EXTRA):
        extra = _attribute(mesh, name, "POINT", count)
        if extra is not None:
            records["extra"][:, column] = extra.view("<u4")

    num_joints = len(joints.joints)
    rows, joint, weight = vertex_weights(mesh, obj, joints.index_of()) if num_joints else (
        np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.float32))
    keep = np.zeros(count, dtype=bool)
    packed_joints = _attribute(mesh, SKIN_JOINTS, "POINT", count)
    packed_weights = _attribute(mesh, SKIN_WEIGHTS, "POINT", count)
    if packed_joints is not None and packed_weights is not None:
        raw_bone, raw_ids, raw_weights = unpack_skin(packed_joints, packed_weights)
        keep[:] = True
        if num_joints:
            raw_bone, raw_ids, known = remap_joints(raw_bone, raw_ids, joints.original_to_export)
            kj, kp = influences_from_raw(raw_bone, raw_ids, raw_weights, num_joints)
            current = dense_weights(rows, joint, weight, count, num_joints)
            from_raw = dense_weights(*combined_weights(kj, kp, num_joints), count, num_joints)
            keep = known & np.all(current == from_raw, axis=1)
    if packed_joints is not None and packed_weights is not None and keep.all():
        bone, ids, percent = raw_bone, raw_ids, raw_weights
    else:
        bone, ids, percent = skin_from_weights(rows, joint, weight, count)
        if keep.any():
            bone = np.where(keep, raw_bone, bone)
            ids = np.where(keep[:, None], raw_ids, ids)
            percent = np.where(keep[:, None], raw_weights, percent)
    records["bone"] = bone.astype(np.int8)
    records["ids"] = ids.astype(np.int8)
    records["weights"] = percent.astype(np.uint8)
    return records


def _geometry(parts: list[Part], materials: list, record, joints: JointTable) -> tuple:
    """The vertex table, triangle table, triangle group bytes, groups and group comments of ``parts``
    plus what the import kept (vertices and triangles no group held)."""
    vertex_tables: dict[int, np.ndarray] = {}
    for part in parts:
        vertex_tables.setdefault(id(part.vertices), part.vertices)
    keys = list(vertex_tables)
    table, maps = merge_records(list(vertex_tables.values()) + [kept_vertices(record, joints)])
    part_maps = [maps[keys.index(id(part.vertices))] for part in parts]
    kept_rows, kept_bytes, kept_index = kept_triangles(record, uid_lookup(table))
    rows = [triangle_rows(part, local_to_global) for part, local_to_global in zip(parts, part_maps)]
    triangles, tri_maps = merge_records(rows + [kept_rows])
    group_lists = [list(m) for m in tri_maps[:-1]]
    memberships = np.frombuffer(raw_field(record, KEPT_MEMBERSHIPS) or b"", dtype="<i4").reshape(-1, 3)
    for triangle, group, position in memberships.tolist():
        target = next((g for g, p in enumerate(parts) if p.group_index == group), None)
        found = np.flatnonzero(kept_index == triangle)
        if target is not None and len(found):
            group_lists[target].insert(min(position, len(group_lists[target])), int(tri_maps[-1][found[0]]))
    tri_group = np.full(len(triangles), -1, dtype=np.int64)
    groups, group_comments = [], []
    for g, (part, members) in enumerate(zip(parts, group_lists)):
        material = materials.index(part.material) if part.material is not None else -1
        groups.append(Ms3dGroup(part.flags, part.name_raw, np.array(members, dtype=np.int64), material))
        if part.comment is not None:
            group_comments.append((g, part.group_index if part.group_index != NEW else None, part.comment))
        own = tri_maps[g]
        byte = part.tri_group_bytes if part.tri_group_bytes is not None else np.full(len(own), g)
        unset = tri_group[own] == -1
        tri_group[own[unset]] = byte[unset]
    unset = tri_group[tri_maps[-1]] == -1
    tri_group[tri_maps[-1][unset]] = kept_bytes[unset]
    return table, triangles, np.clip(tri_group, 0, 255).astype(np.uint8), groups, group_comments


def _timing(record, joints: JointTable, key_fps: float, stored_fps: float | None,
            scene: bpy.types.Scene) -> tuple[float, float, int]:
    """fps, current time and total frames: the file's while the animation keeps the import's range."""
    animated = any(len(j.rot_keys) or len(j.pos_keys) for j in joints.joints)
    if record is not None:
        fps = float(record["fps"]) if (key_fps == stored_fps or not animated) else key_fps
        total = int(record.get("total_frames", 30))
        current_time = float(record.get("current_time", 1.0))
    else:
        fps, total, current_time = (key_fps, scene.frame_end, 1.0) if animated else (DEFAULT_FPS, 30, 1.0)
    if animated:
        last = max(float(k[:, 0].max()) for j in joints.joints for k in (j.rot_keys, j.pos_keys) if len(k)) * key_fps
        imported_last = float(record["last_key"]) if record and "last_key" in record else None
        if imported_last is None or last > imported_last + 1e-3:
            total = max(total, math.ceil(last - 1e-3))
    return fps, current_time, total


def build_ms3d(context: bpy.types.Context, objects: list[bpy.types.Object], options: Ms3dExportOptions,
               progress: Callable[[float], None] | None = None) -> Ms3dBuildResult:
    meshes = [o for o in objects if o.type == "MESH"]
    armature = _armature(objects, meshes)
    root = _model_root(objects, meshes, armature)
    if not meshes and armature is None and root is None:
        raise ExportError("nothing to export: select mesh objects, an armature or an imported MS3D model")
    record = stored_group(root, MODEL_PROP)
    warnings: list[str] = []
    problems: list[str] = []
    made = MadeNames()
    to_ms = _conversion(options)
    scene = context.scene
    scene_fps = scene.render.fps / scene.render.fps_base
    stored_fps = float(record["fps_used"]) if record and "fps_used" in record else None
    key_fps = stored_fps if stored_fps is not None and np.float32(stored_fps) == np.float32(scene_fps) else scene_fps
    joints = JointTable()
    if armature is not None:
        joints = _joints(armature, to_ms, problems, made)
    if progress:
        progress(0.3)
    space = np.linalg.inv(np.array(armature.matrix_world, dtype=np.float64)) if armature else np.eye(4)
    parts = [p for obj in meshes for p in _mesh_parts(context, obj, space, to_ms, joints, problems, warnings, made)]
    parts.sort(key=lambda p: p.sort_key)
    if progress:
        progress(0.6)
    materials = [m for m in (record.get("materials", []) if record else []) if m is not None]
    materials += list(dict.fromkeys(p.material for p in parts
                                    if p.material is not None and p.material not in materials))
    exported_materials = [material_record(m, problems, options.textures == "COPY", made) for m in materials]
    warnings += made.notes
    table, triangles, tri_group, groups, group_comments = _geometry(parts, materials, record, joints)
    _check_limits(len(table), len(triangles), len(groups), len(materials), len(joints.joints), problems)
    info = []
    if armature is not None:
        info = animate_joints(context, armature, joints.joints, joints.bone_names, joints.parents, to_ms, key_fps,
                              options.animation, options.tolerance / 100.0 * _model_size(table, joints),
                              table, meshes, warnings)

    fps, current_time, total = _timing(record, joints, key_fps, stored_fps, scene)
    model = Ms3dModel(
        vert_flags=table["flags"].copy(), vert_xyz=table["xyz"].copy(), vert_bone=table["bone"].copy(),
        vert_refcount=table["refcount"].copy(), tri_flags=triangles["flags"].copy(),
        tri_vertices=triangles["vertices"].astype(np.uint16), tri_normals=triangles["normals"].copy(),
        tri_s=triangles["s"].copy(), tri_t=triangles["t"].copy(), tri_smoothing=triangles["smoothing"].copy(),
        tri_group=tri_group, groups=groups, materials=[m for m, _ in exported_materials], animation_fps=fps,
        current_time=current_time, total_frames=total, joints=joints.joints,
        version=int(record.get("version", 4)) if record else 4)
    comments = model_comments(record, root, group_comments, materials, exported_materials, joints)
    model_extras = ((root.classic_model.ms3d_joint_size, root.classic_model.ms3d_transparency_mode,
                     root.classic_model.ms3d_alpha_ref) if root is not None else MODEL_EXTRAS_DEFAULTS)
    skinned = bool(len(table) and (np.any(table["weights"][:, 1:]) or np.any(table["ids"] >= 0)
                                   or np.any(table["extra"])))
    blocks = blocks_needed(record, comments, skinned, joints.custom_colors or joints.stored_colors, model_extras)
    if "comments" in blocks:
        comments.subversion = blocks["comments"]
        model.comments = comments
    if "vertex extras" in blocks:
        sub = blocks["vertex extras"]
        model.vertex_extras = Ms3dVertexExtras(table["ids"].copy(), table["weights"].copy(),
                                               np.ascontiguousarray(table["extra"][:, :sub - 1]), sub)
    if "joint extras" in blocks:
        model.joint_extras = Ms3dJointExtras(np.array(joints.colors, dtype=np.float32).reshape(-1, 3),
                                             blocks["joint extras"])
    if "model extras" in blocks:
        model.model_extras = Ms3dModelExtras(*model_extras, subversion=blocks["model extras"])
    trailing = raw_field(record, "trailing") or b""
    if trailing:
        if record and dict(record.get("blocks", {})) == blocks:
            model.trailing = trailing
        else:
            warnings.append(f"{len(trailing)} bytes the import could not read are not written back")
    if progress:
        progress(1.0)
    return Ms3dBuildResult(model, warnings, materials, info=info)


def _model_size(table: np.ndarray, joints: JointTable) -> float:
    """The largest side of the bind pose's bounding box (of the joints' rest origins without vertices)."""
    points = table["xyz"].astype(np.float64)
    if not len(points) and joints.joints:
        rest = global_matrices(local_matrices(np.array([j.rotation for j in joints.joints]),
                                              np.array([j.position for j in joints.joints])), joints.parents)
        points = rest[:, :3, 3]
    size = float(np.ptp(points, axis=0).max()) if len(points) else 0.0
    return size if size > 0 else 1.0


def _check_limits(vertices: int, triangles: int, groups: int, materials: int, joints: int,
                  problems: list[str]) -> None:
    refuse("cannot export as MS3D: ",
           over_limits((("vertices", vertices, MAX_VERTICES), ("triangles", triangles, MAX_TRIANGLES),
                        ("groups", groups, MAX_GROUPS), ("materials", materials, MAX_MATERIALS),
                        ("joints", joints, MAX_JOINTS))) + problems)
