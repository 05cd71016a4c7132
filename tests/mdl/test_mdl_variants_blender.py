"""MD16 and RAPO in Blender: byte-exact round trips, the Format option, Blender-made animation on each
lattice, RAPO against IDPO, Hexen II flags, broken files refused."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from support.blender_helpers import corner_uvs, datablock_counts, key_positions, polygon_vertices
from support.mdl_models import md16_model, rapo_model
from support.operators import export_mdl, import_mdl
from support.scenes import bend_over_four_frames

from formats.mdl.codec import parse_mdl, serialize_mdl
from formats.mdl.texcoords import effective_st


def with_degenerate(model):
    """``model`` plus a triangle that uses a vertex twice (Blender has no face for it)."""
    extra = np.array([[1, 1, 3]], np.int32)
    out = dataclasses.replace(model, triangles=np.concatenate([model.triangles[:2], extra, model.triangles[2:]]),
                              facesfront=np.insert(model.facesfront, 2, 0).astype(np.int32))
    if model.st_triangles is not None:
        out.st_triangles = np.concatenate([model.st_triangles[:2], np.array([[4, 6, 0]], np.int32),
                                           model.st_triangles[2:]])
    return out


@pytest.mark.parametrize("build", [md16_model, rapo_model, lambda: with_degenerate(md16_model()),
                                   lambda: with_degenerate(rapo_model())],
                         ids=["md16", "rapo", "md16-degenerate", "rapo-degenerate"])
def test_untouched_import_exports_byte_for_byte_in_its_own_format(bpy_scene, tmp_path, build):
    bpy = bpy_scene
    data = serialize_mdl(build())
    (tmp_path / "in.mdl").write_bytes(data)
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    assert export_mdl(bpy, obj, tmp_path / "out.mdl") == data


def test_md16_import_positions_are_the_16_bit_decoding(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = md16_model()
    (tmp_path / "in.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    high, low = model.pose_verts.astype(np.float64), model.pose_low[..., :3].astype(np.float64)
    expected = (high + low / 256) * model.scale.astype(np.float64) + model.translate
    for p, key in enumerate(obj.data.shape_keys.key_blocks[1:]):
        np.testing.assert_allclose(key_positions(obj, key.name), expected[p], rtol=0, atol=1e-4)


def test_rapo_and_idpo_of_one_model_import_identically(bpy_scene, tmp_path):
    """The IDPO model's texcoord records as a RAPO table indexed by the vertex indices."""
    bpy = bpy_scene
    rapo = parse_mdl(serialize_mdl(rapo_model()))
    idpo = dataclasses.replace(rapo, variant="IDPO", st_triangles=None)
    # IDPO needs one record per vertex: take each vertex's record from the RAPO corners that use it
    first = {}
    for v, st in zip(rapo.triangles.ravel(), rapo.st_triangles.ravel()):
        first.setdefault(int(v), int(st))
    records = [first.get(v, 0) for v in range(rapo.num_vertices)]
    idpo.onseam, idpo.s, idpo.t = rapo.onseam[records], rapo.s[records], rapo.t[records]
    same = dataclasses.replace(idpo, variant="RAPO", st_triangles=idpo.triangles.copy())
    (tmp_path / "a.mdl").write_bytes(serialize_mdl(idpo))
    (tmp_path / "b.mdl").write_bytes(serialize_mdl(same))
    a, b = import_mdl(bpy, tmp_path / "a.mdl"), import_mdl(bpy, tmp_path / "b.mdl")
    np.testing.assert_array_equal(polygon_vertices(a.data), polygon_vertices(b.data))
    np.testing.assert_array_equal(corner_uvs(a.data), corner_uvs(b.data))
    names = [k.name for k in a.data.shape_keys.key_blocks]
    assert names == [k.name for k in b.data.shape_keys.key_blocks]
    for name in names:
        np.testing.assert_array_equal(key_positions(a, name), key_positions(b, name))
    assert [(f.name, f.group, f.interval) for f in a.classic_model.frames] == \
        [(f.name, f.group, f.interval) for f in b.classic_model.frames]


