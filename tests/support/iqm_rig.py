"""A small rig made in Blender for the IQM export tests, and what Blender shows of it, read here with
mathutils-free numpy from Blender's own evaluated data (never from the exporter's code).

The rig: 4 bones, ``root`` -> ``spine`` (connected) -> ``arm`` (disconnected, off to the side) ->
``hand`` (also disconnected: a Copy Rotation constraint from ``root`` at half influence, and a driver on its Y location
reading ``spine``'s X rotation); a column of quads around them with two materials, a UV seam, a hard
edge ring (flat faces at the top), a colour attribute, each vertex weighted over 2 or 3 bones; two
actions, ``walk`` (frames 1-9) and ``wave`` (frames 20-26).

The joint world matrices an IQM file gives (the test's own decoding of poses: ``translate @ rotate @
scale`` down the parents, quaternions x y z w) are compared with ``armature.matrix_world @
PoseBone.matrix``; the skinned vertices with the evaluated mesh's world positions.
"""
from __future__ import annotations

import numpy as np

from formats.iqm.animation import anim_frames, bind_pose, frame_poses

from .blender_helpers import rest_pose, stored_action

BONES = ("root", "spine", "arm", "hand")
WALK, WAVE = (1, 9), (20, 26)


def rig_scene(bpy, name: str = "thing"):
    """(mesh object, armature object, {action name: action})."""
    scene = bpy.context.scene
    scene.render.fps, scene.render.fps_base = 24, 1.0
    mesh = bpy.data.meshes.new(name)
    rows = 7
    ring = [(-1, -0.5), (1, -0.5), (1, 0.5), (-1, 0.5)]
    verts = [(x, y, 4.0 * r / (rows - 1)) for r in range(rows) for x, y in ring]
    faces = [(r * 4 + i, r * 4 + (i + 1) % 4, (r + 1) * 4 + (i + 1) % 4, (r + 1) * 4 + i)
             for r in range(rows - 1) for i in range(4)]
    mesh.from_pydata(verts, [], faces)
    mesh.polygons.foreach_set("material_index", [0 if f // 4 < 3 else 1 for f in range(len(faces))])
    mesh.polygons.foreach_set("use_smooth", [f // 4 < 5 for f in range(len(faces))])   # top ring flat
    for m in ("skin_low", "skin_high"):
        mesh.materials.append(bpy.data.materials.new(f"{name}_{m}"))
    uv = mesh.uv_layers.new(name="UVMap")
    loops_vertex = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", loops_vertex)
    loop_face = np.repeat(np.arange(len(faces)), 4)
    side = (np.array([f[0] for f in faces]) % 4)[loop_face]
    corner = np.tile([0, 1, 1, 0], len(faces))
    height = np.array(verts)[loops_vertex, 2] / 4.0
    u = (side + corner) / 4.0 * 0.9 + 0.05
    uv.uv.foreach_set("vector", np.stack([u, 0.05 + 0.9 * height], 1).ravel())
    colour = mesh.color_attributes.new("Col", "BYTE_COLOR", "POINT")
    shades = np.linspace(0.0, 1.0, len(verts))
    colour.data.foreach_set("color_srgb", np.stack([shades, 1 - shades, np.full_like(shades, 0.5),
                                                    np.ones_like(shades)], 1).ravel().astype(np.float32))
    mesh.color_attributes.active_color = colour
    obj = bpy.data.objects.new(name, mesh)
    scene.collection.objects.link(obj)
    arm = bpy.data.armatures.new(f"{name}_rig")
    rig = bpy.data.objects.new(f"{name}_rig", arm)
    scene.collection.objects.link(rig)
    rig.location = (0.5, -0.25, 0.0)
    rig.rotation_euler = (0.0, 0.0, 0.3)
    obj.parent = rig
    obj.matrix_parent_inverse = rig.matrix_world.inverted()
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    spans = {"root": ((0, 0, 0), (0, 0.1, 1.2), None, False), "spine": ((0, 0.1, 1.2), (0.1, 0.2, 2.5), "root", True),
             "arm": ((0.9, 0.0, 2.8), (1.6, 0.1, 3.2), "spine", False), "hand": ((1.6, 0.1, 3.2), (1.7, 0.1, 4.0), "arm", False)}
    for bone_name, (head, tail, parent, connected) in spans.items():
        bone = arm.edit_bones.new(bone_name)
        bone.head, bone.tail, bone.roll = head, tail, 0.15 * BONES.index(bone_name)
        if parent:
            bone.parent = arm.edit_bones[parent]
            bone.use_connect = connected
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = [obj.vertex_groups.new(name=n) for n in BONES]
    z = np.array(verts)[:, 2]
    x = np.array(verts)[:, 0]
    for i, h in enumerate(z):
        low = min(int(h / 1.35), 2)
        w = float(np.clip(h / 1.35 - low, 0, 1))
        groups[low].add([i], 1.0 - 0.6 * w, "REPLACE")
        groups[low + 1].add([i], 0.6 * w + 0.1, "REPLACE")
        if x[i] > 0 and low < 2:
            groups[3].add([i], 0.15, "REPLACE")           # a third weight on one side
    obj.modifiers.new("rig", "ARMATURE").object = rig
    hand = rig.pose.bones["hand"]
    copy = hand.constraints.new("COPY_ROTATION")
    copy.target, copy.subtarget, copy.influence, copy.mix_mode = rig, "root", 0.5, "ADD"
    driver = hand.driver_add("location", 1).driver
    driver.type = "SCRIPTED"
    var = driver.variables.new()
    var.type = "TRANSFORMS"
    var.targets[0].id, var.targets[0].bone_target = rig, "spine"
    var.targets[0].transform_type, var.targets[0].transform_space = "ROT_X", "LOCAL_SPACE"
    driver.expression = "var * 0.8"
    actions = {}
    for action_name, (first, last), sign in (("walk", WALK, 1), ("wave", WAVE, -1)):
        if rig.animation_data is not None:
            rig.animation_data.action = None
        for f in range(first, last + 1, 2):
            t = (f - first) / (last - first)
            for k, bone in enumerate(rig.pose.bones):
                bone.rotation_mode = "XYZ"
                bone.rotation_euler = (0.5 * sign * np.sin(3 * t) * (k + 1) / 3, 0.4 * t * (k - 1), 0.25 * t * sign)
                bone.location = (0.15 * t * k, 0, 0.1 * t) if k != 3 else (0, 0, 0)
                bone.keyframe_insert("rotation_euler", frame=f)
                bone.keyframe_insert("location", frame=f)
        actions[action_name] = stored_action(rig, action_name)
    rest_pose(rig)
    return obj, rig, actions


def blender_frames(bpy, rig, obj, action, frames) -> tuple[np.ndarray, np.ndarray]:
    """(F, 4, 4, 4) world matrices of the bones (in BONES order) and (F, V, 3) world positions of the
    evaluated mesh, with ``action`` on the rig at each scene frame of ``frames``."""
    scene = bpy.context.scene
    rig.animation_data_create()
    rig.animation_data.action = action
    slots = getattr(action, "slots", None)
    if slots:
        rig.animation_data.action_slot = slots[0]
    joints, positions = [], []
    for frame in frames:
        scene.frame_set(int(frame))
        depsgraph = bpy.context.evaluated_depsgraph_get()
        evaluated = rig.evaluated_get(depsgraph)
        world = np.array(evaluated.matrix_world, np.float64)
        joints.append([world @ np.array(evaluated.pose.bones[n].matrix, np.float64) for n in BONES])
        mesh_eval = obj.evaluated_get(depsgraph)
        mesh = mesh_eval.to_mesh()
        co = np.empty(len(mesh.vertices) * 3, np.float32)
        mesh.vertices.foreach_get("co", co)
        mesh_eval.to_mesh_clear()
        matrix = np.array(mesh_eval.matrix_world, np.float64)
        positions.append(co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3])
    rig.animation_data.action = None
    return np.array(joints), np.array(positions)


def rest_positions(bpy, obj, rig) -> np.ndarray:
    """(V, 3) world positions of the mesh with the armature in its rest position."""
    rig.data.pose_position = "REST"
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()
    mesh_eval = obj.evaluated_get(depsgraph)
    mesh = mesh_eval.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    mesh_eval.to_mesh_clear()
    rig.data.pose_position = "POSE"
    bpy.context.view_layer.update()
    matrix = np.array(obj.matrix_world, np.float64)
    return co.reshape(-1, 3) @ matrix[:3, :3].T + matrix[:3, 3]


# --- the test's own IQM decoding of joints (independent of exporters/iqm/pose_math.py) ---------------
def _rotation(q: np.ndarray) -> np.ndarray:
    x, y, z, w = (q / np.linalg.norm(q, axis=-1, keepdims=True))[..., [0, 1, 2, 3]].transpose(-1, *range(q.ndim - 1))
    return np.stack([np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)], -1),
                     np.stack([2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)], -1),
                     np.stack([2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1)], -2)


