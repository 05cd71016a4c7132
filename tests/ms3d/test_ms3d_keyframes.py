"""MS3D *Keyframes* export: the file, played by MilkShape's rules, poses the mesh as Blender does at
every scene frame, within the tolerance, with fewer keys than *Bake*.

The rig is made here: a cylinder 3.2 units tall skinned to a bent chain of three rolled bones
(weights in whole percentages), location and rotation keys on frames 1, 8, 16 and 24 with Bezier,
linear or constant interpolation, or a constraint / NLA strip on top. The exported file is decoded by
``ms3d_reference`` and posed by ``ms3d_skinning`` (the tests' own transcription of MilkShape's
skinning), with positions on MilkShape's Hermite curves and linearly, and compared with Blender's
evaluated mesh. Float32 storage adds about 1e-6 of the model's size (2e-5 units allowed on top).
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from support import ms3d_skinning
from support.ms3d_reference import decode

Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])
KEY_FRAMES = (1, 8, 16, 24)
FLOAT_SLACK = 2e-5
INTERPOLATIONS = ("BEZIER", "LINEAR", "CONSTANT")


def _set_interpolation(rig, kind: str) -> None:
    for fcurve in _fcurves(rig):
        for point in fcurve.keyframe_points:
            point.interpolation = kind
        fcurve.update()


def _fcurves(obj) -> list:
    anim = obj.animation_data
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        return list(anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves)
    return list(anim.action.fcurves)


def bent_chain(bpy, interpolation: str = "BEZIER"):
    """The skinned cylinder and its armature, animated on KEY_FRAMES; scene frames 1-24 at 24 fps."""
    from mathutils import Euler
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_cylinder_add(vertices=12, radius=0.4, depth=3.2, location=(0, 0, 1.6))
    body = bpy.context.object
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.subdivide(number_cuts=7)
    bpy.ops.object.mode_set(mode="OBJECT")
    bpy.ops.object.transform_apply(location=True)
    data = bpy.data.armatures.new("Chain")
    rig = bpy.data.objects.new("Chain", data)
    scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    previous, heads = None, [(0, 0, 0), (0.15, 0.0, 1.1), (0.1, 0.2, 2.2), (0.3, 0.25, 3.2)]
    for i in range(3):
        bone = data.edit_bones.new(f"b{i}")
        bone.head, bone.tail, bone.roll = heads[i], heads[i + 1], 0.4 * i - 0.3
        bone.parent = previous
        bone.use_connect = previous is not None
        previous = bone
    bpy.ops.object.mode_set(mode="OBJECT")
    groups = [body.vertex_groups.new(name=f"b{i}") for i in range(3)]
    for vertex in body.data.vertices:
        z = vertex.co.z / 1.1
        b = min(int(z), 2)
        share = round(100 * min(max(z - b - 0.5, 0.0), 0.5)) if b < 2 else 0     # blend over the upper half
        groups[b].add([vertex.index], (100 - share) / 100, "REPLACE")
        if share:
            groups[b + 1].add([vertex.index], share / 100, "REPLACE")
    body.modifiers.new("Armature", "ARMATURE").object = rig
    body.parent = rig
    pose = rig.pose.bones
    for frame, a in zip(KEY_FRAMES, (0.0, 0.9, -0.5, 0.3)):
        pose[0].rotation_mode = "XYZ"
        pose[0].rotation_euler = (0.3 * a, 0.2 * a, a)
        pose[0].location = (0.2 * a, 0.1 * a, -0.15 * a)
        pose[1].rotation_mode = "QUATERNION"
        pose[1].rotation_quaternion = Euler((a, -0.5 * a, 0.7 * a)).to_quaternion()
        pose[2].rotation_mode = "ZXY"
        pose[2].rotation_euler = (-a, 0.4 * a, 0.2)
        pose[2].location = (0.0, 0.05 * a, 0.0)
        for bone, paths in ((pose[0], ("rotation_euler", "location")), (pose[1], ("rotation_quaternion",)),
                            (pose[2], ("rotation_euler", "location"))):
            for path in paths:
                bone.keyframe_insert(path, frame=frame)
    _set_interpolation(rig, interpolation)
    scene.frame_start, scene.frame_end = 1, 24
    scene.render.fps, scene.render.fps_base = 24, 1.0
    return body, rig


def blender_frames(bpy, body) -> dict[int, np.ndarray]:
    """Blender's evaluated mesh (world space, one row per mesh vertex) at every scene frame."""
    scene = bpy.context.scene
    out = {}
    for frame in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(frame)
        obj_eval = body.evaluated_get(bpy.context.evaluated_depsgraph_get())
        mesh = obj_eval.to_mesh()
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        obj_eval.to_mesh_clear()
        matrix = np.array(body.matrix_world)
        out[frame] = co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]
    scene.frame_set(scene.frame_start)
    return out


