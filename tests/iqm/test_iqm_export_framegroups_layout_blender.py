"""An IQM imported with its ``.iqm.framegroups`` (one action per group), one key moved, exported through
File > Export (``bpy.ops.export_scene.iqm``): the file's own anims come back (names, frame counts, order,
rates, flags) with its ``.iqm.framegroups`` unchanged, every frame but the edited one byte for byte the
file's row, the edited one Blender's pose within the file's quantisation (``exporters/iqm/kept_layout.py``);
frames no group covers stay the file's, a frame two groups cover takes the group that changed it; groups
whose frame counts no longer match fall back to one anim per action, and the report says so.

The file is made here: the rig of tests/support/iqm_rig.py exported with two anims (``walk``, 9 frames at
24 fps, and ``wave``, 4 frames at 12), so 13 frames, which the groups split across the anims' boundary."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import action_fcurves, select_only
from support.blender_helpers import reported
from support.environment import corpus
from support.iqm_rig import BONES, blender_frames, decoded_worlds, joint_tolerance, rig_scene

from formats.iqm.codec import read_iqm
from formats.iqm.records import BLENDINDEXES, BLENDWEIGHTS

GROUPS = b"// three groups over the two anims\n0 4 24 1 stand\n4 7 24 1 stride\n11 2 12 0 wave_end\n"


def _export(bpy, objects, path, **options):
    select_only(bpy, objects)
    assert bpy.ops.export_scene.iqm(filepath=str(path), **options) == {"FINISHED"}
    return read_iqm(path.read_bytes())


def _imported(bpy, tmp_path, groups: bytes):
    """The file made from the rig (two anims), imported with ``groups`` beside it: (file bytes, root, meshes)."""
    obj, rig, actions = rig_scene(bpy)
    actions["wave"]["iqm_framerate"] = 12.0
    first = tmp_path / "model.iqm"
    _export(bpy, [rig, obj], first)
    (tmp_path / "model.iqm.framegroups").write_bytes(groups)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(first)) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = sorted((o for o in bpy.context.scene.objects if o.type == "MESH"), key=lambda o: o.name)
    return first.read_bytes(), root, meshes


def _move_key(action, index: int, share: float = 0.05) -> float:
    """Move key ``index`` of ``action``'s widest location (else rotation) F-curve a little toward the curve's
    middle (so the file's quantisation still holds it); its scene frame."""
    curves = [c for c in action_fcurves(action) if c.data_path.endswith("location")]
    if max(np.ptp([k.co.y for k in c.keyframe_points]) for c in curves) < 1e-3:
        curves = [c for c in action_fcurves(action) if c.data_path.endswith("rotation_quaternion")]
    curve = max(curves, key=lambda c: np.ptp([k.co.y for k in c.keyframe_points]))
    values = np.array([k.co.y for k in curve.keyframe_points])
    key = curve.keyframe_points[index]
    middle = 0.5 * (values.max() + values.min())
    key.co.y += share * float(np.ptp(values)) * (1.0 if middle >= key.co.y else -1.0)
    curve.update()
    return float(key.co.x)


def _pose_error(bpy, model, root, mesh, action, scene_frame: float, file_frame: int) -> tuple[float, float]:
    """(the largest difference between the written frame's joints and Blender's bones with ``action`` at
    ``scene_frame``, what the file's quantisation allows)."""
    blender = blender_frames(bpy, root, mesh, action, [scene_frame])[0]
    worlds = decoded_worlds(model)[file_frame][[model.joint_names.index(n) for n in BONES]]
    return float(np.abs(worlds - blender[0]).max()), joint_tolerance(model, blender)


def _rows_changed(model, file) -> list[int]:
    return [f for f in range(file.num_frames) if model.frames[f].tobytes() != file.frames[f].tobytes()]


def _bounds_changed(model, file) -> list[int]:
    return [f for f in range(file.num_frames) if model.bounds[f].tobytes() != file.bounds[f].tobytes()]


def test_one_key_moved_writes_the_files_anims_and_framegroups(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    data, root, meshes = _imported(bpy, tmp_path, GROUPS)
    file = read_iqm(data)
    assert file.anim_names == ["walk", "wave"] and list(file.anims["num_frames"]) == [9, 4]
    assert [a.name for a in bpy.data.actions] == ["stand", "stride", "wave_end"]
    out = tmp_path / "out"
    out.mkdir()
    _export(bpy, [root, *meshes], out / "same.iqm")
    assert (out / "same.iqm").read_bytes() == data                 # untouched: the file's bytes
    stride = bpy.data.actions["stride"]
    frame = _move_key(stride, 3)                       # stride's 4th frame: the file's frame 4 + 3
    capfd.readouterr()
    model = _export(bpy, [root, *meshes], out / "model.iqm", write_framegroups=True)
    assert model.anim_names == ["walk", "wave"] and model.anims.tobytes() == file.anims.tobytes()
    assert model.num_frames == file.num_frames == 13
    assert model.poses.tobytes() == file.poses.tobytes() and model.joints.tobytes() == file.joints.tobytes()
    assert (out / "model.iqm.framegroups").read_bytes() == GROUPS
    assert _rows_changed(model, file) == [7]
    assert _bounds_changed(model, file) in ([], [7])             # the others' the file's records
    error, tolerance = _pose_error(bpy, model, root, meshes[0], stride, frame, 7)
    assert error <= tolerance, (error, tolerance)
    warnings, _ = reported(capfd.readouterr().out)
    assert not any("frame layout" in w for w in warnings), warnings


def test_frames_no_group_covers_stay_and_two_groups_changing_one_frame_take_the_first(bpy_scene, tmp_path, capfd):
    """Groups ``first`` (frames 0-5) and ``second`` (4-8) share frames 4 and 5; 9-12 are in none. ``second``
    changed at 4 and 5, ``first`` at 4 too: frame 5 is ``second``'s pose, frame 4 ``first``'s, and the
    report counts one frame changed differently in each."""
    bpy = bpy_scene
    groups = b"0 6 24 1 first\n4 5 24 1 second\n"
    data, root, meshes = _imported(bpy, tmp_path, groups)
    file = read_iqm(data)
    first, second = bpy.data.actions["first"], bpy.data.actions["second"]
    alone = _move_key(second, 1)                       # the file's frame 5: only second changed it
    _move_key(second, 0)                               # the file's frame 4 ...
    both = _move_key(first, 4, share=0.1)              # ... which first changed otherwise
    capfd.readouterr()
    model = _export(bpy, [root, *meshes], tmp_path / "out.iqm", write_framegroups=True)
    assert model.anims.tobytes() == file.anims.tobytes()
    assert (tmp_path / "out.iqm.framegroups").read_bytes() == groups
    assert _rows_changed(model, file) == [4, 5]
    assert set(_bounds_changed(model, file)) <= {4, 5}
    for action, scene_frame, file_frame in ((second, alone, 5), (first, both, 4)):
        error, tolerance = _pose_error(bpy, model, root, meshes[0], action, scene_frame, file_frame)
        assert error <= tolerance, (action.name, error, tolerance)
    warnings, messages = reported(capfd.readouterr().out)
    assert any(m.startswith("1 frame of the file two frame groups cover changed differently") for m in messages), \
        messages


def test_groups_no_longer_matching_fall_back_to_one_anim_per_action(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    data, root, meshes = _imported(bpy, tmp_path, GROUPS)
    file = read_iqm(data)
    items = bpy.context.scene.classic_export_actions          # the dialog's list: wave_end unticked
    items.clear()
    for name, ticked in (("stand", True), ("stride", True), ("wave_end", False)):
        item = items.add()
        item.name, item.export = name, ticked
    capfd.readouterr()
    model = _export(bpy, [root, *meshes], tmp_path / "two.iqm", write_framegroups=True)
    assert model.anim_names == ["stand", "stride"] and list(model.anims["num_frames"]) == [4, 7]
    assert model.frames.tobytes() == file.frames[:11].tobytes()      # the groups' frames, each the file's row
    assert (tmp_path / "two.iqm.framegroups").read_text() == "0 4 24 1 stand\n4 7 24 1 stride\n"
    warnings, messages = reported(capfd.readouterr().out)
    assert any(m.startswith("the file's anims and frame layout changed") and "2 anims" in m and
               "3 frame groups of model.iqm.framegroups" in m for m in messages), messages
    items.clear()
    stride = bpy.data.actions["stride"]                       # stride one frame longer
    for curve in action_fcurves(stride):
        last = curve.keyframe_points[-1]
        curve.keyframe_points.insert(last.co.x + 1.0, last.co.y)
    capfd.readouterr()
    model = _export(bpy, [root, *meshes], tmp_path / "longer.iqm")
    assert model.anim_names == ["stand", "stride", "wave_end"] and list(model.anims["num_frames"]) == [4, 8, 2]
    warnings, messages = reported(capfd.readouterr().out)
    assert any(m.startswith("the file's anims and frame layout changed") for m in messages), messages


@pytest.mark.parametrize("relative, edited_bounds", [("iqm/redeclipse/data/john/target/move.iqm", True),
                                                      ("md5/redeclipse/data/actors/player/mine_shoot.iqm", False)])
def test_a_corpus_anim_split_as_xonotic_splits_its_players_keeps_the_file(bpy_scene, tmp_path, relative,
                                                                          edited_bounds):
    """Xonotic ships one long anim per player model with a ``.framegroups`` naming its runs (the corpus has
    no such file): a Red Eclipse model whose one anim is split in three here (john's target: 1 joint,
    201 frames; the player's mine_shoot: 78 joints, 6 frames), one key of the middle group moved. The
    target keeps every other frame's bounds record (its tool's, up to 3e-4 off what the export computes);
    so does the mine, whose blend weights are all 0: they are written as the file's 0s (a vertex Blender
    holds no weight for is tied to the first joint only where the file did not have it so), and as weights
    0 put every vertex at the origin in any pose, even the edited frame's bounds are the file's."""
    bpy = bpy_scene
    source = corpus(relative)
    data = source.read_bytes()
    file = read_iqm(data)
    third = file.num_frames // 3
    groups = f"0 {third} 20 1 start\n{third} {third} 20 1 middle\n{2 * third} {file.num_frames - 2 * third} 10 0 end\n"
    (tmp_path / "model.iqm").write_bytes(data)
    (tmp_path / "model.iqm.framegroups").write_text(groups)
    assert bpy.ops.import_scene.iqm(filepath=str(tmp_path / "model.iqm")) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    middle = bpy.data.actions["middle"]
    index = min(1, third - 1)
    _move_key(middle, index)
    out = tmp_path / "out"
    out.mkdir()
    model = _export(bpy, [root, *meshes], out / "model.iqm", write_framegroups=True)
    assert model.anims.tobytes() == file.anims.tobytes() and model.num_frames == file.num_frames
    assert (out / "model.iqm.framegroups").read_text() == groups
    assert _rows_changed(model, file) == [third + index]
    for kind in (BLENDINDEXES, BLENDWEIGHTS):
        assert (model.array(kind) is None) == (file.array(kind) is None)
        if file.array(kind) is not None:
            np.testing.assert_array_equal(model.array(kind).data, file.array(kind).data)
    changed = _bounds_changed(model, file)
    assert changed == ([third + index] if edited_bounds else []), changed