def iqm_world(parents, translate, rotate, scale) -> np.ndarray:
    """(..., J, 4, 4) world matrices of IQM joint channels (iqm.h: relative to the parent,
    translate @ rotate @ scale)."""
    local = np.zeros(translate.shape[:-1] + (4, 4))
    local[..., :3, :3] = _rotation(np.asarray(rotate, np.float64)) * np.asarray(scale, np.float64)[..., None, :]
    local[..., :3, 3] = translate
    local[..., 3, 3] = 1
    world = local.copy()
    for j, p in enumerate(parents):
        if p >= 0:
            world[..., j, :, :] = world[..., p, :, :] @ local[..., j, :, :]
    return world


def iqm_skin(positions, indexes, weights, skinning) -> np.ndarray:
    """(V, 3) vertices moved by (J, 4, 4) ``skinning`` (frame world @ inverse bind), ubyte weights / 255."""
    out = np.zeros_like(positions, dtype=np.float64)
    for k in range(4):
        m = skinning[indexes[:, k]]
        out += (weights[:, k, None] / 255.0) * (np.einsum("vij,vj->vi", m[:, :3, :3], positions) + m[:, :3, 3])
    return out


def skinning_of(model) -> np.ndarray:
    """(F, J, 4, 4) each frame's joints @ the inverse of the bind pose's, decoded from ``model``'s records."""
    parents, translate, rotate, scale = bind_pose(model)
    frames = iqm_world(parents, *frame_poses(model))
    return frames @ np.linalg.inv(iqm_world(parents, translate, rotate, scale))