def test_rapo_corner_uvs_follow_stindex_and_the_seam_rule(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = rapo_model()
    (tmp_path / "in.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    st = effective_st(model.onseam, model.s, model.t, model.st_triangles, model.facesfront, model.skin_width)
    keep = [i for i, t in enumerate(model.triangles) if len(set(t.tolist())) == 3]
    expected = np.stack([(st[keep, :, 0] + 0.5) / model.skin_width,
                         1 - (st[keep, :, 1] + 0.5) / model.skin_height], -1)[:, ::-1]
    np.testing.assert_allclose(corner_uvs(obj.data), expected, atol=1e-6)


def _bent_monkey(bpy):
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    bpy.ops.object.mode_set(mode="EDIT")           # triangles (so polygons are the file's triangles),
    bpy.ops.mesh.select_all(action="SELECT")       # UV islands (many seams)
    bpy.ops.mesh.quads_convert_to_tris()
    bpy.ops.uv.smart_project()
    bpy.ops.object.mode_set(mode="OBJECT")
    expected = bend_over_four_frames(bpy, obj)
    return obj, np.array(expected)


def test_blender_animation_as_md16_is_within_half_a_16_bit_step(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, expected = _bent_monkey(bpy)
    data = export_mdl(bpy, obj, tmp_path / "monkey.mdl", mdl_format="MD16", target="MODERN",
                      frame_rate="SCENE")
    model = parse_mdl(data)
    assert model.variant == "MD16" and data[:4] == b"MD16"
    decoded = model.positions().astype(np.float64)[:, :len(obj.data.vertices)]
    step = model.scale.astype(np.float64) / 256
    error = np.abs(decoded - expected)
    assert np.all(error <= step / 2 + 1e-5)
    idpo = parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey8.mdl", mdl_format="IDPO",
                                 target="MODERN", frame_rate="SCENE"))
    error8 = np.abs(idpo.positions().astype(np.float64)[:, :len(obj.data.vertices)] - expected)
    assert error.max() * 16 < error8.max()          # far finer than the 8-bit grid


def test_blender_animation_as_rapo_splits_no_vertex(bpy_scene, tmp_path):
    bpy = bpy_scene
    obj, expected = _bent_monkey(bpy)
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey.mdl", mdl_format="RAPO", frame_rate="SCENE"))
    assert model.variant == "RAPO" and model.num_vertices == len(obj.data.vertices)
    idpo = parse_mdl(export_mdl(bpy, obj, tmp_path / "monkey_idpo.mdl", mdl_format="IDPO",
                                 target="MODERN", frame_rate="SCENE"))
    assert idpo.num_vertices > model.num_vertices   # the same UVs split vertices in IDPO
    assert np.all(np.abs(model.positions().astype(np.float64) - expected)
                  <= model.scale.astype(np.float64) / 2 + 1e-5)
    uvs = corner_uvs(obj.data)[:, ::-1].astype(np.float64)
    wanted = np.stack([np.rint(uvs[..., 0] * model.skin_width - 0.5),
                       np.rint((1 - uvs[..., 1]) * model.skin_height - 0.5)], -1)
    got = effective_st(model.onseam, model.s, model.t, model.st_triangles, model.facesfront, model.skin_width)
    np.testing.assert_array_equal(got, wanted)
    np.testing.assert_array_equal(model.triangles, polygon_vertices(obj.data)[:, ::-1])


def test_format_option_converts_between_flavours(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = md16_model()
    (tmp_path / "in.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    idpo = parse_mdl(export_mdl(bpy, obj, tmp_path / "idpo.mdl", mdl_format="IDPO"))
    assert idpo.variant == "IDPO"
    assert np.all(np.abs(idpo.positions() - model.positions()) <= idpo.scale / 2 + 1e-4)
    rapo = parse_mdl(export_mdl(bpy, obj, tmp_path / "rapo.mdl", mdl_format="RAPO"))
    assert rapo.variant == "RAPO" and rapo.num_vertices == model.num_vertices
    (tmp_path / "rapo_in.mdl").write_bytes(serialize_mdl(rapo_model()))
    rapo_obj = import_mdl(bpy, tmp_path / "rapo_in.mdl")
    back = parse_mdl(export_mdl(bpy, rapo_obj, tmp_path / "as_idpo.mdl", mdl_format="IDPO"))
    keep = [i for i, t in enumerate(back.triangles) if len(set(t.tolist())) == 3]
    original = rapo_model()
    st = effective_st(original.onseam, original.s, original.t, original.st_triangles, original.facesfront,
                      original.skin_width)
    got = effective_st(back.onseam, back.s, back.t, back.triangles, back.facesfront, back.skin_width)
    np.testing.assert_array_equal(got[keep], st[keep])


def test_hexen2_flags_by_name_are_written_back(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "in.mdl").write_bytes(serialize_mdl(rapo_model()))
    obj = import_mdl(bpy, tmp_path / "in.mdl")
    settings = obj.classic_model
    assert settings.mdl_flag_transparent and settings.mdl_flag_face_view and settings.mdl_flag_rotate
    assert not settings.mdl_flag_holey
    settings.mdl_flag_holey = True
    settings.mdl_flag_transparent = False
    model = parse_mdl(export_mdl(bpy, obj, tmp_path / "out.mdl"))
    assert model.flags == 8 | (1 << 14) | (1 << 16)


@pytest.mark.parametrize("build", [md16_model, rapo_model])
def test_broken_variant_files_are_refused_with_nothing_left(bpy_scene, tmp_path, build):
    bpy = bpy_scene
    data = serialize_mdl(build())
    before = datablock_counts(bpy)
    for size in (8, 84, 87, len(data) // 2, len(data) - 1):
        path = tmp_path / f"cut{size}.mdl"
        path.write_bytes(data[:size])
        with pytest.raises(RuntimeError, match="cut"):
            bpy.ops.import_scene.mdl(filepath=str(path))
        assert datablock_counts(bpy) == before


def _corner_frames(obj) -> tuple[np.ndarray, np.ndarray]:
    """(keys, T, 3, 3) positions of every polygon corner in every shape key, and (T, 3, 2) corner UVs."""
    corners = polygon_vertices(obj.data)
    keys = [key_positions(obj, k.name)[corners] for k in obj.data.shape_keys.key_blocks]
    return np.array(keys), corner_uvs(obj.data)


def test_rapo_exported_as_idpo_imports_identically_corner_by_corner(bpy_scene, tmp_path):
    """A RAPO whose vertices are shared across UV seams, and the IDPO the export makes of it by
    splitting those vertices: the same positions at every corner of every frame, the same UVs."""
    bpy = bpy_scene
    (tmp_path / "r.mdl").write_bytes(serialize_mdl(rapo_model()))
    rapo = import_mdl(bpy, tmp_path / "r.mdl")
    idpo_model = parse_mdl(export_mdl(bpy, rapo, tmp_path / "i.mdl", mdl_format="IDPO"))
    assert idpo_model.variant == "IDPO" and idpo_model.num_vertices > rapo_model().num_vertices
    idpo = import_mdl(bpy, tmp_path / "i.mdl")
    (a_pos, a_uv), (b_pos, b_uv) = _corner_frames(rapo), _corner_frames(idpo)
    np.testing.assert_array_equal(a_pos, b_pos)
    np.testing.assert_allclose(a_uv, b_uv, rtol=0, atol=1e-7)
    assert [(f.name, f.group, f.interval) for f in rapo.classic_model.frames] == \
        [(f.name, f.group, f.interval) for f in idpo.classic_model.frames]


@pytest.mark.parametrize("option, palette_name", [(None, "HEXEN2"), ("AUTO", "HEXEN2"), ("QUAKE", "QUAKE"),
                                                  ("HEXEN2", "HEXEN2")])
def test_rapo_skins_decode_with_hexen2_palette_unless_told(bpy_scene, tmp_path, option, palette_name):
    """Only Hexen II loads RAPO, so its skins default to Hexen II's palette (Palette: Automatic, the menu's
    default, chosen or left alone); an explicit choice wins."""
    from formats.images.palette import game_palette
    bpy = bpy_scene
    model = rapo_model()
    (tmp_path / "in.mdl").write_bytes(serialize_mdl(model))
    obj = import_mdl(bpy, tmp_path / "in.mdl", **({"palette": option} if option else {}))
    indices = np.asarray(model.skins[0].images[0], np.uint8)
    wanted, other = game_palette(palette_name)[indices], game_palette(
        "QUAKE" if palette_name == "HEXEN2" else "HEXEN2")[indices]
    assert not np.array_equal(wanted, other)          # the two palettes tell these pixels apart
    image = obj.data.materials[0].node_tree.nodes["mdl_skin_0"].image
    pixels = np.empty(image.size[0] * image.size[1] * 4, np.float32)
    image.pixels.foreach_get(pixels)
    shown = np.rint(pixels.reshape(image.size[1], image.size[0], 4)[::-1, :, :3] * 255).astype(np.uint8)
    np.testing.assert_array_equal(shown, wanted)


def test_rapo_export_refuses_more_texture_coordinates_than_hexen2_holds(bpy_scene, tmp_path):
    """About a thousand vertices (within Hexen II's 2000) whose 3600-odd corners each read their own
    texel: the RAPO texcoord table would need a record per corner, over MAXALIASVERTS; nothing is
    written."""
    bpy = bpy_scene
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=31, y_subdivisions=31)
    obj = bpy.context.active_object
    mesh = obj.data
    assert len(mesh.vertices) <= 2000 < len(mesh.loops) <= 62 * 64
    uv = mesh.uv_layers.new(name="UVMap") if not mesh.uv_layers else mesh.uv_layers[0]
    corners = len(mesh.loops)
    coords = np.stack([(np.arange(corners) % 62 + 0.5) / 62, (np.arange(corners) // 62 + 0.5) / 64], -1)
    uv.data.foreach_set("uv", coords.astype(np.float32).ravel())
    mat = bpy.data.materials.new("skin")
    if bpy.app.version < (5, 0, 0):
        mat.use_nodes = True
    image = bpy.data.images.new("skin", 248, 64)
    node = mat.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = image
    mat.node_tree.links.new(node.outputs["Color"], mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"])
    mesh.materials.append(mat)
    target = tmp_path / "grid.mdl"
    with pytest.raises(RuntimeError, match=r"texture coordinates, \d+ over Hexen II's limit of 2000"):
        export_mdl(bpy, obj, target, mdl_format="RAPO")
    assert not target.exists()
    assert export_mdl(bpy, obj, tmp_path / "grid_idpo.mdl", mdl_format="IDPO", target="MODERN")[:4] == b"IDPO"
