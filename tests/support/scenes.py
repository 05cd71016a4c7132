"""Blender scenes the tests animate: a bend over four frames, a skinned cylinder."""
from __future__ import annotations

import numpy as np

from .blender_helpers import evaluated_positions


def bend_over_four_frames(bpy, obj) -> list[np.ndarray]:
    """Animate a bend of ``obj`` over scene frames 1-4 (marker "bend" at 1); Blender's evaluated
    positions at each frame."""
    scene = bpy.context.scene
    mod = obj.modifiers.new("bend", "SIMPLE_DEFORM")
    for frame, angle in ((1, 0.0), (4, 1.2)):
        mod.angle = angle
        mod.keyframe_insert("angle", frame=frame)
    scene.frame_start, scene.frame_end = 1, 4
    scene.timeline_markers.new("bend", frame=1)
    expected = []
    for f in range(1, 5):
        scene.frame_set(f)
        expected.append(evaluated_positions(bpy, obj))
    return expected


def skinned_cylinder(bpy):
    """A Blender-made model: a subdivided cylinder, a three-bone chain with rolls, 75/25 weights
    at the joints, an action keying Euler XYZ, quaternion and ZXY rotations and a location."""
    from mathutils import Quaternion
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_cylinder_add(vertices=10, radius=0.5, depth=3.0, location=(0, 0, 1.5))
    body = bpy.context.object
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.subdivide(number_cuts=5)
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.transform_apply(location=True)
    data = bpy.data.armatures.new("Rig")
    rig = bpy.data.objects.new("Rig", data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    previous = None
    for i in range(3):
        bone = data.edit_bones.new(f"bone{i}")
        bone.head, bone.tail, bone.roll = (0, 0, i), (0.1 * i, 0.05, i + 1), 0.3 * i
        bone.parent = previous
        previous = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = [body.vertex_groups.new(name=f"bone{i}") for i in range(3)]
    for vertex in body.data.vertices:
        b = min(int(vertex.co.z), 2)
        if vertex.co.z - b >= 0.5 and b < 2:
            groups[b].add([vertex.index], 0.75, "REPLACE")
            groups[b + 1].add([vertex.index], 0.25, "REPLACE")
        else:
            groups[b].add([vertex.index], 1.0, "REPLACE")
    body.modifiers.new("Armature", "ARMATURE").object = rig
    body.parent = rig
    pose = rig.pose.bones
    pose[0].rotation_mode, pose[1].rotation_mode, pose[2].rotation_mode = "XYZ", "QUATERNION", "ZXY"
    for frame, a in ((1, 0.0), (5, 0.6), (9, -0.4)):
        pose[0].rotation_euler = (a * 0.3, 0.1 * a, a)
        pose[0].keyframe_insert("rotation_euler", frame=frame)
        pose[0].location = (0.1 * a, 0, 0.2 * a)
        pose[0].keyframe_insert("location", frame=frame)
        pose[1].rotation_quaternion = Quaternion((1, 0.2 * a, a, 0)).normalized()
        pose[1].keyframe_insert("rotation_quaternion", frame=frame)
        pose[2].rotation_euler = (a, -a, 0.5 * a)
        pose[2].keyframe_insert("rotation_euler", frame=frame)
    scene.frame_start, scene.frame_end = 1, 9
    return body, rig