def plain_bounds(positions, indexes, weights, skinning) -> np.ndarray:
    """(F, 8) bbmin, bbmax, xyradius, radius of (V, 3) ``positions`` skinned by each frame of (F, J, 4, 4)
    ``skinning`` (ubyte ``indexes`` and ``weights`` / 255), one frame at a time."""
    out = []
    for frame in skinning:
        blended = sum((weights[:, k] / 255.0)[:, None, None] * frame[indexes[:, k].astype(np.int64), :3, :]
                      for k in range(indexes.shape[1]))
        moved = np.einsum("vij,vj->vi", blended[:, :, :3], positions) + blended[:, :, 3]
        out.append(np.concatenate([moved.min(axis=0), moved.max(axis=0),
                                   [np.sqrt((moved[:, :2] ** 2).sum(1)).max(), np.sqrt((moved ** 2).sum(1)).max()]]))
    return np.array(out)


def smd_world(nodes: list[int], frames: list[np.ndarray]) -> np.ndarray:
    """(F, J, 4, 4) world matrices of DarkPlaces' decompiled SMD frames: each row ``x y z rx ry rz``
    relative to the parent, rotation Rz(rz) Ry(ry) Rx(rx) (DarkPlaces ``Mod_Decompile_SMD``'s matrix)."""
    out = []
    for rows in frames:
        rx, ry, rz = rows[:, 3], rows[:, 4], rows[:, 5]
        cx, sx, cy, sy, cz, sz = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry), np.cos(rz), np.sin(rz)
        local = np.zeros((len(rows), 4, 4))
        local[:, 0, :3] = np.stack([cy * cz, sx * sy * cz - cx * sz, cx * sy * cz + sx * sz], 1)
        local[:, 1, :3] = np.stack([cy * sz, sx * sy * sz + cx * cz, cx * sy * sz - sx * cz], 1)
        local[:, 2, :3] = np.stack([-sy, sx * cy, cx * cy], 1)
        local[:, :3, 3] = rows[:, :3]
        local[:, 3, 3] = 1
        world = local.copy()
        for j, p in enumerate(nodes):
            if p >= 0:
                world[j] = world[p] @ local[j]
        out.append(world)
    return np.array(out)


def joint_tolerance(model, world: np.ndarray) -> float:
    """What the file's quantisation allows a joint's world matrix entries to be off by: per joint of
    the deepest chain half a translation step, plus half a rotation step (x4: two components, two
    products) times the largest lever arm, plus float32 slack."""
    scales = model.poses["channelscale"]
    depth = 1 + max((_depth(model.poses["parent"], j) for j in range(len(model.poses))), default=0)
    extent = 1.0 + float(np.abs(world[..., :3, 3]).max())
    return depth * (0.5 * float(scales[:, 0:3].max()) + 2.0 * float(scales[:, 3:7].max()) * extent) + 1e-5


def _depth(parents, j) -> int:
    return 0 if parents[j] < 0 else 1 + _depth(parents, parents[j])


def decoded_worlds(model) -> np.ndarray:
    parents, *_ = bind_pose(model)
    translate, rotate, scale = frame_poses(model)
    return iqm_world(parents, translate, rotate, scale)


def joint_errors(model, blender: dict[str, np.ndarray]) -> dict[str, float]:
    """Each anim's largest difference between the file's joints (by name) and Blender's bones."""
    worlds = decoded_worlds(model)
    by_name = [model.joint_names.index(n) for n in BONES]
    out = {}
    for index, name in enumerate(model.anim_names):
        frames = list(anim_frames(model, index))
        out[name] = float(np.abs(worlds[frames][:, by_name] - blender[name]).max())
    return out
