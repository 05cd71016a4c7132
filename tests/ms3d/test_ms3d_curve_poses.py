"""MS3D export reads the poses from the action's F-curves where they alone decide them (issue #33).

The poses computed from the F-curves (``exporters/sampling/curve_pose.py``) are compared bit for bit with
``PoseBone.matrix`` read after ``scene.frame_set`` at every frame (and at subframes for the rig keyed
here, ``support.ms3d_rigs``: Euler orders, a quaternion bone, a connected bone, scale, Bezier handles
Blender shortens, constant and linear keys, keys off the scene range). The export must then step no
frame (counted by a ``frame_change_pre`` handler) and write the same bytes as the stepping export,
which a muted constraint forces; where the F-curves do not decide the pose the report says why.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from support.blender_helpers import FrameCounter
from support.environment import corpus
from support.ms3d_rigs import fcurves, keyed_rig

CORPUS_RIGS = ("ms3d/glscene/Woman4.ms3d", "ms3d/sge/zombie.ms3d")
STEPPED = "poses read by stepping the timeline: "


def _curve_pose(extension):
    return importlib.import_module(f"{extension}.exporters.sampling.curve_pose")


def _stepped(bpy, rig, frames) -> np.ndarray:
    scene = bpy.context.scene
    pose_bones = rig.pose.bones
    out = np.empty((len(frames), len(pose_bones) * 16), dtype=np.float32)
    for f, frame in enumerate(frames):
        whole = int(np.floor(frame))
        scene.frame_set(whole, subframe=float(frame - whole))
        pose_bones.foreach_get("matrix", out[f])
    return out.reshape(len(frames), len(pose_bones), 16)


def _scene(bpy, case: str):
    if case == "keyed rig":
        return keyed_rig(bpy)[1]
    assert bpy.ops.import_scene.ms3d(filepath=str(corpus(case))) == {"FINISHED"}
    return next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")


def _export(bpy, path, capfd, **options) -> tuple[bytes, list[str], int]:
    for obj in bpy.context.view_layer.objects:
        obj.select_set(True)
    capfd.readouterr()
    with FrameCounter(bpy) as frames:
        assert bpy.ops.export_scene.ms3d(filepath=str(path), **options) == {"FINISHED"}
    out = capfd.readouterr().out
    return path.read_bytes(), [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("Info: ")], \
        frames.count


@pytest.mark.parametrize("case", CORPUS_RIGS + ("keyed rig",))
def test_poses_fromfcurves_equal_the_stepped_poses_bit_for_bit(bpy_scene, extension, case):
    bpy = bpy_scene
    rig = _scene(bpy, case)
    scene = bpy.context.scene
    frames = np.arange(scene.frame_start, scene.frame_end + 1, dtype=np.float64)
    if case == "keyed rig":
        frames = np.arange(-6.0, 50.0, 0.125)         # subframes, before and after every key
    poses, reason = _curve_pose(extension).curve_poses(bpy.context, rig, frames)
    assert reason is None
    expected = _stepped(bpy, rig, frames)
    assert poses.shape == expected.shape
    moved = np.abs(expected - expected[:1]).max()
    assert moved > 0.1, "the rig moves"
    assert np.array_equal(poses.view(np.uint32), expected.view(np.uint32))


def _no_animation(rig) -> None:
    rig.animation_data_clear()
    rig.pose.bones["root"].rotation_euler = (0.3, 2.0, -4.0)


def _other_orders(rig) -> None:
    rig.pose.bones["side"].rotation_mode = "YZX"
    rig.pose.bones["loose"].rotation_mode = "ZXY"


def _single_keys(rig) -> None:
    for fcurve in fcurves(rig):
        if '"upper"' in fcurve.data_path:
            while len(fcurve.keyframe_points) > 1:
                fcurve.keyframe_points.remove(fcurve.keyframe_points[0])


def _long_handles(rig) -> None:
    for fcurve in fcurves(rig):
        for point in fcurve.keyframe_points:
            point.handle_left_type = point.handle_right_type = "FREE"
            point.handle_left.x -= 3.3
            point.handle_right.x += 4.1


def _zero_quaternion(rig) -> None:          # Blender normalises a zero quaternion to (0, 1, 0, 0)
    for fcurve in fcurves(rig):
        fcurve.mute = "rotation_quaternion" in fcurve.data_path
    rig.pose.bones["upper"].rotation_quaternion = (0.0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("change", [_no_animation, _other_orders, _single_keys, _long_handles, _zero_quaternion])
def test_poses_fromfcurves_hold_at_the_edges(bpy_scene, extension, change):
    """No action, the two Euler orders the rig lacks, one-key curves, handles pulled far past both
    neighbours (Blender shortens them), a zero quaternion: still Blender's bits, subframes included."""
    bpy = bpy_scene
    rig = keyed_rig(bpy)[1]
    change(rig)
    frames = np.arange(-3.0, 48.0, 0.5)
    poses, reason = _curve_pose(extension).curve_poses(bpy.context, rig, frames)
    assert reason is None
    assert np.array_equal(poses.view(np.uint32), _stepped(bpy, rig, frames).view(np.uint32))


