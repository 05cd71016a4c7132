"""MD2 in Blender: import against the independent decoder, playback, export, round trip, errors."""
from __future__ import annotations

import re
import struct

import numpy as np
import pytest
from support.animation_reference import reference_animations
from support.blender_helpers import corner_uvs, datablock_counts, evaluated_positions, key_positions, polygon_vertices
from support.environment import CORPUS, corpus_params
from support.md2_reference import decode
from support.md2_synthetic import grid_model
from support.operators import export_md2, import_md2

from formats.md2.codec import parse_md2, serialize_md2
from formats.md2.glcmds import glcmd_triangles

VALID = [p for p in corpus_params("md2/*/*.md2")
         if p.values[0] is None or not ("malformed" in p.values[0].name or "corrupt" in str(p.values[0]))]
INVALID = [p for p in corpus_params("md2/*/*.md2")
           if p.values[0] is None or "malformed" in p.values[0].name or "corrupt" in str(p.values[0])]


@pytest.mark.parametrize("path", VALID)
def test_import_matches_independent_decode(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    obj = import_md2(bpy, path)
    mesh = obj.data
    assert obj.name == path.stem
    assert len(mesh.vertices) == len(ref.positions[0])
    keep = [t for t in ref.tris if len(set(t[0])) == 3]
    np.testing.assert_array_equal(polygon_vertices(mesh), [t[0][::-1] for t in keep])
    expected_uv = [[((ref.st[i][0] + 0.5) / ref.skin_width, 1 - (ref.st[i][1] + 0.5) / ref.skin_height)
                    for i in t[1][::-1]] for t in keep]
    np.testing.assert_allclose(corner_uvs(mesh), expected_uv, atol=1e-6)
    names = [k.name for k in mesh.shape_keys.key_blocks]
    assert names == ["Basis"] + ref.frame_names
    for f in sorted({0, len(ref.frame_names) // 2, len(ref.frame_names) - 1}):
        np.testing.assert_array_equal(key_positions(obj, ref.frame_names[f]), np.float32(ref.positions[f]))
    scene = bpy.context.scene
    assert scene.render.fps == 10
    assert (scene.frame_start, scene.frame_end) == (1, len(ref.frame_names))
    animation = reference_animations(ref.frame_names)
    starts = [i for i in range(len(animation)) if i == 0 or animation[i] != animation[i - 1]]
    assert sorted((m.frame, m.name) for m in scene.timeline_markers) == sorted((1 + i, animation[i]) for i in starts)
    anims = obj.classic_model.animations
    assert [(a.name, a.frame_start) for a in anims] == [(animation[i], 1 + i) for i in starts]


@pytest.mark.parametrize("path", VALID[:1] + VALID[-1:])
def test_timeline_plays_frames_and_blends_neighbours(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    obj = import_md2(bpy, path)
    scene = bpy.context.scene
    for f in (0, 5, len(ref.frame_names) - 1):
        scene.frame_set(1 + f)
        np.testing.assert_allclose(evaluated_positions(bpy, obj), ref.positions[f], atol=1e-4)
    scene.frame_set(1 + 5, subframe=0.5)
    halfway = (np.array(ref.positions[5]) + np.array(ref.positions[6])) / 2
    np.testing.assert_allclose(evaluated_positions(bpy, obj), halfway, atol=1e-4)


def _corners(model):
    """Per triangle corner: vertex bytes of every frame, normal indices, ST; the losslessness unit."""
    xyz, st = model.tri_xyz.astype(np.int64), model.tri_st.astype(np.int64)
    return model.frame_verts[:, xyz], model.frame_normals[:, xyz], model.st[st]


def assert_same_model(a, b):
    va, na, sa = _corners(a)
    vb, nb, sb = _corners(b)
    np.testing.assert_array_equal(va, vb)
    np.testing.assert_array_equal(na, nb)
    np.testing.assert_array_equal(sa, sb)
    assert a.frame_names == b.frame_names
    assert a.skins == b.skins
    assert (a.skin_width, a.skin_height) == (b.skin_width, b.skin_height)
    np.testing.assert_array_equal(a.frame_scale, b.frame_scale)
    np.testing.assert_array_equal(a.frame_translate, b.frame_translate)
    assert_same_gl_triangles(a, b)


def assert_same_gl_triangles(a, b):
    def canon(model):
        verts, s, t = glcmd_triangles(model.glcmds, model.num_vertices)
        rows = []
        for v, ss, tt in zip(verts.tolist(), s.tolist(), t.tolist()):
            c = list(zip(v, ss, tt))
            k = c.index(min(c))
            rows.append(tuple(c[k:] + c[:k]))
        return sorted(rows)
    assert canon(a) == canon(b)


@pytest.mark.parametrize("path", VALID)
def test_untouched_round_trip_is_lossless(bpy_scene, path, tmp_path):
    bpy = bpy_scene
    data = path.read_bytes()
    original = parse_md2(data)
    obj = import_md2(bpy, path)
    written = export_md2(bpy, obj, tmp_path / "out.md2")
    assert_same_model(original, parse_md2(written))
    assert written == data        # with any bytes after ofs_end (cero/tris.md2 ends in an editor's 131-byte tag)


def original_size(data: bytes) -> int:
    return struct.unpack_from("<i", data, 64)[0]          # ofs_end: bytes after it are not part of the model


def test_bytes_after_ofs_end_are_kept_while_the_model_is_unchanged(bpy_scene, tmp_path):
    bpy = bpy_scene
    body = serialize_md2(grid_model(nx=4, ny=3, frames=3))
    tag = b"EDITOR-TAG\x00\x01" + bytes(range(40))
    (tmp_path / "tagged.md2").write_bytes(body + tag)
    obj = import_md2(bpy, tmp_path / "tagged.md2")
    written = export_md2(bpy, obj, tmp_path / "again.md2")
    assert written == body + tag and original_size(written) == len(body)
    obj.data.vertices[0].co.x += 5.0           # an edited model does not carry the old file's tag
    for key in (obj.data.shape_keys.key_blocks if obj.data.shape_keys else []):
        key.data[0].co.x += 5.0
    edited = export_md2(bpy, obj, tmp_path / "edited.md2")
    assert len(edited) == original_size(edited) and edited[:len(body)] != body


def test_round_trip_of_synthetic_model_is_byte_identical(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = serialize_md2(grid_model(nx=6, ny=5, frames=7))
    (tmp_path / "grid.md2").write_bytes(data)
    obj = import_md2(bpy, tmp_path / "grid.md2")
    assert export_md2(bpy, obj, tmp_path / "again.md2") == data


def test_editing_one_frame_keeps_the_others_identical(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "grid.md2"
    path.write_bytes(serialize_md2(grid_model(nx=6, ny=5, frames=7)))
    original = parse_md2(path.read_bytes())
    obj = import_md2(bpy, path)
    block = obj.data.shape_keys.key_blocks[original.frame_names[3]]
    block.data[7].co = (block.data[7].co[0] + 1.234, block.data[7].co[1], block.data[7].co[2] + 40.0)
    exported = parse_md2(export_md2(bpy, obj, tmp_path / "out.md2"))
    others = [f for f in range(original.num_frames) if f != 3]
    np.testing.assert_array_equal(exported.frame_verts[others], original.frame_verts[others])
    np.testing.assert_array_equal(exported.frame_normals[others], original.frame_normals[others])
    np.testing.assert_array_equal(exported.frame_scale[others], original.frame_scale[others])
    edited = key_positions(obj, original.frame_names[3]).astype(np.float64)
    err = np.abs(exported.positions()[3].astype(np.float64) - edited)
    assert np.all(err <= exported.frame_scale[3] / 2 + 1e-4)
    assert not np.array_equal(exported.frame_verts[3], original.frame_verts[3])


def test_blender_built_model_exports_timeline_with_marker_names(bpy_scene, tmp_path):
    bpy = bpy_scene
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    mod = obj.modifiers.new("twist", "SIMPLE_DEFORM")
    mod.deform_axis = "Z"
    for frame, angle in ((1, 0.0), (6, 1.5)):
        mod.angle = angle
        mod.keyframe_insert("angle", frame=frame)
    scene.frame_start, scene.frame_end = 1, 6
    scene.timeline_markers.new("idle", frame=1)
    scene.timeline_markers.new("twist", frame=3)
    expected = []
    for f in range(1, 7):
        scene.frame_set(f)
        expected.append(evaluated_positions(bpy, obj))
    model = parse_md2(export_md2(bpy, obj, tmp_path / "monkey.md2", frame_rate="SCENE"))
    assert model.frame_names == ["idle01", "idle02", "twist01", "twist02", "twist03", "twist04"]
    assert model.num_vertices == len(obj.data.vertices)
    decoded = model.positions().astype(np.float64)
    half_step = model.frame_scale[:, None, :].astype(np.float64) / 2 + 1e-5
    assert np.all(np.abs(decoded - np.array(expected)) <= half_step)
    reimported = import_md2(bpy, tmp_path / "monkey.md2")
    assert len(reimported.data.polygons) == len(model.tri_xyz) > len(obj.data.polygons)


def test_shape_key_frame_source(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "grid.md2"
    path.write_bytes(serialize_md2(grid_model(frames=4)))
    obj = import_md2(bpy, path)
    bpy.context.scene.frame_end = 2
    model = parse_md2(export_md2(bpy, obj, tmp_path / "keys.md2", frame_source="SHAPE_KEYS"))
    assert model.frame_names == parse_md2(path.read_bytes()).frame_names


@pytest.mark.parametrize("path", INVALID)
def test_bad_corpus_files_report_and_leave_nothing(bpy_scene, path):
    bpy = bpy_scene
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match=re.escape(path.name)):
        bpy.ops.import_scene.md2(filepath=str(path))
    assert datablock_counts(bpy) == before


def test_truncated_file_reports_and_leaves_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = serialize_md2(grid_model())
    (tmp_path / "cut.md2").write_bytes(data[: len(data) - 10])
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match="cut.md2"):
        bpy.ops.import_scene.md2(filepath=str(tmp_path / "cut.md2"))
    assert datablock_counts(bpy) == before


def test_failure_inside_the_build_removes_everything(bpy_scene, tmp_path, monkeypatch, extension):
    bpy = bpy_scene
    import sys
    module = sys.modules[f"{extension}.importers.frame_animation"]
    errors = sys.modules[f"{extension}.formats.errors"]

    def explode(*args, **kwargs):
        raise errors.FormatError("simulated failure after the mesh was built")
    monkeypatch.setattr(module, "animate_frame_keys", explode)
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model()))
    before = datablock_counts(bpy)
    with pytest.raises(RuntimeError, match="simulated"):
        bpy.ops.import_scene.md2(filepath=str(tmp_path / "grid.md2"))
    assert datablock_counts(bpy) == before


def test_multi_file_import_like_a_drop(bpy_scene, tmp_path):
    bpy = bpy_scene
    for name, frames in (("a.md2", 7), ("b.md2", 3)):
        (tmp_path / name).write_bytes(serialize_md2(grid_model(frames=frames)))
    result = bpy.ops.import_scene.md2(directory=str(tmp_path), files=[{"name": "a.md2"}, {"name": "b.md2"}])
    assert result == {"FINISHED"}
    assert sorted(o.name for o in bpy.context.scene.objects) == ["a", "b"]
    assert (bpy.context.scene.frame_start, bpy.context.scene.frame_end) == (1, 7)


def test_file_handler_routes_md2_to_the_operators(bpy_scene):
    bpy = bpy_scene
    handlers = [cls for cls in bpy.types.FileHandler.__subclasses__() if ".md2" in cls.bl_file_extensions]
    assert len(handlers) == 1
    handler = handlers[0]
    assert handler.bl_import_operator == "import_scene.md2"
    assert handler.bl_export_operator == "export_scene.md2"
    assert hasattr(handler, "poll_drop")


def test_collection_exporter(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "grid.md2"
    path.write_bytes(serialize_md2(grid_model()))
    obj = import_md2(bpy, path)
    collection = bpy.data.collections.new("Export")
    bpy.context.scene.collection.children.link(collection)
    collection.objects.link(obj)
    obj.select_set(False)
    with bpy.context.temp_override(collection=collection):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_md2")
        collection.exporters[0].export_properties.filepath = str(tmp_path / "collection.md2")
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    assert_same_model(parse_md2(path.read_bytes()), parse_md2((tmp_path / "collection.md2").read_bytes()))


def test_limits_are_refused_and_the_old_file_kept(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=50, y_subdivisions=50, calc_uvs=True)
    target = tmp_path / "big.md2"
    target.write_bytes(b"old contents")
    with pytest.raises(RuntimeError, match=r"2601 vertices, 553 over the limit of 2048; 5000 triangles, 904 over the limit of 4096"):
        bpy.ops.export_scene.md2(filepath=str(target))
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["big.md2"]


def test_export_refuses_nothing_selected_and_missing_uvs(bpy_scene, tmp_path):
    bpy = bpy_scene
    with pytest.raises(RuntimeError, match="nothing to export"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "x.md2"))
    bpy.ops.mesh.primitive_cube_add(calc_uvs=False)
    with pytest.raises(RuntimeError, match="no UV map"):
        bpy.ops.export_scene.md2(filepath=str(tmp_path / "x.md2"))
    assert not (tmp_path / "x.md2").exists()


def test_skin_next_to_the_model_is_loaded_and_packed(bpy_scene):
    bpy = bpy_scene
    path = CORPUS / "md2" / "petaaar88-zarlag" / "weapon.md2"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    obj = import_md2(bpy, path)
    materials = list(obj.data.materials)
    assert len(materials) == 1 and materials[0]["md2_skin"] == "players\\zarlag\\Weapon.pcx"
    image = next(n.image for n in materials[0].node_tree.nodes if n.type == "TEX_IMAGE")
    width, height = struct.unpack_from("<HH", (path.parent / "WEAPON.PCX").read_bytes(), 8)
    assert tuple(image.size) == (width + 1, height + 1)
    assert image.packed_file is not None


def test_animation_panel_operator_sets_preview_range(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "grid.md2").write_bytes(serialize_md2(grid_model(frames=6)))
    obj = import_md2(bpy, tmp_path / "grid.md2")
    obj.classic_model.active_animation = 1
    anim = obj.classic_model.animations[1]
    assert bpy.ops.classic_models.play_animation(set_preview_range=True) == {"FINISHED"}
    scene = bpy.context.scene
    assert scene.frame_current == anim.frame_start == 4
    assert (scene.use_preview_range, scene.frame_preview_start, scene.frame_preview_end) == (True, 4, 6)


def test_object_transform_animation_is_baked_into_the_frames(bpy_scene, tmp_path):
    bpy = bpy_scene
    scene = bpy.context.scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    for frame, x in ((1, 0.0), (3, 10.0)):
        obj.location = (x, 0.0, 0.0)
        obj.keyframe_insert("location", frame=frame)
    scene.frame_start, scene.frame_end = 1, 3
    model = parse_md2(export_md2(bpy, obj, tmp_path / "moving.md2", frame_rate="SCENE"))
    centres = model.positions().astype(np.float64).mean(axis=1)
    np.testing.assert_allclose(centres[:, 0], [0.0, 5.0, 10.0], atol=0.05)
    np.testing.assert_allclose(centres[:, 1:], 0.0, atol=0.05)


def test_a_static_object_transform_applies_to_every_frame(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = tmp_path / "grid.md2"
    path.write_bytes(serialize_md2(grid_model(frames=4)))
    obj = import_md2(bpy, path)
    original = parse_md2(path.read_bytes()).positions().astype(np.float64)
    obj.location = (100.0, 0.0, 0.0)
    obj.scale = (2.0, 2.0, 2.0)
    bpy.context.view_layer.update()
    moved = parse_md2(export_md2(bpy, obj, tmp_path / "moved.md2")).positions().astype(np.float64)
    np.testing.assert_allclose(moved, original * 2 + [100.0, 0.0, 0.0], atol=0.2)
