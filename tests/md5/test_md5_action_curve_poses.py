"""The MD5 export computes the poses of planned actions from each action's F-curves (issue 44: the default
export of an imported MD5 writes every anim to its own file, each action played alone): for the corpus
drone scaled, every one of its 23 anims at 10 a second (subframes) gives the joint matrices that playing
each action and stepping the timeline gives, bit for bit, without a frame change; the default export steps
to no frame and writes the bytes of the export that steps (a driver with no effect makes it step, and its
report says so once for all anims); each anim's kept text is read once, its frames skinned for the bounds
only where the file's do not hold, and the actions found once an export. All fail on the old code, which
stepped every planned action's frames, read each kept text twice, skinned every anim and looked the
actions up again for every anim."""
from __future__ import annotations

from importlib import import_module

import numpy as np
from support.blender_helpers import FrameCounter
from support.md5_drone import import_drone

STEPPED = "poses read by stepping the timeline: "
DRIVEN = "'mesh' has drivers"


def _driver(rig) -> None:                       # the drone's bones turn by quaternion: no effect on the poses
    rig.pose.bones[1].driver_add("rotation_euler", 0).driver.expression = "0.0"


def _sampled(bpy, extension, rig):
    """(matrices, report lines, frame changes, frame count) of every action's planned frames at 10 a second."""
    frame_plan = import_module(f"{extension}.exporters.sampling.frame_plan")
    options = import_module(f"{extension}.exporters.sampling.options")
    pose = import_module(f"{extension}.exporters.md5.pose")
    rig_module = import_module(f"{extension}.exporters.md5.rig")
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    plan = frame_plan.plan_frames(bpy.context, meshes, [], options.FrameExportOptions(frame_source="ACTIONS",
                                                                                      own_fps=10.0))
    order = rig_module.joint_order(rig)
    model = np.diag([1.0, 2.0, 1.0, 1.0])
    with FrameCounter(bpy) as counter:
        matrices, lines = pose.sample_poses(bpy.context, rig, order, meshes, plan, plan.frames, model)
    return matrices, lines, counter.count, plan


def test_planned_actions_poses_from_fcurves_equal_the_stepped_ones(bpy_scene, extension):
    bpy = bpy_scene
    rig = import_drone(bpy, "scaled")
    computed, lines, changes, plan = _sampled(bpy, extension, rig)
    assert len({f.action for f in plan.frames}) == 23
    assert any(f.time != int(f.time) for f in plan.frames), "subframes"
    assert (lines, changes) == ([], 0)
    _driver(rig)
    stepped, lines, changes, plan = _sampled(bpy, extension, rig)
    assert lines == [STEPPED + DRIVEN] and changes >= len(plan.frames)
    assert np.array_equal(computed.view(np.uint64), stepped.view(np.uint64))
    assert float(np.abs(stepped - stepped[:1]).max()) > 0.1, "the anims move the joints"


def _files(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_the_default_export_steps_to_no_frame(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    rig = import_drone(bpy, "scaled")           # every pose changed: the anims are written as evaluated
    written = {}
    for name in ("computed", "stepped"):
        if name == "stepped":
            _driver(rig)
        capfd.readouterr()
        with FrameCounter(bpy) as counter:
            assert bpy.ops.export_scene.md5(filepath=str(tmp_path / name / "mesh.md5mesh")) == {"FINISHED"}
        info = [line for line in capfd.readouterr().out.splitlines() if STEPPED in line]
        written[name] = _files(tmp_path / name), info, counter.count
    files, info, changes = written["computed"]
    assert len(files) == 24 and (info, changes) == ([], 0)
    stepped, info, changes = written["stepped"]
    assert info == [f"Info: {STEPPED}{DRIVEN} (23 of 23 anims)"] and changes > 23
    assert stepped == files


def test_each_kept_anim_text_is_read_once(bpy_scene, extension, tmp_path, monkeypatch):
    """Its rate and its poses come from one reading of the text the import kept (the old code read it twice);
    scaled, so that every anim is compared (untouched, none is read: test_md5_untouched_unsampled_blender.py)."""
    bpy = bpy_scene
    import_drone(bpy, "scaled")
    read = []
    for name in ("write_back", "anim_files"):
        module = import_module(f"{extension}.exporters.md5.{name}")
        original = getattr(module, "read_md5anim", None) or import_module(f"{extension}.formats.md5.anim").read_md5anim
        monkeypatch.setattr(module, "read_md5anim", lambda text, original=original: read.append(text) or original(text),
                            raising=False)
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "mesh.md5mesh")) == {"FINISHED"}
    assert len(read) == len(set(read)) == 23


def test_bounds_are_skinned_only_where_the_kept_ones_do_not_hold(bpy_scene, extension, tmp_path, monkeypatch):
    """Untouched, every anim keeps its file's bounds: no frame is skinned (the old code skinned all 23 anims'
    frames and dropped them); scaled, each anim's frames are skinned once."""
    bpy = bpy_scene
    skinned = []
    anim = import_module(f"{extension}.exporters.md5.anim")
    counting = (lambda record, *args, original=anim.frame_bounds: skinned.append(record.num_frames)
                or original(record, *args))
    for name in ("anim", "build"):
        monkeypatch.setattr(import_module(f"{extension}.exporters.md5.{name}"), "frame_bounds", counting,
                            raising=False)
    for edit in ("as imported", "scaled"):
        import_drone(bpy, edit)
        skinned.clear()
        assert bpy.ops.export_scene.md5(filepath=str(tmp_path / edit / "mesh.md5mesh")) == {"FINISHED"}
        assert len(skinned) == (0 if edit == "as imported" else 23), edit


def test_the_actions_are_found_once_for_every_anim(bpy_scene, extension, tmp_path, monkeypatch):
    """Which actions animate the model is looked up once an export, not again for every anim's plan (24
    times for the drone's 23 anims on the old code)."""
    bpy = bpy_scene
    import_drone(bpy, "as imported")
    frame_plan = import_module(f"{extension}.exporters.sampling.frame_plan")
    calls = []
    monkeypatch.setattr(frame_plan, "find_actions", lambda *args, original=frame_plan.find_actions:
                        calls.append(args) or original(*args))
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "mesh.md5mesh")) == {"FINISHED"}
    assert len(calls) == 1
    assert len(list(tmp_path.glob("*.md5anim"))) == 23


def test_every_anim_goes_through_the_hierarchy_in_one_pass(bpy_scene, extension, tmp_path, monkeypatch):
    """Scaled, each of the drone's 23 anims is sampled, and their poses go through the bones' hierarchy
    together, once an export, in one playback (the old code did both once per anim: 23 times); the files
    are the ones sampled one anim at a time (tests/md5/test_md5_edited_identity.py, the benchmark's bytes)."""
    bpy = bpy_scene
    import_drone(bpy, "scaled")
    pose = import_module(f"{extension}.exporters.md5.pose")
    passes, playbacks = [], []
    monkeypatch.setattr(pose, "_joint_matrices", lambda *args, original=pose._joint_matrices:
                        passes.append(len(args[4][0])) or original(*args))
    monkeypatch.setattr(pose.ActionPlayback, "__enter__", lambda self, original=pose.ActionPlayback.__enter__:
                        playbacks.append(1) or original(self))
    assert bpy.ops.export_scene.md5(filepath=str(tmp_path / "mesh.md5mesh")) == {"FINISHED"}
    assert passes == [134] and playbacks == [1], "one pass of the 134 frames of 23 anims, one playback"
