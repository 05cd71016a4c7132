"""File > Export > IQM (``bpy.ops.export_scene.iqm``) of a rig made in Blender (tests/support/iqm_rig.py)
and of an edited import: which anims the operator hands the build (every action animating the armature,
at its own frame range and rate, as the dialog's action list ticks and orders them), its options, the
``.iqm.framegroups`` beside the file, and the file decoded against Blender's evaluated poses with the
comparison of tests/iqm/test_iqm_export_blender.py."""
from __future__ import annotations

import numpy as np
import pytest
from support.actions import action_fcurves, select_only
from support.blender_helpers import reported
from support.environment import corpus
from support.iqm_rig import BONES, WALK, WAVE, blender_frames, iqm_world, joint_errors, joint_tolerance, rig_scene

from formats.iqm.animation import anim_frames, bind_pose
from formats.iqm.codec import read_iqm
from formats.iqm.records import COLOR, LOOP, POSITION


def _export(bpy, objects, path, **options):
    select_only(bpy, objects)
    assert bpy.ops.export_scene.iqm(filepath=str(path), **options) == {"FINISHED"}
    return read_iqm(path.read_bytes())


def _list(bpy, entries):
    """The dialog's action list: ``(name, ticked)`` in order."""
    items = bpy.context.scene.classic_export_actions
    items.clear()
    for name, ticked in entries:
        item = items.add()
        item.name, item.export = name, ticked


