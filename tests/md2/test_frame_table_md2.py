"""MD2 frame tables (issue 9): repeated frame names, renamed keys, edited frame names, triangles that
use a vertex twice and placeholder models, on files these tests build themselves."""
from __future__ import annotations

import numpy as np
import pytest
from support.md2_synthetic import grid_model
from support.operators import export_md2, import_md2

from formats.md2.codec import Md2Model, parse_md2, serialize_md2
from formats.md2.glcmds import build_glcmds
from formats.quantize import quantize_frames


def repeated_names_model() -> Md2Model:
    """A weapon-like model whose frame names repeat (``jetpck01`` three times, ``1`` twice),
    one of them with junk after its NUL."""
    model = grid_model(frames=8)
    model.frame_names = ["jetpck01", "jetpck01", "jetpck02", "jetpck01", "1", "10", "1", "11"]
    raw = [name.encode().ljust(16, b"\0") for name in model.frame_names]
    raw[3] = b"jetpck01\0junk!\0\0"
    model.frame_name_raw = raw
    return model


def with_degenerate(model: Md2Model) -> Md2Model:
    """``model`` with two triangles that use a vertex twice, at index 0 and in the middle."""
    bad = np.array([[0, 0, 1], [2, 3, 2]], dtype=np.uint16)
    tris = model.tri_xyz
    model.tri_xyz = np.concatenate([bad[:1], tris[:3], bad[1:], tris[3:]])
    st_bad = np.array([[5, 6, 7], [1, 1, 0]], dtype=np.uint16)
    model.tri_st = np.concatenate([st_bad[:1], model.tri_st[:3], st_bad[1:], model.tri_st[3:]])
    model.glcmds = build_glcmds(model.tri_xyz, model.tri_st, model.st, model.skin_width, model.skin_height)
    return model


def placeholder_model(frames: int = 7) -> Md2Model:
    """One vertex, one triangle that uses it three times: the Quake II placeholder weapon model."""
    pos = np.zeros((frames, 1, 3))
    scale, translate, verts = quantize_frames(pos)
    return Md2Model(skin_width=8, skin_height=8, skins=[], st=np.zeros((1, 2), np.int16),
                    tri_xyz=np.zeros((1, 3), np.uint16), tri_st=np.zeros((1, 3), np.uint16),
                    frame_names=[f"frame{i}" for i in range(frames)], frame_scale=scale,
                    frame_translate=translate, frame_verts=verts,
                    frame_normals=np.zeros((frames, 1), np.uint8), glcmds=np.zeros(1, "<i4"))


@pytest.mark.parametrize("make", [repeated_names_model, lambda: with_degenerate(grid_model()), placeholder_model],
                         ids=["repeated-names", "degenerate-triangles", "placeholder"])
def test_untouched_round_trip_is_byte_identical(bpy_scene, tmp_path, make):
    bpy = bpy_scene
    data = serialize_md2(make())
    (tmp_path / "in.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "in.md2")
    assert export_md2(bpy, obj, tmp_path / "out.md2") == data
    assert export_md2(bpy, obj, tmp_path / "keys.md2", frame_source="SHAPE_KEYS") == data


def test_repeated_names_live_in_the_frame_table(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = repeated_names_model()
    (tmp_path / "w.md2").write_bytes(serialize_md2(model))
    obj = import_md2(bpy, tmp_path / "w.md2")
    keys = [k.name for k in obj.data.shape_keys.key_blocks][1:]
    assert len(set(keys)) == len(keys)          # Blender made them unique ...
    table = obj.classic_model.frames
    assert [f.name for f in table] == model.frame_names   # ... the table keeps the file's names
    assert [f.shape_key for f in table] == keys


def test_a_renamed_key_keeps_the_file_name_until_the_frame_is_renamed(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = repeated_names_model()
    data = serialize_md2(model)
    (tmp_path / "w.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "w.md2")
    blocks = obj.data.shape_keys.key_blocks
    blocks[2].name = "my own name"               # frame 1 (a repeated "jetpck01")
    blocks[4].name = "another"                   # frame 3, the one with junk after its NUL
    assert export_md2(bpy, obj, tmp_path / "renamed_key.md2") == data
    obj.classic_model.frames[1].name = "fire01"
    obj.classic_model.frames[3].name = "fire02"
    out = parse_md2(export_md2(bpy, obj, tmp_path / "renamed_frame.md2"))
    expected = list(model.frame_names)
    expected[1], expected[3] = "fire01", "fire02"
    assert out.frame_names == expected
    assert out.frame_name_fields()[3] == b"fire02".ljust(16, b"\0")      # the junk went with the old name
    assert out.frame_name_fields()[0] == model.frame_name_raw[0]
    np.testing.assert_array_equal(out.frame_verts, model.frame_verts)


def test_a_key_added_by_the_user_is_a_new_frame_named_after_it(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = repeated_names_model()
    (tmp_path / "w.md2").write_bytes(serialize_md2(model))
    obj = import_md2(bpy, tmp_path / "w.md2")
    obj.shape_key_add(name="extra", from_mix=False).value = 0.0
    out = parse_md2(export_md2(bpy, obj, tmp_path / "more.md2", frame_source="SHAPE_KEYS"))
    assert out.frame_names == model.frame_names + ["extra"]


def test_degenerate_triangles_are_kept_in_place_and_out_of_the_mesh(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = with_degenerate(grid_model())
    (tmp_path / "d.md2").write_bytes(serialize_md2(model))
    obj = import_md2(bpy, tmp_path / "d.md2")
    assert len(obj.data.polygons) == len(model.tri_xyz) - 2
    # edit a frame: the kept triangles still go back to their places, with their STs
    key = obj.data.shape_keys.key_blocks[3]
    key.data[0].co.z += 4.0
    out = parse_md2(export_md2(bpy, obj, tmp_path / "edited.md2"))
    np.testing.assert_array_equal(out.tri_xyz, model.tri_xyz)
    np.testing.assert_array_equal(out.st[out.tri_st], model.st[model.tri_st])


def test_placeholder_exports_but_a_faceless_blender_mesh_is_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "p.md2").write_bytes(serialize_md2(placeholder_model()))
    obj = import_md2(bpy, tmp_path / "p.md2")
    assert len(obj.data.polygons) == 0
    assert parse_md2(export_md2(bpy, obj, tmp_path / "out.md2")).num_frames == 7
    mesh = bpy.data.meshes.new("points")
    mesh.from_pydata([(0, 0, 0), (1, 0, 0)], [], [])
    mesh.uv_layers.new()
    plain = bpy.data.objects.new("points", mesh)
    bpy.context.scene.collection.objects.link(plain)
    for other in bpy.context.view_layer.objects:
        other.select_set(False)
    plain.select_set(True)
    with pytest.raises(RuntimeError, match="has no faces"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "plain.md2"))
    assert not (tmp_path / "plain.md2").exists()
