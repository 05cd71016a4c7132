"""MDL in Blender: import against the independent decoder, seams, skins, groups, round trip, errors."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, datablock_counts, key_positions, polygon_vertices
from support.colour_reference import nearest
from support.environment import corpus_params
from support.mdl_models import grouped_mdl as _synthetic
from support.mdl_reference import decode
from support.operators import export_mdl, import_mdl
from support.scenes import bend_over_four_frames

from formats.images.palette import quake_palette
from formats.mdl.codec import parse_mdl, serialize_mdl
from formats.mdl.texcoords import effective_st

CORPUS = corpus_params("mdl/*/*.mdl")


def _names(ref):
    return [p.name_raw.split(b"\0")[0].decode("latin-1") for f in ref.frames for p in f.poses]


def _image_indices(image, palette) -> np.ndarray:
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    rgb = np.rint(pixels.reshape(height, width, 4)[::-1, :, :3] * 255).astype(np.int64)
    lookup = {tuple(c): i for i, c in reversed(list(enumerate(palette.tolist())))}
    return np.array([[lookup[tuple(c)] for c in row] for row in rgb.tolist()])


@pytest.mark.parametrize("path", CORPUS)
def test_import_matches_independent_decode(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    obj = import_mdl(bpy, path)
    mesh = obj.data
    keep = [t for t in ref.tris if len(set(t[1:])) == 3]
    np.testing.assert_array_equal(polygon_vertices(mesh), [t[1:][::-1] for t in keep])
    half = ref.skin_width // 2
    expected_uv = []
    for facesfront, *verts in keep:
        corners = []
        for v in verts[::-1]:
            onseam, s, t = ref.texcoords[v]
            if onseam and not facesfront:
                s += half
            corners.append(((s + 0.5) / ref.skin_width, 1 - (t + 0.5) / ref.skin_height))
        expected_uv.append(corners)
    np.testing.assert_allclose(corner_uvs(mesh), expected_uv, atol=1e-6)
    names = _names(ref)
    assert [k.name for k in mesh.shape_keys.key_blocks] == ["Basis"] + names
    poses = [p for f in ref.frames for p in f.poses]
    for i in sorted({0, len(poses) - 1}):
        packed = np.array(poses[i].verts, dtype=np.float32)[:, :3]
        expected = (packed * np.float32(ref.scale) + np.float32(ref.translate)).astype(np.float32)
        np.testing.assert_allclose(key_positions(obj, names[i]), expected, rtol=1e-6, atol=1e-5)
    settings = obj.classic_model
    assert settings.mdl_flags == ref.flags
    assert settings.mdl_synctype == ("RAND" if ref.synctype == 1 else "SYNC")
    assert settings.mdl_bounding_radius == pytest.approx(ref.radius)
    assert tuple(settings.mdl_eye_position) == pytest.approx(ref.eye)
    scene = bpy.context.scene
    assert (scene.frame_start, scene.frame_end, scene.render.fps) == (1, len(poses), 10)
    first_of_group = [sum(len(f.poses) for f in ref.frames[:i]) for i, f in enumerate(ref.frames) if f.intervals]
    marker_frames = {m.frame for m in scene.timeline_markers}
    assert {1 + p for p in first_of_group} <= marker_frames


@pytest.mark.parametrize("path", CORPUS)
def test_skins_decode_to_the_palette_and_fullbright_glows(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    obj = import_mdl(bpy, path)
    palette = quake_palette()
    assert len(obj.data.materials) == len(ref.skins)
    for material, skin in zip(obj.data.materials, ref.skins):
        nodes = material.node_tree.nodes
        indices = np.frombuffer(skin.images[0], np.uint8).reshape(ref.skin_height, ref.skin_width)
        image = nodes["mdl_skin_0"].image
        assert tuple(image.size) == (ref.skin_width, ref.skin_height)
        shown = _image_indices(image, palette)
        np.testing.assert_array_equal(palette[shown], palette[indices])
        assert ("mdl_fullbright_0" in nodes) == bool((indices >= 224).any())
        if skin.intervals is not None:
            assert list(material["mdl_skin_intervals"]) == pytest.approx(skin.intervals)
            assert all(f"mdl_skin_{j}" in nodes for j in range(len(skin.images)))


@pytest.mark.parametrize("path", CORPUS)
def test_untouched_round_trip_is_byte_identical(bpy_scene, path, tmp_path):
    bpy = bpy_scene
    data = path.read_bytes()
    obj = import_mdl(bpy, path)
    exported = export_mdl(bpy, obj, tmp_path / "out.mdl")
    assert exported == data        # with the bytes after the last frame (a QME "QMEX" block) kept


def test_groups_round_trip_with_intervals(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = serialize_mdl(_synthetic())
    (tmp_path / "g.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "g.mdl")
    assert [(a.name, a.frame_start, a.frame_end) for a in obj.classic_model.animations] == \
        [("stand", 1, 2), ("torch", 3, 5)]
    assert export_mdl(bpy, obj, tmp_path / "again.mdl") == data


def test_bytes_after_the_last_frame_are_kept_while_the_model_is_unchanged(bpy_scene, tmp_path):
    bpy = bpy_scene
    body = serialize_mdl(_synthetic())
    tag = b"QMEX" + struct.pack("<i", 4) + bytes(range(60))
    (tmp_path / "tagged.mdl").write_bytes(body + tag)
    obj = import_mdl(bpy, tmp_path / "tagged.mdl")
    assert export_mdl(bpy, obj, tmp_path / "again.mdl") == body + tag
    obj.data.vertices[0].co.x += 5.0           # an edited model does not carry the old file's tag
    for key in (obj.data.shape_keys.key_blocks if obj.data.shape_keys else []):
        key.data[0].co.x += 5.0
    edited = export_mdl(bpy, obj, tmp_path / "edited.mdl")
    assert parse_mdl(edited).trailing_bytes == 0 and edited != body


def test_edited_uvs_split_only_where_needed(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = serialize_mdl(_synthetic())
    (tmp_path / "g.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "g.mdl")
    uv = obj.data.uv_layers.active.uv
    uv[0].vector = (uv[0].vector[0] + 3 / 16, uv[0].vector[1])      # polygon 0, first corner (file vertex 2)
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "split.mdl"))
    assert model.num_vertices == 7
    corners = polygon_vertices(obj.data)[:, ::-1]
    uvs = corner_uvs(obj.data)[:, ::-1]
    wanted = np.stack([np.rint(uvs[..., 0] * 16 - 0.5), np.rint((1 - uvs[..., 1]) * 8 - 0.5)], -1)
    got = effective_st(model.onseam, model.s, model.t, model.triangles, model.facesfront, 16)
    np.testing.assert_array_equal(got, wanted)
    np.testing.assert_array_equal(model.pose_verts[:, 6], model.pose_verts[:, corners[0, 2]])


def test_non_quake_image_converts_without_fullbright(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    rng = np.random.default_rng(2)
    image = bpy.data.images.new("photo", 32, 16)
    pixels = rng.random((16, 32, 4)).astype(np.float32)
    pixels[..., 3] = 1
    image.pixels.foreach_set(pixels.ravel())
    material = bpy.data.materials.new("photo")
    if bpy.app.version < (5, 0, 0):
        material.use_nodes = True
    tex = material.node_tree.nodes.new("ShaderNodeTexImage")
    tex.image = image
    obj.data.materials.append(material)
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "cube.mdl"))
    indices = model.skins[0].images[0]
    assert indices.shape == (16, 32) and indices.max() < 224
    palette = quake_palette()        # CIEDE2000-nearest outside 16-31 and 96-111 (the cube is no player)
    allowed = [i for i in range(224) if not (16 <= i < 32 or 96 <= i < 112)]
    rgb = np.rint(pixels[::-1, :, :3] * 255).reshape(-1, 3)
    for pixel, index in list(zip(rgb, indices.ravel()))[::5]:
        assert index == nearest(pixel, palette, allowed)


def test_bad_file_reports_and_leaves_nothing(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = serialize_mdl(_synthetic())
    before = datablock_counts(bpy)
    for cut in (10, 100, len(data) - 3):
        (tmp_path / "cut.mdl").write_bytes(data[:cut])
        with pytest.raises(RuntimeError, match="cut.mdl"):
            bpy.ops.import_scene.mdl(filepath=str(tmp_path / "cut.mdl"))
    assert datablock_counts(bpy) == before


def test_engine_limits_and_modern_target(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=40, y_subdivisions=40, calc_uvs=True)
    with pytest.raises(RuntimeError, match="1681 vertices, 657 over Quake's limit of 1024"):
        bpy.ops.export_scene.mdl(filepath=str(tmp_path / "big.mdl"))
    assert not (tmp_path / "big.mdl").exists()
    assert bpy.ops.export_scene.mdl(filepath=str(tmp_path / "big.mdl"), target="MODERN") == {"FINISHED"}
    assert parse_mdl((tmp_path / "big.mdl").read_bytes()).num_vertices == 1681


def test_header_fields_edited_in_the_panel_are_written(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "g.mdl").write_bytes(serialize_mdl(_synthetic()))
    obj = import_mdl(bpy, tmp_path / "g.mdl")
    obj.classic_model.mdl_flag_rotate = False
    obj.classic_model.mdl_flag_rocket = True
    obj.classic_model.mdl_synctype = "SYNC"
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "h.mdl"))
    assert (model.flags, model.synctype) == (1, 0)


def test_custom_palette_option(bpy_scene, tmp_path):
    bpy = bpy_scene
    palette = quake_palette()[::-1].copy()
    (tmp_path / "pal.lmp").write_bytes(palette.tobytes())
    (tmp_path / "g.mdl").write_bytes(serialize_mdl(_synthetic()))
    obj = import_mdl(bpy, tmp_path / "g.mdl", palette_path=str(tmp_path / "pal.lmp"))
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    indices = _synthetic().skins[0].images[0]
    shown = _image_indices(image, palette)
    np.testing.assert_array_equal(palette[shown], palette[indices])


def _reference_palette(name: str) -> np.ndarray:
    """The palette from the shared reference TSV (independent of the product's copy)."""
    text = (Path(__file__).resolve().parents[3] / "shared" / "reference" / f"{name}_palette.tsv")
    if not text.is_file():
        pytest.skip(f"reference palette not found at {text}")
    rows = [line.split() for line in text.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return np.array([[int(v) for v in r[1:4]] for r in rows], dtype=np.uint8)


def test_hexen2_palette_option_both_ways(bpy_scene, tmp_path):
    bpy = bpy_scene
    hexen = _reference_palette("hexen2")
    (tmp_path / "g.mdl").write_bytes(serialize_mdl(_synthetic()))
    obj = import_mdl(bpy, tmp_path / "g.mdl", palette="HEXEN2")
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    indices = _synthetic().skins[0].images[0]
    np.testing.assert_array_equal(hexen[_image_indices(image, hexen)], hexen[indices])
    exported = parse_mdl(export_mdl(bpy, obj, tmp_path / "h.mdl", palette="HEXEN2"))
    np.testing.assert_array_equal(exported.skins[0].images[0], indices)


def test_palette_file_option_without_a_file_is_refused(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "g.mdl").write_bytes(serialize_mdl(_synthetic()))
    before = len(bpy.data.objects)
    with pytest.raises(RuntimeError, match="no palette file"):
        bpy.ops.import_scene.mdl(filepath=str(tmp_path / "g.mdl"), palette="FILE")
    assert len(bpy.data.objects) == before


def test_odd_skin_width_imports_with_a_warning(bpy_scene, tmp_path, capsys):
    bpy = bpy_scene
    model = _synthetic()
    model.skin_width = 14
    model.skins = [type(model.skins[1])(None, model.skins[1].images[:, :, :14].copy())]
    (tmp_path / "odd.mdl").write_bytes(serialize_mdl(model))
    import_mdl(bpy, tmp_path / "odd.mdl")
    assert "not a multiple of 4" in capsys.readouterr().out


def test_file_handler_routes_mdl_to_the_operators(bpy_scene):
    bpy = bpy_scene
    handlers = [cls for cls in bpy.types.FileHandler.__subclasses__() if ".mdl" in cls.bl_file_extensions]
    assert [(h.bl_import_operator, h.bl_export_operator) for h in handlers] == [("import_scene.mdl", "export_scene.mdl")]


def test_blender_built_animation_exports_on_one_grid(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    expected = bend_over_four_frames(bpy, obj)
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey.mdl", frame_rate="SCENE"))
    assert model.pose_names == ["bend01", "bend02", "bend03", "bend04"]
    assert model.num_vertices >= len(obj.data.vertices)        # split copies come after the originals
    decoded = model.positions().astype(np.float64)[:, :len(obj.data.vertices)]
    assert np.all(np.abs(decoded - np.array(expected)) <= model.scale.astype(np.float64) / 2 + 1e-5)


def test_edited_skin_keeps_fullbright_pixels_fullbright(bpy_scene, tmp_path):
    bpy = bpy_scene
    path = next((p.values[0] for p in CORPUS if p.values[0] is not None and p.values[0].name == "flame.mdl"), None)
    if path is None:
        pytest.skip("flame.mdl (a skin with fullbright pixels) is not in the corpus")
    original = parse_mdl(path.read_bytes()).skins[0].images[0]
    obj = import_mdl(bpy, path)
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    width, height = image.size
    pixels = np.empty(width * height * 4, np.float32)
    image.pixels.foreach_get(pixels)
    pixels = pixels.reshape(height, width, 4)
    ordinary = np.argwhere(original[::-1] < 224)[0]
    pixels[tuple(ordinary)][:3] = (1.0, 0.0, 1.0)
    image.pixels.foreach_set(pixels.ravel())
    indices = parse_mdl(export_mdl(bpy, obj, tmp_path / "edited.mdl")).skins[0].images[0]
    assert np.array_equal(indices >= 224, original >= 224)
    palette = quake_palette()
    same = np.ones_like(original, dtype=bool)
    same[height - 1 - ordinary[0], ordinary[1]] = False
    np.testing.assert_array_equal(palette[indices][same], palette[original][same])


def test_name_fields_with_bytes_after_their_nul_export_whole(bpy_scene, tmp_path):
    """Old modelgen output keeps stale bytes after a frame name's NUL (``chain0\\0MedDLe...``): an untouched
    export writes every such 16-byte field back whole; a renamed frame gets a clean NUL-padded field."""
    bpy = bpy_scene
    model = _synthetic()
    model.pose_name_raw = [n.encode("latin-1").ljust(16, b"\0") for n in model.pose_names]
    model.pose_name_raw[0] = b"stand1\0MedDLe\0\0\0"       # trailing NULs, as the stale bytes left them
    model.pose_name_raw[3] = b"torch2\0\0\0\0\0\0\0\0\0x"  # a group's pose, junk in the last byte
    data = serialize_mdl(model)
    assert data.count(b"stand1\0MedDLe\0\0\0") == 1 and data.count(b"torch2\0\0\0\0\0\0\0\0\0x") == 1
    (tmp_path / "chain.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "chain.mdl")
    assert [k.name for k in obj.data.shape_keys.key_blocks][1:] == model.pose_names
    assert export_mdl(bpy, obj, tmp_path / "again.mdl") == data
    obj.classic_model.frames[0].name = "chain0"                # renamed in the sidebar's frame list
    names = [p.name_raw for f in decode(export_mdl(bpy, obj, tmp_path / "renamed.mdl")).frames for p in f.poses]
    assert names[0] == b"chain0".ljust(16, b"\0")
    assert names[1:] == model.pose_name_raw[1:]
