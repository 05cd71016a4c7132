"""MS3D in Blender: import against the independent decoder, posing against MilkShape's own skinning,
lossless round trip, a rig made in Blender, edits, bad files, handlers and the sidebar panel.

Tolerances: positions and rest poses are float32 in the file; Blender keeps bone matrices as
head/tail/roll in float32, so posed positions agree to about 1e-6 of the model's size (1e-4
asserted). Custom normals are stored by Blender to about 5e-4 rad (1e-2 asserted).
"""
from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from support import ms3d_skinning
from support.blender_helpers import corner_uvs, polygon_vertices
from support.environment import CORPUS, corpus_params
from formats.ms3d.codec import parse_ms3d
from formats.ms3d.records import Ms3dModel
from formats.ms3d.write import serialize_ms3d
from support.ms3d_reference import decode
from support.ms3d_models import tiny_rig
from support.operators import counts, export_ms3d, group_objects, import_ms3d
from support.scenes import skinned_cylinder as _skinned_cylinder

FILES = corpus_params("ms3d/*/*.ms3d")
RIGGED = [p for p in FILES if p.values[0] is None or decode(p.values[0].read_bytes()).joints]
Y_UP_TO_Z_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def model_size(ref) -> float:
    xyz = np.array([v[1] for v in ref.vertices], dtype=np.float64).reshape(-1, 3)
    return float(np.ptp(xyz, axis=0).max()) if len(xyz) else 1.0


def action_fcurves(obj) -> list:
    anim = obj.animation_data
    if hasattr(anim, "action_slot"):
        from bpy_extras import anim_utils
        return list(anim_utils.action_get_channelbag_for_slot(anim.action, anim.action_slot).fcurves)
    return list(anim.action.fcurves)


def world_positions(bpy, obj) -> np.ndarray:
    """Evaluated vertex positions of ``obj`` in world space (armature deformation included)."""
    obj_eval = obj.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = obj_eval.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    obj_eval.to_mesh_clear()
    matrix = np.array(obj.matrix_world)
    return co.reshape(-1, 3).astype(np.float64) @ matrix[:3, :3].T + matrix[:3, 3]


def back_to_back(triangles: np.ndarray) -> np.ndarray:
    """Triangles that have a twin with the same vertices in the opposite order (a double-sided face);
    Blender cannot give both the same custom normal."""
    canonical = [tuple(sorted(t)) for t in triangles.tolist()]
    seen: dict[tuple, int] = {}
    for key in canonical:
        seen[key] = seen.get(key, 0) + 1
    return np.array([seen[key] > 1 for key in canonical], dtype=bool)


@pytest.mark.parametrize("path", FILES)
def test_import_matches_independent_decode(bpy_scene, path):
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    root = import_ms3d(bpy, path)
    assert root.name == path.stem and root.classic_model.source_format == "MS3D"
    assert (root.type == "ARMATURE") == bool(ref.joints)
    objects = group_objects(bpy)
    assert sorted(objects) == list(range(len(ref.groups)))
    xyz = np.array([v[1] for v in ref.vertices], dtype=np.float32).reshape(-1, 3)
    tris = ref.triangles
    for g, (flags, name, members, material) in enumerate(ref.groups):
        obj = objects[g]
        mesh = obj.data
        assert obj.parent == root
        assert obj.name.split(".")[0] == (name.split(b"\0")[0].decode("latin-1") or f"group{g}")
        corners = np.array([tris[i][1] for i in members], dtype=np.int64).reshape(-1, 3)
        used = np.unique(corners)
        index = np.empty(len(mesh.vertices), dtype=np.int32)
        mesh.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
        np.testing.assert_array_equal(index, used)
        co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", co)
        np.testing.assert_array_equal(co.reshape(-1, 3), (xyz[used].astype(np.float64) @ Y_UP_TO_Z_UP.T))
        np.testing.assert_array_equal(used[polygon_vertices(mesh)], corners)
        if not len(members):
            continue
        s = np.array([tris[i][3] for i in members], dtype=np.float32)
        t = np.array([tris[i][4] for i in members], dtype=np.float32)
        np.testing.assert_allclose(corner_uvs(mesh), np.stack([s, 1.0 - t], axis=-1), atol=1e-7)
        normals = np.array([tris[i][2] for i in members], dtype=np.float64).reshape(-1, 3) @ Y_UP_TO_Z_UP.T
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
        shown = np.empty(len(mesh.loops) * 3, dtype=np.float32)
        mesh.corner_normals.foreach_get("vector", shown)
        cosine = np.einsum("ij,ij->i", shown.reshape(-1, 3), normals)
        single = ~np.repeat(back_to_back(corners), 3)
        assert np.all(cosine[single] > np.cos(1e-2))
        if material >= 0:
            assert mesh.materials[0]["ms3d_material"]["index"] == material
        else:
            assert len(mesh.materials) == 0
    materials = root["ms3d_model"].get("materials", [])
    assert [m["ms3d_material"]["index"] for m in materials] == list(range(len(ref.materials)))
    for material, source in zip(materials, ref.materials):
        bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
        np.testing.assert_allclose(bsdf.inputs["Base Color"].default_value[:3], source["diffuse"][:3], atol=1e-7)
        np.testing.assert_allclose(bsdf.inputs["Roughness"].default_value,
                                   np.clip(1 - source["shininess"] / 128, 0, 1), atol=1e-6)
        np.testing.assert_allclose(bsdf.inputs["Alpha"].default_value, source["transparency"], atol=1e-7)
    if ref.joints:
        _check_armature(bpy, root, ref, path)


