"""Scenes rigged in the tests with armature actions, and the exports that sample them."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .blender_helpers import evaluated_positions, rest_pose, stored_action


def action_fcurves(action) -> list:
    """Every F-curve of ``action``: its layers' channelbags (slotted actions, 4.4 and later), else
    ``action.fcurves`` (4.2, 4.3)."""
    if hasattr(action, "layers"):
        return [c for layer in action.layers for strip in layer.strips for bag in strip.channelbags
                for c in bag.fcurves]
    return list(action.fcurves)


def select_only(bpy, objects):
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]


def export(bpy, kind: str, objects, path: Path, **options) -> bytes:
    select_only(bpy, objects)
    operator = getattr(bpy.ops.export_scene, kind)
    options.setdefault("frame_rate", "SCENE")     # these scenes check frames per action frame
    assert operator(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes()


def assign(bpy, id_block, action) -> None:
    """Play ``action`` on ``id_block`` (4.2 to 5.x), written independently of the extension."""
    anim = id_block.animation_data or id_block.animation_data_create()
    anim.action = action
    if hasattr(anim, "action_slot") and anim.action_slot is None:
        anim.action_slot = action.slots[0]


def rigged_model(bpy, name: str = "body", offset=(0.0, 0.0, 0.0)):
    """A column of quads with UVs deformed by a two-bone armature; actions ``walk`` (frames 1-5) and
    ``attack`` (frames 10-17) with fake users, no action assigned."""
    mesh = bpy.data.meshes.new(name)
    rows = 6
    verts = [(x, 0.0, z) for z in range(rows) for x in (-0.5, 0.5)]
    faces = [(2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2) for r in range(rows - 1)]
    mesh.from_pydata(verts, [], faces)
    uv = mesh.uv_layers.new(name="UVMap")
    co = np.array([(0.1 + 0.8 * (v[0] + 0.5), 0.05 + 0.9 * v[2] / rows) for v in verts])
    corners = np.empty(len(mesh.loops), np.int32)
    mesh.loops.foreach_get("vertex_index", corners)
    uv.uv.foreach_set("vector", co[corners].ravel())
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)
    obj.location = offset

    arm_data = bpy.data.armatures.new(f"{name}_rig")
    rig = bpy.data.objects.new(f"{name}_rig", arm_data)
    bpy.context.scene.collection.objects.link(rig)
    rig.location = offset
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    bpy.context.view_layer.objects.active = rig
    rig.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    lower = arm_data.edit_bones.new("lower")
    lower.head, lower.tail = (0, 0, 0), (0, 0, 2.5)
    upper = arm_data.edit_bones.new("upper")
    upper.head, upper.tail, upper.parent = (0, 0, 2.5), (0, 0, 5), lower
    bpy.ops.object.mode_set(mode="OBJECT")
    low_group, up_group = obj.vertex_groups.new(name="lower"), obj.vertex_groups.new(name="upper")
    for i, v in enumerate(verts):
        weight = min(max(v[2] / (rows - 1), 0.0), 1.0)
        low_group.add([i], 1.0 - weight, "REPLACE")
        up_group.add([i], weight, "REPLACE")
    obj.modifiers.new("rig", "ARMATURE").object = rig

    actions = {}
    for action_name, frames in (("walk", range(1, 6)), ("attack", range(10, 18))):
        if rig.animation_data is not None:
            rig.animation_data.action = None
        for f in frames:
            t = (f - frames[0]) / (len(frames) - 1)
            rig.pose.bones["lower"].rotation_mode = "XYZ"
            rig.pose.bones["upper"].rotation_mode = "XYZ"
            rig.pose.bones["lower"].rotation_euler = (0.3 * np.sin(4 * t), 0, 0)
            rig.pose.bones["upper"].rotation_euler = (0, 0.8 * t * (1 if action_name == "walk" else -1), 0)
            rig.pose.bones["upper"].location = (0, 0.2 * t, 0)
            for bone in ("lower", "upper"):
                rig.pose.bones[bone].keyframe_insert("rotation_euler", frame=f)
                rig.pose.bones[bone].keyframe_insert("location", frame=f)
        actions[action_name] = stored_action(rig, action_name)
    rest_pose(rig)
    return obj, rig, actions


def posed(bpy, obj, rig, action, frames) -> np.ndarray:
    """World-space evaluated positions with ``action`` on the rig at each frame."""
    saved = rig.animation_data.action
    assign(bpy, rig, action)
    out = []
    for f in frames:
        bpy.context.scene.frame_set(f)
        co = evaluated_positions(bpy, obj).astype(np.float64)
        matrix = np.array(obj.matrix_world)
        out.append(co @ matrix[:3, :3].T + matrix[:3, 3])
    rig.animation_data.action = saved
    return np.array(out)
