"""MDL frame tables (issue 9): frame lists mixing single frames with groups of one and of several
poses whose names repeat, edits of names, groups and intervals, placeholder models; files built here."""
from __future__ import annotations

import numpy as np
import pytest

from formats.mdl.codec import MdlFrameSlot, MdlModel, MdlSkin, parse_mdl, serialize_mdl
from test_mdl_blender import export_mdl, import_mdl

SLOTS = [("candle", None), ("flame", [0.1]), ("candle", None), ("lava", [0.1, 0.25, 0.5]), ("lava", [0.2, 0.4])]


def mixed_model(verts: int = 6, tris=((0, 1, 2), (2, 1, 3), (3, 4, 5), (0, 2, 5))) -> MdlModel:
    """Single frames and groups (of one and of several poses), names repeating within and across them."""
    rng = np.random.default_rng(9)
    names, slots, first = [], [], 0
    for name, intervals in SLOTS:
        count = 1 if intervals is None else len(intervals)
        names += [name] * count
        lo, hi = rng.integers(0, 60, 4).astype(np.uint8), rng.integers(200, 256, 4).astype(np.uint8)
        slots.append(MdlFrameSlot(first, count, None if intervals is None else np.float32(intervals), lo, hi))
        first += count
    poses = len(names)
    return MdlModel(
        scale=np.float32([0.5, 0.5, 0.25]), translate=np.float32([-10, -10, 0]), bounding_radius=30.0,
        eye_position=np.float32([0, 0, 22]), skin_width=16, skin_height=8, synctype=0, flags=0, size=4.0,
        skins=[MdlSkin(None, rng.integers(0, 224, (1, 8, 16)).astype(np.uint8))],
        onseam=np.zeros(verts, np.int32), s=np.arange(verts, dtype=np.int32), t=np.arange(verts, dtype=np.int32),
        facesfront=np.ones(len(tris), np.int32), triangles=np.array(tris, np.int32).reshape(-1, 3),
        pose_names=names, pose_verts=rng.integers(0, 256, (poses, verts, 3)).astype(np.uint8),
        pose_normals=rng.integers(0, 162, (poses, verts)).astype(np.uint8),
        pose_bbox_min=rng.integers(0, 50, (poses, 4)).astype(np.uint8),
        pose_bbox_max=rng.integers(200, 256, (poses, 4)).astype(np.uint8), frames=slots)


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


class _Layout:
    """Records what the sidebar draws; ``prop`` resolves its path like Blender would."""

    def __init__(self):
        self.lines: list[str] = []

    def box(self):
        return self

    def row(self, align=False):
        return self

    def label(self, text="", icon=None):
        self.lines.append(text)

    def prop(self, data, path, text=None, emboss=True):
        data.path_resolve(path)
        self.lines.append(f"prop {path}")

    def template_list(self, *args, **kwargs):
        self.lines.append(f"list {args[0]}")

    def operator(self, *args, **kwargs):
        class _Op:
            pass
        return _Op()


def test_the_sidebar_lists_frames_with_editable_names_groups_and_intervals(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "m.mdl").write_bytes(serialize_mdl(mixed_model()))
    obj = import_mdl(bpy, tmp_path / "m.mdl")
    settings = obj.classic_model
    layout = _Layout()
    ui_list = bpy.types.CLASSIC_MODELS_UL_frames
    ui_list.draw_item(None, bpy.context, layout, settings, settings.frames[3], 0, settings, "active_frame", 3)
    assert layout.lines == ["3", "prop name", "prop group", "prop interval"]
    layout.lines.clear()
    ui_list.draw_item(None, bpy.context, layout, settings, settings.frames[0], 0, settings, "active_frame", 0)
    assert layout.lines == ["0", "prop name", "prop group"]
