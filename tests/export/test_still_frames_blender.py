"""A model that does not move is written as one frame (the report says so); Keep Still Frames writes
every sampled frame; anything that animates, and every imported model, keeps its frames."""
from __future__ import annotations

import numpy as np
import pytest
from support.blender_helpers import evaluated_positions
from support.md2_synthetic import grid_model
from support.operators import export_md2, export_mdl, import_md2

from formats.md2.codec import parse_md2, serialize_md2
from formats.mdl.codec import parse_mdl


def default_scene_prop(bpy):
    """A monkey in a scene like the default one: frames 1-250 at 24 fps, no animation."""
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end, scene.render.fps, scene.render.fps_base = 1, 250, 24, 1.0
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.active_object
    obj.location = (1.0, 2.0, 0.5)
    return obj


def test_a_still_prop_is_one_frame_and_the_report_says_so(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    obj = default_scene_prop(bpy)
    capsys.readouterr()
    data = export_md2(bpy, obj, tmp_path / "monkey.md2")
    out = capsys.readouterr().out
    model = parse_md2(data)
    assert model.num_frames == 1
    assert "the model does not move: its 104 sampled frames are identical" in out
    local = evaluated_positions(bpy, obj).astype(np.float64)      # Blender's evaluated vertices...
    matrix = np.array(obj.matrix_world)
    world = local @ matrix[:3, :3].T + matrix[:3, 3]                # ...in world space (Apply Transform)
    decoded = model.positions()[0]
    step = np.asarray(model.frame_scale[0])
    for v in world:                                     # every vertex written within half a grid step
        assert np.min(np.max(np.abs(decoded - v) / (step / 2 + 1e-6), axis=1)) <= 1.0 + 1e-4


def test_keep_still_frames_writes_every_sampled_frame(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    obj = default_scene_prop(bpy)
    model = parse_md2(export_md2(bpy, obj, tmp_path / "monkey.md2", keep_still_frames=True))
    assert model.num_frames == 104                      # frames 1-250 at 24 fps, every 0.1 s: 104 samples
    assert "does not move" not in capsys.readouterr().out
    mdl = parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey.mdl", keep_still_frames=True))
    assert mdl.num_poses == 104


def test_mdl_still_prop_is_one_pose(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj = default_scene_prop(bpy)
    assert parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey.mdl")).num_poses == 1


@pytest.mark.parametrize("how", ["action", "driver", "moving"])
def test_anything_that_animates_keeps_its_frames(bpy_scene, tmp_path, how):
    bpy = bpy_scene
    obj = default_scene_prop(bpy)
    if how == "action":                  # an action that holds the object still is still an animation
        obj.keyframe_insert("location", frame=1)
        obj.keyframe_insert("location", frame=250)
    elif how == "driver":
        obj.driver_add("rotation_euler", 2).driver.expression = "0"
    else:
        obj.keyframe_insert("location", frame=1)
        obj.location.z += 3.0
        obj.keyframe_insert("location", frame=250)
    # 104 samples every 0.1 s (the last at 248.2); a move also ends on its end pose, frame 250 (issue 29)
    assert parse_md2(export_md2(bpy, obj, tmp_path / "monkey.md2")).num_frames == (105 if how == "moving" else 104)


def test_an_imported_model_with_identical_frames_keeps_them(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = grid_model(frames=4)
    for name in ("frame_scale", "frame_translate", "frame_verts", "frame_normals"):
        values = getattr(model, name)
        values[:] = values[:1]
    data = serialize_md2(model)
    (tmp_path / "still.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "still.md2")
    assert export_md2(bpy, obj, tmp_path / "again.md2") == data