def _check_armature(bpy, root, ref, path):
    parents = ms3d_skinning.parent_indices(ref)
    rest = ms3d_skinning.rest_globals(ref)
    bones = [b for b in root.data.bones]
    assert len(bones) == len(ref.joints)
    by_index = {b["ms3d_joint"]["index"]: b for b in bones}
    size = model_size(ref)
    for j, joint in enumerate(ref.joints):
        bone = by_index[j]
        assert bone.name.split(".")[0] == joint["name"].split(b"\0")[0].decode("latin-1")
        parent = bone.parent["ms3d_joint"]["index"] if bone.parent else -1
        assert parent == parents[j]
        expected = np.eye(4)
        expected[:3, :3] = Y_UP_TO_Z_UP
        expected = expected @ rest[j]
        matrix = np.array(bone.matrix_local)
        np.testing.assert_allclose(matrix[:3, :3], expected[:3, :3], atol=1e-5)
        np.testing.assert_allclose(matrix[:3, 3], expected[:3, 3], atol=1e-5 * max(size, 1.0))
        assert root.pose.bones[bone.name].rotation_mode == "XYZ"
    scene = bpy.context.scene
    assert scene.render.fps / scene.render.fps_base == pytest.approx(ref.fps if ref.fps > 0 else 24.0)
    assert scene.frame_start == 1 and scene.frame_end >= ref.total_frames
    if any(j["rot_keys"] or j["pos_keys"] for j in ref.joints):
        assert root.animation_data.action.name == path.stem


def _key_times(ref, limit: int = 14) -> list[float]:
    times = sorted({k[0] for j in ref.joints for k in j["rot_keys"] + j["pos_keys"]})
    if len(times) > limit:
        times = [times[i] for i in np.linspace(0, len(times) - 1, limit).round().astype(int)]
    return times


@pytest.mark.parametrize("path", RIGGED)
def test_posed_mesh_matches_milkshape_skinning(bpy_scene, path):
    """At key times (of any joint) the evaluated meshes equal MilkShape's skinning of the file."""
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    import_ms3d(bpy, path)
    objects = group_objects(bpy)
    scene = bpy.context.scene
    fps = ref.fps if ref.fps > 0 else 24.0
    size = model_size(ref)
    _, weights = ms3d_skinning.joint_weights(ref)
    full = np.isclose(weights.sum(axis=1), 1.0) | (weights.sum(axis=1) == 0)
    moved = 0.0
    for time in _key_times(ref):
        frame = time * fps
        scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        expected = ms3d_skinning.skin(ref, fps, frame, normalize=True) @ Y_UP_TO_Z_UP.T
        as_written = ms3d_skinning.skin(ref, fps, frame) @ Y_UP_TO_Z_UP.T
        np.testing.assert_allclose(expected[full], as_written[full], atol=1e-9)
        rest = np.array([v[1] for v in ref.vertices]) @ Y_UP_TO_Z_UP.T
        moved = max(moved, float(np.abs(expected - rest).max()))
        for obj in objects.values():
            index = np.empty(len(obj.data.vertices), dtype=np.int32)
            obj.data.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
            np.testing.assert_allclose(world_positions(bpy, obj), expected[index], atol=1e-4 * size)
    if any(j["rot_keys"] for j in ref.joints):
        assert moved > 1e-2 * size


