"""A rig keyed in Blender for the MS3D export's poses from F-curves (needs bpy at call time).

``keyed_rig``: a strip of quads up Z skinned to five bones; root and its children not connected
(heads off the parent's tail, rolled), one connected, one more root bone. Rotation modes XYZ,
QUATERNION, YXZ (connected), ZYX and XZY; keys on whole and half frames, before the scene range
(constant extrapolation) and after it, Bezier (auto-clamped and free handles pulled past the next
key, which Blender's ``correct_bezpart`` shortens), linear and constant, location, non-uniform
scale, angles past pi, and channels keyed on one axis only (the others keep the property's value).
"""
from __future__ import annotations

import math

BONES = (  # name, head, tail, roll, parent, connected, rotation mode
    ("root", (0.0, 0.0, 0.0), (0.0, 0.1, 1.0), 0.2, None, False, "XYZ"),
    ("upper", (0.1, 0.05, 1.2), (0.0, 0.2, 2.1), -0.4, "root", False, "QUATERNION"),
    ("tip", (0.0, 0.2, 2.1), (0.1, 0.1, 3.0), 0.7, "upper", True, "YXZ"),
    ("side", (0.5, 0.0, 0.6), (1.2, 0.1, 0.8), 1.1, "root", False, "ZYX"),
    ("loose", (-0.8, 0.0, 0.2), (-0.8, 0.3, 1.0), 0.0, None, False, "XZY"),
)
FRAMES = (-3.0, 1.0, 4.5, 9.0, 14.0, 22.0, 31.0, 45.0)


def _key(pose_bone, path: str, frame: float, value, interpolation: str, index: int = -1) -> None:
    target = getattr(pose_bone, path)
    if index >= 0:
        target[index] = value
    else:
        target[:] = value
    pose_bone.keyframe_insert(path, index=index, frame=frame)


def keyed_rig(bpy):
    """The strip and its armature, animated over FRAMES; scene frames 1-40 at 24 fps. Returns (mesh, rig)."""
    scene = bpy.context.scene
    mesh = bpy.data.meshes.new("Strip")
    verts = [(x, 0.0, z * 0.25) for z in range(13) for x in (-0.3, 0.3)]
    faces = [(2 * r, 2 * r + 1, 2 * r + 3, 2 * r + 2) for r in range(12)]
    mesh.from_pydata(verts, [], faces)
    body = bpy.data.objects.new("Strip", mesh)
    scene.collection.objects.link(body)
    data = bpy.data.armatures.new("Keyed")
    rig = bpy.data.objects.new("Keyed", data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for name, head, tail, roll, parent, connected, _ in BONES:
        bone = data.edit_bones.new(name)
        bone.head, bone.tail, bone.roll = head, tail, roll
        if parent is not None:
            bone.parent = data.edit_bones[parent]
            bone.use_connect = connected
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = {name: body.vertex_groups.new(name=name) for name, *_ in BONES}
    for vertex in mesh.vertices:
        z = vertex.co.z
        owner = "root" if z < 1.1 else "upper" if z < 2.1 else "tip"
        groups[owner].add([vertex.index], 0.7, "REPLACE")
        groups["side" if vertex.co.x > 0 else "loose"].add([vertex.index], 0.3, "REPLACE")
    body.modifiers.new("Armature", "ARMATURE").object = rig
    body.parent = rig
    pose = rig.pose.bones
    for pose_bone, (*_, mode) in zip(pose, BONES):
        pose_bone.rotation_mode = mode
    pose["loose"].rotation_euler = (0.3, -0.2, 0.1)
    pose["loose"].location = (0.05, 0.0, -0.1)
    for k, frame in enumerate(FRAMES):
        a = math.sin(1.3 * k + 0.4) * (1.0 + 0.35 * k)
        kind = ("BEZIER", "LINEAR", "BEZIER", "CONSTANT", "BEZIER", "LINEAR", "BEZIER", "BEZIER")[k]
        _key(pose["root"], "rotation_euler", frame, (0.3 * a, -0.2 * a, 1.7 * a), kind)
        _key(pose["root"], "location", frame, (0.1 * a, 0.05 * k, -0.1 * a), kind)
        _key(pose["root"], "scale", frame, (1.0 + 0.1 * a, 1.0, 1.0 - 0.05 * a), kind)
        half = math.cos(0.9 * k) * 1.4
        w, x, y, z = math.cos(half), math.sin(half) * 0.6, math.sin(half) * 0.64, math.sin(half) * -0.48
        _key(pose["upper"], "rotation_quaternion", frame, (w, x, y, z), kind)
        if k % 2 == 0:
            _key(pose["upper"], "location", frame, (0.0, 0.08 * a, 0.0), kind)
        _key(pose["tip"], "rotation_euler", frame, (-a, 0.4 * a, 3.5 + a), kind)
        _key(pose["tip"], "location", frame, (0.2 * a, 0.0, 0.0), kind)        # connected: not applied
        _key(pose["side"], "rotation_euler", frame + 0.5, (0.5 * a, 0.0, -0.8 * a), "LINEAR" if k % 3 else "BEZIER")
        _key(pose["side"], "location", frame + 0.5, (0.0, 0.1 * a, 0.05), "CONSTANT" if k % 2 else "BEZIER")
        if k % 3 != 1:
            _key(pose["loose"], "rotation_euler", frame, 2.0 * a, kind, index=2)
    for fcurve in fcurves(rig):
        for point, kind in zip(fcurve.keyframe_points, ("BEZIER", "LINEAR", "BEZIER", "CONSTANT", "BEZIER",
                                                        "LINEAR", "BEZIER", "BEZIER")):
            point.interpolation = kind
        fcurve.update()
        if fcurve.data_path.endswith("rotation_euler") and fcurve.array_index == 0 and len(fcurve.keyframe_points) > 5:
            point = fcurve.keyframe_points[4]          # free handles pulled past both neighbours
            point.handle_left_type = point.handle_right_type = "FREE"
            point.handle_left = (point.co.x - 9.0, point.co.y + 2.0)
            point.handle_right = (point.co.x + 12.0, point.co.y - 1.5)
    scene.frame_start, scene.frame_end = 1, 40
    scene.render.fps, scene.render.fps_base = 24, 1.0
    scene.frame_set(1)
    return body, rig


def fcurves(obj) -> list:
    """The F-curves of the action ``obj`` plays (4.2 to 5.x)."""
    anim = obj.animation_data
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        return list(anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves)
    return list(anim.action.fcurves)