@pytest.mark.parametrize("case", CORPUS_RIGS + ("keyed rig",))
def test_export_steps_no_frame_and_writes_the_stepping_export_bytes(bpy_scene, tmp_path, capfd, case):
    """Keyframes and Bake: no frame_set during the export; a muted constraint (no effect on the pose)
    makes the export step every frame, name the constraint in one report line, and write the same file."""
    bpy = bpy_scene
    rig = _scene(bpy, case)
    scene = bpy.context.scene
    count = scene.frame_end - scene.frame_start + 1
    fast = {mode: _export(bpy, tmp_path / f"fast_{mode}.ms3d", capfd, animation=mode) for mode in ("KEYS", "BAKE")}
    for data, info, frames in fast.values():
        assert frames == 0
        assert not [line for line in info if line.startswith(STEPPED)]
    constraint = rig.pose.bones[0].constraints.new("COPY_LOCATION")
    constraint.mute = True
    for mode, (data, _, _) in fast.items():
        stepped, info, frames = _export(bpy, tmp_path / f"stepped_{mode}.ms3d", capfd, animation=mode)
        assert frames >= count
        assert [line for line in info if line.startswith(STEPPED)] == [
            f"{STEPPED}1 bone(s) have constraints ('{rig.pose.bones[0].name}' ...)"]
        assert stepped == data


def _driver(bpy, rig) -> None:
    rig.pose.bones["side"].driver_add("rotation_euler", 1).driver.expression = "0.3"


def _nla(bpy, rig) -> None:
    rig.animation_data.nla_tracks.new()


def _easing(bpy, rig) -> None:
    fcurves(rig)[0].keyframe_points[2].interpolation = "SINE"


def _cycles(bpy, rig) -> None:
    fcurves(rig)[1].modifiers.new("CYCLES")


def _hinge(bpy, rig) -> None:
    rig.data.bones["upper"].use_inherit_rotation = False


def _stretch(bpy, rig) -> None:
    bpy.context.scene.render.frame_map_new = 50


@pytest.mark.parametrize("setup, reason", [
    (_driver, "'Keyed' has drivers"),
    (_nla, "the armature's animation uses NLA tracks"),
    (_easing, "uses easing interpolation"),
    (_cycles, "has modifiers"),
    (_hinge, "bone 'upper' does not inherit its parent's full transform"),
    (_stretch, "the scene remaps time (Time Stretching)"),
])
def test_what_thefcurves_do_not_decide_is_stepped_and_reported(bpy_scene, tmp_path, capfd, setup, reason):
    bpy = bpy_scene
    rig = keyed_rig(bpy)[1]
    setup(bpy, rig)
    _, info, frames = _export(bpy, tmp_path / "out.ms3d", capfd)
    assert frames >= 40
    lines = [line for line in info if line.startswith(STEPPED)]
    assert len(lines) == 1 and reason in lines[0], info