def test_a_rig_made_in_blender_exports_every_action_at_its_range_and_rate(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    actions["wave"]["iqm_framerate"] = 12.0              # the action says its rate: every other scene frame
    actions["wave"]["iqm_loop"] = 0
    model = _export(bpy, [rig, obj], tmp_path / "rig.iqm", write_framegroups=True)
    assert model.anim_names == ["walk", "wave"]
    assert list(model.anims["num_frames"]) == [WALK[1] - WALK[0] + 1, 4]
    assert list(model.anims["framerate"]) == [24.0, 12.0]
    assert [int(f) & LOOP for f in model.anims["flags"]] == [LOOP, 0]
    frames = {"walk": list(range(WALK[0], WALK[1] + 1)), "wave": list(range(WAVE[0], WAVE[1] + 1, 2))}
    blender = {name: blender_frames(bpy, rig, obj, actions[name], frames[name])[0] for name in frames}
    errors = joint_errors(model, blender)
    assert max(errors.values()) <= joint_tolerance(model, np.concatenate(list(blender.values()))), errors
    assert model.joint_names == list(BONES)
    assert (tmp_path / "rig.iqm.framegroups").read_text() == "0 9 24 1 walk\n9 4 12 0 wave\n"
    _, messages = reported(capfd.readouterr().out)
    assert not any("internal error" in m for m in messages)


def test_the_action_list_ticks_and_orders_the_anims(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    _list(bpy, [("wave", True), ("walk", True)])
    assert _export(bpy, [rig, obj], tmp_path / "a.iqm").anim_names == ["wave", "walk"]
    _list(bpy, [("walk", False), ("wave", True)])
    model = _export(bpy, [obj], tmp_path / "b.iqm")                # the mesh alone: its armature's
    assert model.anim_names == ["wave"] and model.num_frames == WAVE[1] - WAVE[0] + 1
    assert model.joint_names == list(BONES)


def test_the_options_reach_the_build(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    plain = _export(bpy, [rig, obj], tmp_path / "plain.iqm")
    assert plain.array(COLOR) is not None
    model = _export(bpy, [rig, obj], tmp_path / "local.iqm", apply_transform=False, scale=2.0, colours=False)
    assert model.array(COLOR) is None and not (tmp_path / "local.iqm.framegroups").exists()
    parents, translate, rotate, scale = bind_pose(model)
    bind = iqm_world(parents, translate, rotate, scale)
    local = np.array([np.array(rig.data.bones[n].matrix_local) for n in BONES])
    assert np.abs(bind[:, :3, 3] - 2.0 * local[:, :3, 3]).max() < 1e-5
    world = np.array(rig.matrix_world)
    moved = plain.array(POSITION).data.astype(np.float64) - world[:3, 3]
    assert np.abs(model.array(POSITION).data - 2.0 * moved @ world[:3, :3]).max() < 1e-4


def test_two_armatures_are_refused_with_a_sentence(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    other = bpy.data.objects.new("other_rig", bpy.data.armatures.new("other_rig"))
    bpy.context.scene.collection.objects.link(other)
    select_only(bpy, [rig, obj, other])
    with pytest.raises(RuntimeError, match="the objects belong to 2 armatures"):
        bpy.ops.export_scene.iqm(filepath=str(tmp_path / "x.iqm"))
    assert not (tmp_path / "x.iqm").exists()


def _interior_key(action):
    """A location F-curve of ``action`` with the widest range, and a key strictly inside it."""
    curves = [c for c in action_fcurves(action) if c.data_path.endswith("location")]
    def spread(curve):
        values = [k.co.y for k in curve.keyframe_points]
        return max(values) - min(values)
    curve = max(curves, key=spread)
    values = np.array([k.co.y for k in curve.keyframe_points])
    inside = [i for i, v in enumerate(values) if values.min() < v < values.max()]
    return curve, inside[len(inside) // 2], float(values.max() - values.min())


def test_an_edited_import_keeps_the_untouched_anims_frames_byte_for_byte(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    actions["wave"]["iqm_framerate"] = 12.0
    first = tmp_path / "first.iqm"
    _export(bpy, [rig, obj], first)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(first)) == {"FINISHED"}
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    _export(bpy, [root, *meshes], tmp_path / "same.iqm")
    assert (tmp_path / "same.iqm").read_bytes() == first.read_bytes()        # untouched
    walk = bpy.data.actions["walk"]
    curve, index, spread = _interior_key(walk)
    middle = float(np.mean([k.co.y for k in curve.keyframe_points]))
    key = curve.keyframe_points[index]
    key.co.y += 0.05 * spread * np.sign(middle - key.co.y)                   # a little, inside the range
    curve.update()
    edited = _export(bpy, [root, *meshes], tmp_path / "edited.iqm")
    file = read_iqm(first.read_bytes())
    assert edited.anim_names == file.anim_names and np.array_equal(edited.anims, file.anims)
    assert np.array_equal(edited.poses, file.poses) and np.array_equal(edited.joints, file.joints)
    walk_rows, wave_rows = list(anim_frames(file, 0)), list(anim_frames(file, 1))
    assert edited.frames[wave_rows].tobytes() == file.frames[wave_rows].tobytes()
    assert not np.array_equal(edited.frames[walk_rows], file.frames[walk_rows])
    # the edited anim is Blender's pose of the moved key, within the file's quantisation
    step = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base / 24.0
    start = walk.frame_range[0]
    blender = blender_frames(bpy, root, meshes[0], walk, [start + k * step for k in range(len(walk_rows))])[0]
    names = [root.data.bones[n].name for n in BONES]
    assert names == list(BONES)
    one = read_iqm(tmp_path.joinpath("edited.iqm").read_bytes())
    one.anims = one.anims[:1]
    assert joint_errors(one, {"walk": blender})["walk"] <= joint_tolerance(one, blender)


def test_an_import_with_an_anim_unticked_is_built_without_it(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    first = tmp_path / "first.iqm"
    _export(bpy, [rig, obj], first)
    bpy.ops.wm.read_homefile(use_empty=True)
    assert bpy.ops.import_scene.iqm(filepath=str(first)) == {"FINISHED"}
    objects = list(bpy.context.scene.objects)
    _list(bpy, [("walk", False), ("wave", True)])
    model = _export(bpy, objects, tmp_path / "wave.iqm")
    file = read_iqm(first.read_bytes())
    assert model.anim_names == ["wave"] and model.num_frames == int(file.anims["num_frames"][1])
    assert model.frames.tobytes() == file.frames[list(anim_frames(file, 1))].tobytes()


def test_an_edited_import_keeps_the_files_joint_order_and_puts_new_bones_after(bpy_scene, tmp_path):
    """mine_pose.iqm's 78 joints are parents first but not depth first (Blender lists bones depth first):
    an edit (a vertex moved, a bone added) keeps every joint's index, the new bone comes last."""
    bpy = bpy_scene
    path = corpus("md5/redeclipse/data/actors/player/mine_pose.iqm")
    file = read_iqm(path.read_bytes())
    parents = list(file.joints["parent"])
    assert [b.name for b in _imported(bpy, path).data.bones] != file.joint_names     # the case in question
    root = next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    meshes[0].data.vertices[0].co.z += 0.01
    model = _export(bpy, [root, *meshes], tmp_path / "edited.iqm")
    assert model.joint_names == file.joint_names and list(model.joints["parent"]) == parents
    assert np.array_equal(model.joints, file.joints) and np.array_equal(model.poses, file.poses)
    select_only(bpy, [root])
    bpy.ops.object.mode_set(mode="EDIT")
    bone = root.data.edit_bones.new("added")
    bone.head, bone.tail = (0, 0, 0), (0, 0, 0.1)
    bone.parent = root.data.edit_bones[file.joint_names[3]]
    bpy.ops.object.mode_set(mode="OBJECT")
    model = _export(bpy, [root, *meshes], tmp_path / "added.iqm")
    assert model.joint_names == file.joint_names + ["added"] and list(model.joints["parent"]) == parents + [3]


def _imported(bpy, path):
    assert bpy.ops.import_scene.iqm(filepath=str(path)) == {"FINISHED"}
    return next(o for o in bpy.context.scene.objects if o.type == "ARMATURE")


def test_the_loop_flag_of_an_action_made_in_blender(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    actions["walk"].name = "death_walk"                   # a death plays once
    model = _export(bpy, [rig, obj], tmp_path / "a.iqm")
    assert model.anim_names == ["death_walk", "wave"] and [int(f) & LOOP for f in model.anims["flags"]] == [0, LOOP]
    actions["walk"].use_frame_range = True                # Blender's Cyclic Animation says it loops
    actions["walk"].frame_start, actions["walk"].frame_end = WALK
    actions["walk"].use_cyclic = True
    actions["wave"]["iqm_loop"] = 0
    model = _export(bpy, [rig, obj], tmp_path / "b.iqm")
    assert [int(f) & LOOP for f in model.anims["flags"]] == [LOOP, 0]


def test_an_anim_blender_renamed_on_import_gets_the_files_name_back(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    first = tmp_path / "first.iqm"
    _export(bpy, [rig, obj], first)
    bpy.ops.wm.read_homefile(use_empty=True)
    _imported(bpy, first)
    second = set(bpy.context.scene.objects)
    assert bpy.ops.import_scene.iqm(filepath=str(first)) == {"FINISHED"}
    objects = [o for o in bpy.context.scene.objects if o not in second]
    root = next(o for o in objects if o.type == "ARMATURE")
    assert sorted(i.action.name for i in root.classic_model.animations) == ["walk.001", "wave.001"]
    next(o for o in objects if o.type == "MESH").data.vertices[0].co.z += 0.01
    model = _export(bpy, objects, tmp_path / "again.iqm")
    assert model.anim_names == ["walk", "wave"]
    assert model.frames.tobytes() == read_iqm(first.read_bytes()).frames.tobytes()


def test_the_report_carries_the_builds_warnings(bpy_scene, tmp_path, capfd):
    bpy = bpy_scene
    obj, rig, actions = rig_scene(bpy)
    obj.modifiers["rig"].use_deform_preserve_volume = True
    capfd.readouterr()
    _export(bpy, [rig, obj], tmp_path / "rig.iqm")
    out = capfd.readouterr().out
    warnings, messages = reported(out)
    assert any("deformed with Preserve Volume (dual quaternions)" in m for m in messages), messages
    assert "4 joints, 2 meshes (51 vertices), 2 anims (16 frames)" in out
