"""The MD5 export computes a timeline's poses from the action's F-curves (issue 33; the code the MS3D export
used, now exporters/sampling/curve_pose.py): for the corpus drone with every one of its 23 anims playing, at
the game rate's subframes, the joint matrices equal those read after stepping the timeline bit for bit; the
export steps to none of its 104 frames and writes the stepping export's bytes; where something other than the bones' F-curves
may move the pose (a constraint, a parent, a driver, NLA, object keys) it steps and says why in one report
line, writing the same file (but for the muted bone constraint, see there). All fail on the old code (it always stepped, and had no curve_matrices)."""
from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

import numpy as np
import pytest
from support.blender_helpers import FrameCounter
from support.md5_drone import exported, import_drone

STEPPED = "poses read by stepping the timeline: "


def stepped(bpy, pose, rig, order, model, times) -> np.ndarray:
    """The matrices the export read before: the timeline stepped to each time, the evaluated pose read."""
    frame_rate = import_module(f"{pose.__package__.rsplit('.', 1)[0]}.sampling.frame_rate")
    out = []
    for time in times:
        frame_rate.set_frame(bpy.context.scene, time)
        out.append(pose._now(bpy.context, rig, order, model))
    return np.array(out)


def test_every_anims_poses_from_fcurves_equal_the_stepped_ones(bpy_scene, extension):
    bpy = bpy_scene
    pose = import_module(f"{extension}.exporters.md5.pose")
    rig_module = import_module(f"{extension}.exporters.md5.rig")
    rig = import_drone(bpy, "scaled")
    order = rig_module.joint_order(rig)
    model = np.linalg.inv(np.array(rig.matrix_world, np.float64)) @ np.diag([1.0, 2.0, 1.0, 1.0])
    actions = [a for a in bpy.data.actions if a.users or a.use_fake_user]
    assert len(actions) == 23
    moved = 0.0
    for action in actions:
        rig.animation_data.action = action
        first, last = action.frame_range
        times = list(np.arange(first - 2.4, last + 2.5, 2.4))          # subframes, past both ends
        computed, reason = pose.curve_matrices(bpy.context, rig, order, model, [SimpleNamespace(time=t)
                                                                                for t in times])
        assert reason is None, action.name
        expected = stepped(bpy, pose, rig, order, model, times)
        assert np.array_equal(computed.view(np.uint64), expected.view(np.uint64)), action.name
        moved = max(moved, float(np.abs(expected - expected[:1]).max()))
    assert moved > 0.1, "the anims move the joints"


def _info(capfd) -> list[str]:
    return [line.split(": ", 1)[1] for line in capfd.readouterr().out.splitlines() if line.startswith("Info: ")]


def _export(bpy, path, capfd) -> tuple[tuple[bytes, bytes], list[str], int]:
    capfd.readouterr()
    with FrameCounter(bpy) as frames:
        files = exported(bpy, path)
    return files, _info(capfd), frames.count


def _bone_constraint(bpy, rig) -> None:
    rig.pose.bones[0].constraints.new("COPY_LOCATION").mute = True


def _parent(bpy, rig) -> None:
    empty = bpy.data.objects.new("Holder", None)
    bpy.context.scene.collection.objects.link(empty)
    rig.parent = empty


def _object_constraint(bpy, rig) -> None:
    rig.constraints.new("COPY_LOCATION").mute = True


def _object_keys(bpy, rig) -> None:
    rig.keyframe_insert("location", frame=1)


def _nla(bpy, rig) -> None:
    rig.animation_data.nla_tracks.new()


def _driver(bpy, rig) -> None:                  # the drone's bones turn by quaternion: no effect
    rig.pose.bones[1].driver_add("rotation_euler", 0).driver.expression = "0.0"


# A bone with a constraint, even a muted one, is posed through Blender's constraint solver, whose float32
# round-off moves a few printed last digits: that file is the stepped one, not the unconstrained scene's.
@pytest.mark.parametrize("setup, reason", [
    (_bone_constraint, "1 bone(s) have constraints ('Waist' ...)"),
    (_parent, "the armature 'mesh' has a parent"),
    (_object_constraint, "the armature 'mesh' has object constraints"),
    (_object_keys, "the armature's action keys more than its bones"),
    (_nla, "the armature's animation uses NLA tracks"),
    (_driver, "has drivers"),
])
def test_the_export_steps_only_where_the_fcurves_do_not_decide(bpy_scene, tmp_path, capfd, setup, reason):
    bpy = bpy_scene
    rig = import_drone(bpy, "scaled")
    bpy.context.scene.frame_end = 250      # 104 poses at the game's rate (the import sets its first anim's range)
    fast, info, fast_frames = _export(bpy, tmp_path / "fast.md5mesh", capfd)
    # the 104 poses are not stepped to: what is left is the frame plan's end-pose check (3 frames a mesh)
    assert fast_frames < 104 and not [line for line in info if line.startswith(STEPPED)], (fast_frames, info)
    setup(bpy, rig)
    slow, info, frames = _export(bpy, tmp_path / "slow.md5mesh", capfd)
    lines = [line for line in info if line.startswith(STEPPED)]
    assert len(lines) == 1 and reason in lines[0], (rig.name, info)
    assert frames >= fast_frames + 104
    if setup is _bone_constraint:
        assert [len(text.splitlines()) for text in slow] == [len(text.splitlines()) for text in fast]
    else:
        assert slow == fast
