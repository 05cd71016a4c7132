"""MDL frame tables (issue 9): frame lists mixing single frames with groups of one and of several
poses whose names repeat, edits of names, groups and intervals, placeholder models; files built here."""
from __future__ import annotations

import numpy as np
import pytest
from support.blender_helpers import RecordingLayout
from support.mdl_models import mixed_model
from support.operators import export_mdl, import_mdl

from formats.mdl.codec import MdlModel, parse_mdl, serialize_mdl


def placeholder_model() -> MdlModel:
    model = mixed_model(verts=1, tris=((0, 0, 0),))
    return model


@pytest.mark.parametrize("make", [mixed_model, lambda: mixed_model(tris=((0, 1, 2), (1, 1, 3), (3, 4, 5))),
                                  placeholder_model], ids=["mixed-groups", "degenerate-triangle", "placeholder"])
def test_untouched_round_trip_is_byte_identical(bpy_scene, tmp_path, make):
    bpy = bpy_scene
    data = serialize_mdl(make())
    (tmp_path / "m.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == data
    assert export_mdl(bpy, obj, tmp_path / "keys.mdl", frame_source="SHAPE_KEYS") == data


def test_the_frame_table_shows_groups_and_intervals(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = mixed_model()
    (tmp_path / "m.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    table = obj.classic_model.frames
    assert [f.name for f in table] == model.pose_names
    assert [f.group for f in table] == [-1, 1, -1, 3, 3, 3, 4, 4]
    np.testing.assert_array_equal(np.float32([f.interval for f in table]),
                                  np.float32([0, 0.1, 0, 0.1, 0.25, 0.5, 0.2, 0.4]))


def test_edited_groups_intervals_and_names_are_written(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = mixed_model()
    (tmp_path / "m.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    obj.data.shape_keys.key_blocks[4].name = "renamed key"   # a "lava" pose: the file name stays
    table = obj.classic_model.frames
    table[5].interval = 0.75
    table[6].group = table[7].group = 3                       # merge the two lava groups into one
    table[0].group = 7                                        # a single frame becomes a group of one
    table[0].interval = 0.3
    table[2].name = "wick"
    out = parse_mdl(export_mdl(bpy, obj, tmp_path / "edited.mdl"))
    assert out.pose_names == ["candle", "flame", "wick"] + ["lava"] * 5
    assert [(s.first_pose, s.num_poses) for s in out.frames] == [(0, 1), (1, 1), (2, 1), (3, 5)]
    assert out.frames[0].intervals is not None and out.frames[2].intervals is None
    np.testing.assert_array_equal(out.frames[0].intervals, np.float32([0.3]))
    np.testing.assert_array_equal(out.frames[3].intervals, np.float32([0.1, 0.25, 0.75, 0.2, 0.4]))
    np.testing.assert_array_equal(out.pose_verts, model.pose_verts)
    assert out.size == pytest.approx(model.size)              # poses unchanged: header values kept


def test_a_faceless_blender_mesh_is_still_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    mesh = bpy.data.meshes.new("points")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0)], [], [])
    mesh.uv_layers.new()
    plain = bpy.data.objects.new("points", mesh)
    bpy.context.scene.collection.objects.link(plain)
    plain.select_set(True)
    with pytest.raises(RuntimeError, match="has no faces"):
        bpy.ops.export_scene.mdl(filepath=str(tmp_path / "plain.mdl"))
    assert not (tmp_path / "plain.mdl").exists()


def test_the_sidebar_lists_frames_with_editable_names_groups_and_intervals(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "m.mdl").write_bytes(serialize_mdl(mixed_model()))
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    settings = obj.classic_model
    layout = RecordingLayout()
    ui_list = bpy.types.CLASSIC_MODELS_UL_frames
    ui_list.draw_item(None, bpy.context, layout, settings, settings.frames[3], 0, settings, "active_frame", 3)
    assert layout.lines == ["3", "prop name", "prop group", "prop interval"]
    layout.lines.clear()
    ui_list.draw_item(None, bpy.context, layout, settings, settings.frames[0], 0, settings, "active_frame", 0)
    assert layout.lines == ["0", "prop name", "prop group"]