def export(bpy, path, capfd, **options) -> tuple[bytes, str]:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    capfd.readouterr()
    assert bpy.ops.export_scene.ms3d(filepath=str(path), **options) == {"FINISHED"}
    return path.read_bytes(), capfd.readouterr().out


def deviations(bpy, body, ref, expected: dict[int, np.ndarray]) -> dict[bool, float]:
    """Largest distance between MilkShape's pose of the file and Blender's, per position rule."""
    rest = np.array([v[1] for v in ref.vertices], dtype=np.float64) @ Y_UP_TO_Z_UP.T
    co = np.empty(len(body.data.vertices) * 3, dtype=np.float32)
    body.data.vertices.foreach_get("co", co)
    world = co.reshape(-1, 3) @ np.array(body.matrix_world)[:3, :3].T + np.array(body.matrix_world)[:3, 3]
    match = np.argmin(((world[:, None, :] - rest[None, :, :]) ** 2).sum(axis=2), axis=1)
    assert np.abs(rest[match] - world).max() < 1e-5, "every mesh vertex is a file vertex"
    worst = {}
    for linear in (False, True):
        worst[linear] = max(float(np.linalg.norm(
            ms3d_skinning.skin(ref, ref.fps, frame, linear=linear)[match] @ Y_UP_TO_Z_UP.T - positions, axis=1).max())
            for frame, positions in expected.items())
    return worst


def model_size(ref) -> float:
    return float(np.ptp(np.array([v[1] for v in ref.vertices]), axis=0).max())


def key_count(ref) -> int:
    return sum(len(j["rot_keys"]) + len(j["pos_keys"]) for j in ref.joints)


REPORT = re.compile(r"(\d+) keys written, (\d+) added .* largest deviation (?:at most )?([0-9.e+-]+) \(tolerance ([0-9.e+-]+)\)")


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
def test_keyframes_play_in_milkshape_as_in_blender(bpy_scene, tmp_path, capfd, interpolation):
    bpy = bpy_scene
    body, rig = bent_chain(bpy, interpolation)
    expected = blender_frames(bpy, body)
    data, out = export(bpy, tmp_path / "keys.ms3d", capfd)
    ref = decode(data)
    size = model_size(ref)
    assert size == pytest.approx(3.2, abs=1e-5)
    tolerance = 1e-3 * size
    worst = deviations(bpy, body, ref, expected)
    assert worst[False] <= tolerance + FLOAT_SLACK and worst[True] <= tolerance + FLOAT_SLACK, worst
    moved = max(float(np.abs(p - expected[1]).max()) for p in expected.values())
    assert moved > 100 * tolerance, "the animation moves the mesh"

    for j in ref.joints:                                      # the action's keys are kept at their frames
        assert {1, 8, 16, 24} <= set(np.rint(np.array([k[0] for k in j["rot_keys"]]) * 24).astype(int).tolist())
    assert [len(j["pos_keys"]) > 0 for j in ref.joints] == [True, False, True]

    written, added, bound, reported_tolerance = REPORT.search(out).groups()
    assert int(written) == key_count(ref)
    assert int(added) == key_count(ref) - 4 * 5               # five keyed channels of four keys
    assert float(reported_tolerance) == pytest.approx(tolerance, rel=1e-3)
    assert max(worst.values()) - FLOAT_SLACK <= float(bound) <= tolerance * 1.001

    baked, _ = export(bpy, tmp_path / "bake.ms3d", capfd, animation="BAKE")
    assert key_count(ref) < key_count(decode(baked)) == 2 * 3 * 24
    if interpolation == "LINEAR":       # slerp between keys of a rotation about changing axes still needs keys
        assert int(added) > 0


def test_bezier_keys_between_frames_are_added_only_where_needed(bpy_scene, tmp_path, capfd):
    """A looser tolerance needs fewer keys, a tighter one more; each still holds."""
    bpy = bpy_scene
    body, rig = bent_chain(bpy)
    expected = blender_frames(bpy, body)
    counts = []
    for percent in (1.0, 0.1, 0.01):
        data, _ = export(bpy, tmp_path / "keys.ms3d", capfd, tolerance=percent)
        ref = decode(data)
        worst = deviations(bpy, body, ref, expected)
        assert max(worst.values()) <= percent / 100 * model_size(ref) + FLOAT_SLACK
        counts.append(key_count(ref))
    assert counts[0] <= counts[1] <= counts[2] <= 2 * 3 * 24
    assert counts[0] < counts[2]