def test_posed_mesh_with_other_axes(bpy_scene):
    """The bone construction holds for any forward/up choice: posing still equals MilkShape, rotated."""
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    from bpy_extras.io_utils import axis_conversion
    ref = decode(path.read_bytes())
    import_ms3d(bpy, path, axis_forward="-Y", axis_up="X")
    conversion = np.array(axis_conversion(from_forward="-Y", from_up="X"))
    (obj,) = group_objects(bpy).values()
    index = np.empty(len(obj.data.vertices), dtype=np.int32)
    obj.data.attributes["ms3d_vertex_index"].data.foreach_get("value", index)
    for time in _key_times(ref, 6):
        frame = time * ref.fps
        bpy.context.scene.frame_set(int(np.floor(frame)), subframe=float(frame - np.floor(frame)))
        expected = ms3d_skinning.skin(ref, ref.fps, frame) @ conversion.T
        np.testing.assert_allclose(world_positions(bpy, obj), expected[index], atol=1e-4 * model_size(ref))


def test_positions_between_keys_follow_milkshape_hermite_curves(bpy_scene):
    path = CORPUS / "ms3d" / "glscene" / "Woman4.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    ref = decode(path.read_bytes())
    root = import_ms3d(bpy, path)
    hips = next(j for j in ref.joints if j["name"].startswith(b"Hips\0"))
    keys = hips["pos_keys"]
    name = next(b.name for b in root.data.bones if b["ms3d_joint"]["index"] == ref.joints.index(hips))
    curves = sorted((fc for fc in action_fcurves(root) if fc.data_path == f'pose.bones["{name}"].location'),
                    key=lambda fc: fc.array_index)
    assert len(curves) == 3
    for k in (3, len(keys) // 2, len(keys) - 3):
        frame = (keys[k][0] + 0.37 * (keys[k + 1][0] - keys[k][0])) * ref.fps
        expected = ms3d_skinning._position(keys, ref.fps, frame)
        np.testing.assert_allclose([fc.evaluate(frame) for fc in curves], expected, atol=1e-4)


def assert_same_ms3d(a: Ms3dModel, b: Ms3dModel, key_atol: float = 1e-5) -> None:
    """Field by field; only key times and values are compared with a tolerance."""
    for name in ("vert_flags", "vert_xyz", "vert_bone", "vert_refcount", "tri_flags", "tri_vertices",
                 "tri_normals", "tri_s", "tri_t", "tri_smoothing", "tri_group"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert (a.version, a.optional_blocks()) == (b.version, b.optional_blocks())
    assert (a.animation_fps, a.current_time, a.total_frames) == (b.animation_fps, b.current_time, b.total_frames)
    assert [(g.flags, g.name_raw, g.triangles.tolist(), g.material) for g in a.groups] == \
        [(g.flags, g.name_raw, g.triangles.tolist(), g.material) for g in b.groups]
    for x, y in zip(a.materials, b.materials, strict=True):
        for name in ("name_raw", "ambient", "diffuse", "specular", "emissive", "shininess", "transparency",
                     "mode", "texture_raw", "alphamap_raw"):
            np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=f"material {name}")
    for x, y in zip(a.joints, b.joints, strict=True):
        assert (x.flags, x.name_raw, x.parent_raw) == (y.flags, y.name_raw, y.parent_raw)
        np.testing.assert_array_equal(x.rotation, y.rotation)
        np.testing.assert_array_equal(x.position, y.position)
        for keys in ("rot_keys", "pos_keys"):
            assert getattr(x, keys).shape == getattr(y, keys).shape, f"{x.name} {keys}"
            np.testing.assert_allclose(getattr(x, keys), getattr(y, keys), rtol=0, atol=key_atol)
    assert a.comments == b.comments
    for name in ("vertex_extras", "joint_extras"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None)
        if x is not None:
            for field in vars(x):
                np.testing.assert_array_equal(getattr(x, field), getattr(y, field), err_msg=f"{name} {field}")
    assert a.model_extras == b.model_extras
    assert a.trailing == b.trailing


@pytest.mark.parametrize("path", FILES)
def test_untouched_round_trip_is_lossless(bpy_scene, path, tmp_path):
    bpy = bpy_scene
    original = path.read_bytes()
    import_ms3d(bpy, path)
    exported = export_ms3d(bpy, tmp_path / path.name)
    assert_same_ms3d(parse_ms3d(original), exported)
    assert (tmp_path / path.name).read_bytes() == original


@pytest.mark.parametrize("axes", [("Y", "Z"), ("X", "-Y")])
def test_round_trip_with_other_axes(bpy_scene, tmp_path, axes):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    forward, up = axes
    import_ms3d(bpy, path, axis_forward=forward, axis_up=up)
    exported = export_ms3d(bpy, tmp_path / "z.ms3d", axis_forward=forward, axis_up=up)
    assert_same_ms3d(parse_ms3d(path.read_bytes()), exported)


@pytest.mark.parametrize("animation,frames", [("KEYS", (1, 5, 9)), ("BAKE", (1, 3, 5, 7, 9))])
def test_model_rigged_in_blender_exports_and_reimports(bpy_scene, tmp_path, animation, frames):
    bpy = bpy_scene
    body, rig = _skinned_cylinder(bpy)
    scene = bpy.context.scene
    expected = {}
    for frame in frames:
        scene.frame_set(frame)
        expected[frame] = world_positions(bpy, body)
    model = export_ms3d(bpy, tmp_path / "rig.ms3d", animation=animation)
    assert [(j.name, j.parent) for j in model.joints] == [("bone0", ""), ("bone1", "bone0"), ("bone2", "bone1")]
    if animation == "KEYS":    # the action's keys, and more where MilkShape would stray (tests/ms3d/test_ms3d_keyframes.py)
        for joint in model.joints:
            assert set(np.round(joint.rot_keys[:, 0] * 24.0, 4)) >= {1.0, 5.0, 9.0}
        assert [len(j.pos_keys) == 0 for j in model.joints] == [False, True, True]
    else:
        assert [len(j.rot_keys) for j in model.joints] == [9] * 3
        assert [len(j.pos_keys) for j in model.joints] == [9] * 3
    assert {tuple(w) for w in model.vertex_extras.weights.tolist()} == {(100, 0, 0), (75, 25, 0)}
    shared = model.vertex_extras.weights[:, 1] == 25
    np.testing.assert_array_equal(model.vertex_extras.bone_ids[shared, 0], model.vert_bone[shared] + 1)
    assert (model.animation_fps, model.total_frames) == (24.0, 9)

    bpy.ops.wm.read_homefile(use_empty=True)
    import_ms3d(bpy, tmp_path / "rig.ms3d")
    scene = bpy.context.scene
    (reimported,) = group_objects(bpy).values()
    assert len(reimported.data.vertices) == len(expected[frames[0]])
    for frame in frames:
        scene.frame_set(frame)
        np.testing.assert_allclose(world_positions(bpy, reimported), expected[frame], atol=1e-5)


def test_baking_an_imported_model_keeps_its_pose(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    import_ms3d(bpy, path)
    scene = bpy.context.scene
    (obj,) = group_objects(bpy).values()
    frames = (1, 37, 75, 126, 200)
    expected = {}
    for frame in frames:
        scene.frame_set(frame)
        expected[frame] = world_positions(bpy, obj)
    model = export_ms3d(bpy, tmp_path / "baked.ms3d", animation="BAKE")
    assert {len(j.rot_keys) for j in model.joints} == {200}
    bpy.ops.wm.read_homefile(use_empty=True)
    import_ms3d(bpy, tmp_path / "baked.ms3d")
    (obj,) = group_objects(bpy).values()
    for frame in frames:
        bpy.context.scene.frame_set(frame)
        np.testing.assert_allclose(world_positions(bpy, obj), expected[frame], atol=1e-4)


@pytest.mark.parametrize("name", ["sge/zombie.ms3d", "glscene/Woman4.ms3d"])
def test_round_trip_survives_saving_the_blend_file(bpy_scene, tmp_path, name):
    path = CORPUS / "ms3d" / name
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    import_ms3d(bpy, path)
    bpy.ops.wm.save_as_mainfile(filepath=str(tmp_path / "saved.blend"))
    bpy.ops.wm.open_mainfile(filepath=str(tmp_path / "saved.blend"))
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == path.read_bytes()


def test_one_selected_group_of_a_moved_model_exports_the_model(bpy_scene, tmp_path):
    """The model object and armature are found from the group; everything is in the armature's space."""
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    root = import_ms3d(bpy, path)
    root.location, root.rotation_euler = (5.0, 1.0, 2.0), (0.3, 0.2, 1.0)
    export_ms3d(bpy, tmp_path / "z.ms3d", objects=list(group_objects(bpy).values()))
    assert (tmp_path / "z.ms3d").read_bytes() == path.read_bytes()


def test_an_object_with_two_materials_becomes_two_groups(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.object
    for name in ("Red", "Blue"):
        cube.data.materials.append(bpy.data.materials.new(name))
    cube.data.polygons[0].material_index = 1
    model = export_ms3d(bpy, tmp_path / "two.ms3d")
    assert [(g.name, len(g.triangles), g.material) for g in model.groups] == [("Cube_Red", 10, 0),
                                                                             ("Cube_Blue", 2, 1)]
    assert [m.name for m in model.materials] == ["Red", "Blue"]
    assert model.num_vertices == 8


def test_static_mesh_without_armature(bpy_scene, tmp_path):
    bpy = bpy_scene
    bpy.ops.mesh.primitive_cube_add(location=(1, 2, 3))
    cube = bpy.context.object
    bpy.ops.object.shade_smooth()
    top = {v.index for v in cube.data.vertices if v.co.z > 0}
    for edge in cube.data.edges:
        edge.use_edge_sharp = set(edge.vertices) <= top
    material = bpy.data.materials.new("Paint")
    cube.data.materials.append(material)
    model = export_ms3d(bpy, tmp_path / "cube.ms3d")
    assert (model.num_vertices, model.num_triangles, len(model.groups), len(model.joints)) == (8, 12, 1, 0)
    assert model.groups[0].name == "Cube" and model.groups[0].material == 0
    assert model.materials[0].name == "Paint"
    world = np.array([(cube.matrix_world @ v.co)[:] for v in cube.data.vertices])
    np.testing.assert_allclose(model.vert_xyz, world @ Y_UP_TO_Z_UP, atol=1e-6)
    assert np.all(model.vert_bone == -1)
    face_normals = np.cross(*(model.vert_xyz[model.tri_vertices[:, k]] - model.vert_xyz[model.tri_vertices[:, 0]]
                              for k in (1, 2)))
    assert np.all(np.einsum("ij,ij->i", face_normals, model.tri_normals[:, 0]) > 0)
    on_top = np.all(np.isin(model.tri_vertices, sorted(top)), axis=1)
    assert on_top.sum() == 2 and len(set(model.tri_smoothing[on_top].tolist())) == 1
    assert len(set(model.tri_smoothing[~on_top].tolist())) == 1
    assert model.tri_smoothing[on_top][0] != model.tri_smoothing[~on_top][0] and model.tri_smoothing.min() > 0


def test_edits_are_exported_and_the_rest_kept(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    original = parse_ms3d(path.read_bytes())
    root = import_ms3d(bpy, path)
    (obj,) = group_objects(bpy).values()
    obj.data.vertices[5].co.z += 1.0
    material = obj.data.materials[0]
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.25, 0.5, 0.75, 1.0)
    root.classic_model.ms3d_comment = "edited"
    bone = next(b for b in root.data.bones if b["ms3d_joint"]["index"] == 2)
    bone["ms3d_comment"] = "a joint comment"
    model = export_ms3d(bpy, tmp_path / "edited.ms3d")
    index = int(obj.data.attributes["ms3d_vertex_index"].data[5].value)
    moved = original.vert_xyz.copy()
    moved[index, 1] += 1.0
    np.testing.assert_allclose(model.vert_xyz, moved, atol=1e-6)
    np.testing.assert_array_equal(model.materials[0].diffuse,
                                  np.float32([0.25, 0.5, 0.75, original.materials[0].diffuse[3]]))
    np.testing.assert_array_equal(model.materials[0].specular, original.materials[0].specular)
    assert model.materials[0].shininess == original.materials[0].shininess
    assert model.comments.model == "edited"
    assert [(c.index, c.text) for c in model.comments.joint] == [(2, "a joint comment")]
    for x, y in zip(original.joints, model.joints):
        np.testing.assert_array_equal(x.rotation, y.rotation)
        np.testing.assert_array_equal(x.rot_keys, y.rot_keys)
    np.testing.assert_array_equal(model.tri_vertices, original.tri_vertices)


def _import_function(extension):
    return sys.modules[f"{extension}.importers.ms3d.ms3d_import"]


def test_weights_follow_the_format_rules(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    import_ms3d(bpy, tmp_path / "tiny.ms3d")
    (obj,) = group_objects(bpy).values()
    weights = {v.index: {obj.vertex_groups[g.group].name: round(g.weight, 6) for g in v.groups}
               for v in obj.data.vertices}
    # own joint = weights[0]; bone_ids[0] = weights[1]; bone_ids[1] = weights[2]; bone_ids[2] = the rest;
    # all zero = 100 % own joint; joint -1 = no influence (vertex 2's remaining 20 %, vertex 5's 30 %)
    assert weights == {0: {"root": 1.0}, 1: {"root": 0.6, "tip": 0.4}, 2: {"root": 0.5, "tip": 0.3},
                       3: {"tip": 1.0}, 4: {"tip": 1.0}, 5: {"root": 0.5}}
    assert [m.type for m in obj.modifiers] == ["ARMATURE"]


def test_names_in_other_code_pages_are_readable_and_written_back(bpy_scene, tmp_path):
    bpy = bpy_scene
    model = tiny_rig(names=(b"K\xf6rper", b"\xe6\x89\x8b"), tip_parent=b"K\xf6rper", group_name=b"Gr\xfcn\0junk")
    data = serialize_ms3d(model)
    (tmp_path / "names.ms3d").write_bytes(data)
    root = import_ms3d(bpy, tmp_path / "names.ms3d")
    assert sorted(b.name for b in root.data.bones) == ["Körper", "手"]
    (obj,) = group_objects(bpy).values()
    assert obj.name == "Grün" and obj["ms3d_comment"] == "café ÿ"
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert (tmp_path / "again.ms3d").read_bytes() == data


def test_zero_fps_falls_back_to_24_with_a_warning(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    (tmp_path / "still.ms3d").write_bytes(serialize_ms3d(tiny_rig(fps=0.0)))
    module = _import_function(extension)
    result = module.import_ms3d(bpy.context, tmp_path / "still.ms3d", module.Ms3dImportOptions())
    assert any("fps is 0.0: using 24" in w for w in result.warnings)
    assert bpy.context.scene.render.fps == 24
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert parse_ms3d((tmp_path / "again.ms3d").read_bytes()).animation_fps == 0.0


def test_unknown_parent_makes_a_root_with_a_warning(bpy_scene, tmp_path, extension):
    bpy = bpy_scene
    (tmp_path / "orphan.ms3d").write_bytes(serialize_ms3d(tiny_rig(tip_parent=b"nobody")))
    module = _import_function(extension)
    result = module.import_ms3d(bpy.context, tmp_path / "orphan.ms3d", module.Ms3dImportOptions())
    assert any("unknown parent 'nobody'" in w for w in result.warnings)
    root = result.objects[-1]
    assert root.data.bones["tip"].parent is None
    export_ms3d(bpy, tmp_path / "again.ms3d")
    assert parse_ms3d((tmp_path / "again.ms3d").read_bytes()).joints[1].parent == "nobody"


def _truncations(data: bytes) -> dict[str, tuple[int, bool]]:
    """Cut points in a file with every block: name -> (length, still valid)."""
    off = decode(data).offsets
    return {"in vertices": (off["vertices"] + 7, False), "in triangles": (off["triangles"] + 100, False),
            "in a group": (off["group0.tris"] + 3, False), "in materials": (off["nmaterials"] + 40, False),
            "in joint keys": (off["joint3"] + 120, False), "at the end of the joints": (off["required_end"], True),
            "in comments": (off["comments.subversion"] + 9, True), "after comments": (off["comments.end"], True),
            "in vertex extras": (off["vertex extras.subversion"] + 30, True),
            "in model extras": (len(data) - 2, True)}


@pytest.mark.parametrize("cut", ["in vertices", "in triangles", "in a group", "in materials", "in joint keys",
                                 "at the end of the joints", "in comments", "after comments",
                                 "in vertex extras", "in model extras"])
def test_truncated_files(bpy_scene, tmp_path, cut):
    path = CORPUS / "ms3d" / "glscene" / "Woman4.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    data = path.read_bytes()
    length, valid = _truncations(data)[cut]
    target = tmp_path / "cut.ms3d"
    target.write_bytes(data[:length])
    before = counts(bpy)
    if valid:       # a cut inside an optional block keeps its bytes (issue 19) and writes them back
        import_ms3d(bpy, target)
        assert len(group_objects(bpy)) == 10
        export_ms3d(bpy, tmp_path / "again.ms3d")
        assert (tmp_path / "again.ms3d").read_bytes() == data[:length]
    else:
        with pytest.raises(RuntimeError, match="cut.ms3d"):
            bpy.ops.import_scene.ms3d(filepath=str(target))
        assert counts(bpy) == before


def test_corrupt_counts_and_indices_report_and_leave_nothing(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    data = bytearray(path.read_bytes())
    off = decode(bytes(data)).offsets
    cases = {"ntris": (off["ntris"], b"\xff\xff"), "material": (off["group0.material"], b"\x07"),
             "vertex index": (off["triangles"] + 2, b"\xff\x7f")}
    for name, (at, patch) in cases.items():
        broken = bytearray(data)
        broken[at:at + len(patch)] = patch
        (tmp_path / f"{name}.ms3d").write_bytes(bytes(broken))
        before = counts(bpy)
        with pytest.raises(RuntimeError, match=re.escape(f"{name}.ms3d")):
            bpy.ops.import_scene.ms3d(filepath=str(tmp_path / f"{name}.ms3d"))
        assert counts(bpy) == before


def test_failure_inside_the_build_removes_everything(bpy_scene, tmp_path, monkeypatch, extension):
    bpy = bpy_scene
    module = _import_function(extension)

    def explode(*args, **kwargs):
        raise module.FormatError("simulated failure after the armature was built")
    monkeypatch.setattr(module, "animate_joints", explode)
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    before = counts(bpy)
    with pytest.raises(RuntimeError, match="simulated"):
        bpy.ops.import_scene.ms3d(filepath=str(tmp_path / "tiny.ms3d"))
    assert counts(bpy) == before
    assert bpy.context.mode == "OBJECT"


def test_multi_file_import_like_a_drop(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "a.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    (tmp_path / "b.ms3d").write_bytes(serialize_ms3d(tiny_rig(fps=12.0, group_name=b"other")))
    result = bpy.ops.import_scene.ms3d(directory=str(tmp_path), files=[{"name": "a.ms3d"}, {"name": "b.ms3d"}])
    assert result == {"FINISHED"}
    names = sorted(o.name for o in bpy.context.scene.objects)
    assert names == ["a", "b", "other", "strip"]
    assert len(bpy.data.actions) == 2


def test_file_handler_routes_ms3d_to_the_operators(bpy_scene):
    bpy = bpy_scene
    handlers = [cls for cls in bpy.types.FileHandler.__subclasses__() if ".ms3d" in cls.bl_file_extensions]
    assert len(handlers) == 1
    assert handlers[0].bl_import_operator == "import_scene.ms3d"
    assert handlers[0].bl_export_operator == "export_scene.ms3d"


def test_collection_exporter(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    import_ms3d(bpy, tmp_path / "tiny.ms3d")
    collection = bpy.data.collections.new("Export")
    bpy.context.scene.collection.children.link(collection)
    for obj in list(bpy.context.scene.objects):
        collection.objects.link(obj)
        obj.select_set(False)
    with bpy.context.temp_override(collection=collection):
        bpy.ops.collection.exporter_add(name="IO_FH_classic_models_ms3d")
        collection.exporters[0].export_properties.filepath = str(tmp_path / "collection.ms3d")
        assert bpy.ops.collection.exporter_export(index=0) == {"FINISHED"}
    assert (tmp_path / "collection.ms3d").read_bytes() == (tmp_path / "tiny.ms3d").read_bytes()


def test_limits_are_refused_and_the_old_file_kept(bpy_scene, tmp_path):
    bpy = bpy_scene
    data = bpy.data.armatures.new("Many")
    rig = bpy.data.objects.new("Many", data)
    bpy.context.scene.collection.objects.link(rig)
    bpy.context.view_layer.objects.active = rig
    bpy.ops.object.mode_set(mode="EDIT")
    for i in range(130):
        bone = data.edit_bones.new(f"b{i}")
        bone.head, bone.tail = (i, 0, 0), (i, 0, 1)
    data.edit_bones[0].name = "a_joint_name_much_too_long_for_ms3d"
    bpy.ops.object.mode_set(mode="OBJECT")
    target = tmp_path / "many.ms3d"
    target.write_bytes(b"old contents")
    rig.select_set(True)
    with pytest.raises(RuntimeError, match=r"130 joints, 2 over the limit of 128; joint name "
                                           r"'a_joint_name_much_too_long_for_ms3d' is 35 bytes, 4 over"):
        bpy.ops.export_scene.ms3d(filepath=str(target))
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["many.ms3d"]


def test_export_refuses_nothing_selected(bpy_scene, tmp_path):
    bpy = bpy_scene
    with pytest.raises(RuntimeError, match="nothing to export"):
        bpy.ops.export_scene.ms3d(filepath=str(tmp_path / "x.ms3d"))
    assert not (tmp_path / "x.ms3d").exists()


def test_texture_found_by_name_and_path_written_back(bpy_scene, tmp_path):
    path = CORPUS / "ms3d" / "sge" / "zombie.ms3d"
    if not path.exists():
        pytest.skip(f"corpus file {path} not found")
    bpy = bpy_scene
    root = import_ms3d(bpy, path)
    (material,) = root["ms3d_model"]["materials"]
    image = next(n.image for n in material.node_tree.nodes if n.type == "TEX_IMAGE")
    assert image.name.lower() == "zombie.tga" and image.packed_file is not None and image.size[0] > 0
    model = export_ms3d(bpy, tmp_path / "z.ms3d")
    assert model.materials[0].texture == ".\\zombie.tga"


def test_texture_paths_do_not_leave_the_model_folder(bpy_scene, tmp_path, extension):
    module = sys.modules[f"{extension}.formats.archives.skin_lookup"]
    (tmp_path / "models" / "tex").mkdir(parents=True)
    (tmp_path / "secret.png").write_bytes(b"private")
    (tmp_path / "models" / "tex" / "Skin.TGA").write_bytes(b"x")
    (tmp_path / "models" / "link.png").symlink_to(tmp_path / "secret.png")
    folder = tmp_path / "models"
    assert module.find_texture(folder, ".\\tex\\skin.tga") == folder / "tex" / "Skin.TGA"
    assert module.find_texture(folder, "C:\\art\\tex\\skin.tga") is None
    assert module.find_texture(folder, "tex/../tex/skin.tga") == folder / "tex" / "Skin.TGA"
    assert module.find_texture(folder, "../secret.png") is None
    assert module.find_texture(folder, "link.png") is None


class _Layout:
    """Records what a panel draws; ``prop`` resolves its path like Blender would."""

    def __init__(self, lines):
        self.lines = lines

    def box(self):
        return self

    def row(self, align=False):
        return self

    def label(self, text=""):
        self.lines.append(text)

    def prop(self, data, path, text=None):
        data.path_resolve(path)
        self.lines.append(f"prop {path}")


def test_sidebar_panel_shows_the_ms3d_fields(bpy_scene, tmp_path):
    bpy = bpy_scene
    (tmp_path / "tiny.ms3d").write_bytes(serialize_ms3d(tiny_rig()))
    root = import_ms3d(bpy, tmp_path / "tiny.ms3d")
    root.data.bones["tip"]["ms3d_comment"] = "tip comment"
    root.data.bones.active = root.data.bones["tip"]
    panel = bpy.types.VIEW3D_PT_classic_model
    lines: list[str] = []
    panel._draw_ms3d(_Layout(lines), root)
    assert "MilkShape 3D model tiny (version 4)" in lines
    assert "model notes" in lines and "prop ms3d_joint_size" in lines and "prop ms3d_alpha_ref" in lines
    assert 'prop ["ms3d_comment"]' in lines and "Joint tip: flags 8" in lines
    lines.clear()
    panel._draw_ms3d(_Layout(lines), group_objects(bpy)[0])
    assert "Group strip: flags 0" in lines and 'prop ["ms3d_comment"]' in lines