def test_tolerance_zero_is_bake(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    bent_chain(bpy)
    zero, _ = export(bpy, tmp_path / "zero.ms3d", capfd, tolerance=0.0)
    baked, _ = export(bpy, tmp_path / "bake.ms3d", capfd, animation="BAKE")
    assert zero == baked


@pytest.mark.parametrize("setup", ["constraint", "nla"])
def test_constraints_and_nla_are_what_is_compared(bpy_scene, tmp_path, capfd, setup):
    """The evaluated pose is the reference: a Damped Track on the tip bone following an animated empty,
    or the action played from an NLA strip (shifted and slowed) instead of directly."""
    bpy = bpy_scene
    body, rig = bent_chain(bpy)
    if setup == "constraint":
        target = bpy.data.objects.new("Target", None)
        bpy.context.scene.collection.objects.link(target)
        for frame, x in ((1, -2.0), (12, 2.0), (24, -1.0)):
            target.location = (x, 1.0, 4.0)
            target.keyframe_insert("location", frame=frame)
        constraint = rig.pose.bones[2].constraints.new("DAMPED_TRACK")
        constraint.target = target
    else:
        anim = rig.animation_data
        action = anim.action
        track = anim.nla_tracks.new()
        strip = track.strips.new("walk", 3, action)
        strip.scale = 0.8
        anim.action = None
    expected = blender_frames(bpy, body)
    data, _ = export(bpy, tmp_path / "keys.ms3d", capfd)
    ref = decode(data)
    tolerance = 1e-3 * model_size(ref)
    worst = deviations(bpy, body, ref, expected)
    assert max(worst.values()) <= tolerance + FLOAT_SLACK, worst
    baked, _ = export(bpy, tmp_path / "bake.ms3d", capfd, animation="BAKE")
    assert key_count(ref) < key_count(decode(baked))


def test_imported_animation_plays_milkshape_rotations_on_every_whole_frame(bpy_scene):
    """Between key times Blender's linear Euler curves would stray from MilkShape's slerp (0.16 units
    on sge/zombie.ms3d before the import added 'generated' keys on whole frames); now every frame of
    the range poses as MilkShape does, which is what lets an untouched Keyframes export add nothing."""
    from support.environment import CORPUS
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    assert bpy.ops.import_scene.ms3d(filepath=str(path)) == {"FINISHED"}
    (obj,) = [o for o in bpy.context.scene.objects if "ms3d_group" in o]
    index = np.empty(len(obj.data.vertices), dtype=np.int32)
    obj.data.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
    expected = blender_frames(bpy, obj)
    worst = max(float(np.abs(ms3d_skinning.skin(ref, ref.fps, frame)[index] @ Y_UP_TO_Z_UP.T - positions).max())
                for frame, positions in expected.items())
    assert len(expected) == 200 and worst < 1e-4 * model_size(ref)


def test_a_scene_range_too_long_to_sample_keeps_the_action_keys(bpy_scene, tmp_path, capfd):
    """Over 2,000,000 poses (frames x joints) Keyframes writes the action's keys with a warning and
    Bake refuses, naming the range; the old file stays."""
    bpy = bpy_scene
    bent_chain(bpy)
    bpy.context.scene.frame_end = 700_000
    data, out = export(bpy, tmp_path / "long.ms3d", capfd)
    ref = decode(data)
    assert "the action's keys are written as they are" in out
    assert [len(j["rot_keys"]) for j in ref.joints] == [4, 4, 4]
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    with pytest.raises(RuntimeError, match="cannot bake: the scene range .700000 frames x 3 joints"):
        bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "long.ms3d"), animation="BAKE")
    assert (tmp_path / "long.ms3d").read_bytes() == data


def test_export_leaves_selection_visibility_and_frame_as_they_were(bpy_scene, tmp_path, capfd):
    """Sampling steps the timeline with the meshes disabled in viewports; afterwards everything is as
    before, so exporting twice writes the same file."""
    bpy = bpy_scene
    body, rig = bent_chain(bpy)
    bpy.context.scene.frame_set(5)
    first, _ = export(bpy, tmp_path / "a.ms3d", capfd)
    state = [(o.name, o.select_get(), o.hide_viewport, o.hide_get()) for o in bpy.context.scene.objects]
    active = bpy.context.view_layer.objects.active
    second, _ = export(bpy, tmp_path / "b.ms3d", capfd, animation="BAKE")
    third, _ = export(bpy, tmp_path / "c.ms3d", capfd)
    assert state == [(o.name, o.select_get(), o.hide_viewport, o.hide_get()) for o in bpy.context.scene.objects]
    assert all(selected for _, selected, _, _ in state)
    assert bpy.context.view_layer.objects.active == active and bpy.context.scene.frame_current == 5
    assert first == third and len(decode(second).vertices) == len(decode(first).vertices) > 0
